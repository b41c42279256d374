import { describe, expect, it } from '@jest/globals';
import type { Client, ScheduleOptions } from '@temporalio/client';
import { ensureSchedules } from '../../worker/schedules.ts';

/** What a worker of `queue` registers, captured from the calls it makes. */
async function registered(queue: string) {
  const created: ScheduleOptions[] = [];
  const client = { schedule: { create: async (o: ScheduleOptions) => void created.push(o) } } as unknown as Client;
  await ensureSchedules(client, { TEMPORAL_TASK_QUEUE: queue });
  return created.map((o) => ({
    id: o.scheduleId,
    taskQueue: (o.action as { taskQueue: string }).taskQueue,
  }));
}

describe('the periodic jobs’ Schedules', () => {
  it('are named after the deployment’s task queue, so two deployments on one namespace each have their own', async () => {
    expect(await registered('shop-a')).toEqual([
      { id: 'billing-sweep:shop-a', taskQueue: 'shop-a-batch' },
      { id: 'daily-reconciliation:shop-a', taskQueue: 'shop-a-batch' },
      { id: 'webhook-relay:shop-a', taskQueue: 'shop-a-webhooks' },
    ]);
    const other = await registered('shop-b');
    expect(other.map((s) => s.id)).toEqual([
      'billing-sweep:shop-b',
      'daily-reconciliation:shop-b',
      'webhook-relay:shop-b',
    ]);
  });
});
