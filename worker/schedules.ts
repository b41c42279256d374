import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import type { Config } from '../config/env.ts';
import { batchTaskQueue, scheduleIdFor, webhookTaskQueue } from '../domain/task-queues.ts';
import { webhookRelayWorkflow } from '../workflows/webhook-relay.ts';
import { billingSweepWorkflow } from '../workflows/sweep.ts';
import { WEBHOOK_RELAY_JOB } from '../contracts/webhook-relay.ts';
import { SWEEP_JOB } from '../contracts/sweep.ts';
import { RECONCILIATION_JOB } from '../contracts/reconciliation.ts';
import { reconciliationWorkflow } from '../workflows/reconciliation.ts';

/** How often the webhook relay's safety sweep runs. */
export const WEBHOOK_RELAY_EVERY = '1 minute';

/** How often the sweep runs. */
export const SWEEP_EVERY = '1 hour';

/** When the daily reconciliation of yesterday runs (UTC): after the gateway's day has closed. */
export const RECONCILIATION_AT = { hour: 4, minute: 0 };

/**
 * The periodic jobs as Temporal Schedules, so an operator sees, pauses and triggers them in the UI.
 * Registered by every worker at start; one that exists already is left as it is (an operator may
 * have paused it), so any number of workers can start in any order. Their ids name the deployment's
 * task queue (scheduleIdFor), so deployments sharing a namespace on different queues each have their own.
 */
export async function ensureSchedules(client: Client, config: Pick<Config, 'TEMPORAL_TASK_QUEUE'>): Promise<void> {
  try {
    await client.schedule.create({
      scheduleId: scheduleIdFor(SWEEP_JOB, config.TEMPORAL_TASK_QUEUE),
      spec: { intervals: [{ every: SWEEP_EVERY }] },
      action: {
        type: 'startWorkflow',
        workflowType: billingSweepWorkflow,
        workflowId: scheduleIdFor(SWEEP_JOB, config.TEMPORAL_TASK_QUEUE),
        taskQueue: batchTaskQueue(config.TEMPORAL_TASK_QUEUE),
        args: [{}],
      },
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 hour' },
      state: {
        note:
          'Starts the missing workflow of every live subscription, pending invoice and unsettled checkout ' +
          '(see docs/decisions/0041-billing-sweep-schedule.md)',
      },
    });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
  try {
    await client.schedule.create({
      scheduleId: scheduleIdFor(RECONCILIATION_JOB, config.TEMPORAL_TASK_QUEUE),
      spec: { calendars: [{ hour: RECONCILIATION_AT.hour, minute: RECONCILIATION_AT.minute }] },
      action: {
        type: 'startWorkflow',
        workflowType: reconciliationWorkflow,
        workflowId: scheduleIdFor(RECONCILIATION_JOB, config.TEMPORAL_TASK_QUEUE),
        taskQueue: batchTaskQueue(config.TEMPORAL_TASK_QUEUE),
        args: [{}],
      },
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 day' },
      state: {
        note: "Reconciles yesterday's books with the gateway's ledger (docs/decisions/0073-reconciliation.md)",
      },
    });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
  try {
    await client.schedule.create({
      scheduleId: scheduleIdFor(WEBHOOK_RELAY_JOB, config.TEMPORAL_TASK_QUEUE),
      spec: { intervals: [{ every: WEBHOOK_RELAY_EVERY }] },
      action: {
        type: 'startWorkflow',
        workflowType: webhookRelayWorkflow,
        workflowId: scheduleIdFor(WEBHOOK_RELAY_JOB, config.TEMPORAL_TASK_QUEUE),
        taskQueue: webhookTaskQueue(config.TEMPORAL_TASK_QUEUE),
      },
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 minute' },
      state: { note: "Relays outbox events the workers' LISTEN loops missed to webhook deliveries" },
    });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
}
