import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import { loadConfig } from '../../config/env.ts';
import { createTemporalClient } from '../../temporal/client.ts';
import { WEBHOOK_RELAY_JOB } from '../../contracts/webhook-relay.ts';
import { TEST_TASK_QUEUE, testEnv } from '../helpers/env.ts';
import { scheduleIdFor } from '../../domain/task-queues.ts';
import { recordHistory } from '../helpers/histories.ts';
import { until } from '../helpers/processes.ts';

/**
 * The outbox relay's safety sweep, the Schedule the worker of globalSetup registers: a run relays what
 * the workers' LISTEN loops left and ends (its passes are test/e2e/webhooks.test.ts's subject).
 */
let temporal: Client;
beforeAll(() => {
  temporal = createTemporalClient(loadConfig(testEnv()));
});
afterAll(async () => {
  await temporal.connection.close();
});

describe('webhookRelayWorkflow', () => {
  it('runs from its schedule, relays what is left and completes', async () => {
    const runs = async () => {
      const found: { workflowId: string; runId: string }[] = [];
      for await (const w of temporal.workflow.list({
        query: `WorkflowType = 'webhookRelayWorkflow' AND ExecutionStatus = 'Completed'`,
      })) {
        if (w.workflowId.startsWith(WEBHOOK_RELAY_JOB)) found.push({ workflowId: w.workflowId, runId: w.runId });
      }
      return found;
    };
    const before = new Set((await runs()).map((w) => w.runId));
    const schedule = temporal.schedule.getHandle(scheduleIdFor(WEBHOOK_RELAY_JOB, TEST_TASK_QUEUE));
    expect((await schedule.describe()).action).toMatchObject({ workflowType: 'webhookRelayWorkflow' });
    await schedule.trigger();
    let done: { workflowId: string; runId: string } | undefined;
    await until(async () => (done = (await runs()).find((w) => !before.has(w.runId))) !== undefined, 30_000);
    const result = await temporal.workflow.getHandle(done!.workflowId, done!.runId).result();
    expect(result).toEqual({ events: expect.any(Number), deliveries: expect.any(Number) });
    await recordHistory(temporal, 'webhook-relay-pass', done!.workflowId, done!.runId);
  }, 60_000);
});
