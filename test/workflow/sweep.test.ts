import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import type { SimulatedGateway } from '../../gateway/simulator.ts';
import { createTemporalClient } from '../../worker/temporal-client.ts';
import { subscriptionWorkflowId } from '../../workflows/subscription.ts';
import { SWEEP_SCHEDULE_ID } from '../../workflows/sweep.ts';
import { startApi, type TestApi } from '../helpers/api.ts';
import { makeOrganization } from '../helpers/fixtures.ts';
import { paidSubscription as paidSubscriptionOf } from '../helpers/subscriptions.ts';

/**
 * The periodic sweep, a Temporal Schedule the real worker registers at start: triggered, it starts
 * the workflow of a live subscription that has none (here: one an operator terminated), and leaves
 * a running one alone.
 */
let api: TestApi;
let temporal: Client;
beforeAll(async () => {
  api = await startApi();
  temporal = createTemporalClient(api.config);
});
afterAll(async () => {
  await (api.gateway as SimulatedGateway).settleCallbacks();
  await temporal.connection.close();
  await api.close();
});

async function paidSubscription(): Promise<string> {
  const org = await makeOrganization(api.orm);
  const { row } = await paidSubscriptionOf(api, temporal, { organizationId: org.id, recurrenceBilling: 'manual' });
  return row.id as string;
}

/** Describes the workflow until `done` holds (the schedule's run starts it asynchronously). */
async function describedWhen(workflowId: string, done: (d: { status: string; runId: string }) => boolean) {
  for (let i = 0; ; i++) {
    const d = await temporal.workflow.getHandle(workflowId).describe();
    const seen = { status: d.status.name, runId: d.runId };
    if (done(seen)) return seen;
    if (i > 300) throw new Error(`never reached: ${JSON.stringify(seen)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('the billing sweep schedule', () => {
  it('is registered by the worker, hourly, starting the sweep workflow', async () => {
    const schedule = await temporal.schedule.getHandle(SWEEP_SCHEDULE_ID).describe();
    expect(schedule.spec.intervals).toMatchObject([{ every: 3_600_000 }]);
    expect(schedule.action).toMatchObject({ type: 'startWorkflow', workflowType: 'billingSweepWorkflow' });
    expect(schedule.state.paused).toBe(false);
  });

  it('starts the workflow of a live subscription that has none, and keeps a running one', async () => {
    const [lost, kept] = [await paidSubscription(), await paidSubscription()];
    const lostHandle = temporal.workflow.getHandle(subscriptionWorkflowId(lost));
    const terminated = await describedWhen(lostHandle.workflowId, (d) => d.status === 'RUNNING');
    await lostHandle.terminate('an operator stopped it');
    const keptRun = await describedWhen(subscriptionWorkflowId(kept), (d) => d.status === 'RUNNING');

    const runsBefore = await sweepRuns();
    await temporal.schedule.getHandle(SWEEP_SCHEDULE_ID).trigger();
    await describedWhen(lostHandle.workflowId, (d) => d.status === 'RUNNING' && d.runId !== terminated.runId);
    // The sweep's own run finished, and the running workflow was left as it was.
    await waitFor(async () => (await sweepRuns()) > runsBefore);
    expect((await describedWhen(subscriptionWorkflowId(kept), () => true)).runId).toBe(keptRun.runId);
  });
});

async function sweepRuns(): Promise<number> {
  let n = 0;
  for await (const w of temporal.workflow.list({
    query: `WorkflowType = 'billingSweepWorkflow' AND ExecutionStatus = 'Completed'`,
  })) {
    if (w.workflowId.startsWith(SWEEP_SCHEDULE_ID)) n++;
  }
  return n;
}

async function waitFor(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; !(await check()); i++) {
    if (i > 300) throw new Error('never reached');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
