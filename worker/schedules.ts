import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import type { Config } from '../config/env.ts';
import { batchTaskQueue } from '../domain/task-queues.ts';
import { billingSweepWorkflow, SWEEP_SCHEDULE_ID } from '../workflows/sweep.ts';

/** How often the sweep runs. */
export const SWEEP_EVERY = '1 hour';

/**
 * The periodic jobs as Temporal Schedules, so an operator sees, pauses and triggers them in the UI.
 * Registered by every worker at start; one that exists already is left as it is (an operator may
 * have paused it), so any number of workers can start in any order.
 */
export async function ensureSchedules(client: Client, config: Pick<Config, 'TEMPORAL_TASK_QUEUE'>): Promise<void> {
  try {
    await client.schedule.create({
      scheduleId: SWEEP_SCHEDULE_ID,
      spec: { intervals: [{ every: SWEEP_EVERY }] },
      action: {
        type: 'startWorkflow',
        workflowType: billingSweepWorkflow,
        workflowId: SWEEP_SCHEDULE_ID,
        taskQueue: batchTaskQueue(config.TEMPORAL_TASK_QUEUE),
        args: [{}],
      },
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 hour' },
      state: {
        note:
          'Starts the missing workflow of every live subscription, pending invoice and unsettled checkout ' +
          '(see docs/decisions.md)',
      },
    });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
}
