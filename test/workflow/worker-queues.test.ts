import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import temporalProto from '@temporalio/proto';
import { loadConfig } from '../../config/env.ts';
import { openOrm, type Orm } from '../../db/orm.ts';
import { SimulatedGateway } from '@billing/simulated-gateway';
import { bundleInChild } from '../../worker/bundle.ts';
import { createTemporalClient } from '../../temporal/client.ts';
import { createWorker } from '../../worker/worker.ts';
import { TEST_DATABASE_URL, testEnv } from '../helpers/env.ts';
import { until } from '../helpers/processes.ts';

/**
 * WORKER_TASK_QUEUES: a worker process polls the interactive queue and its batch and webhook queues, or
 * only the interactive one or only the other two (docs/operations.md, "Running more workers"), against the
 * test run's Temporal server.
 */
let orm: Orm;
let workflowBundle: { code: string };
let temporal: Client;
beforeAll(async () => {
  orm = await openOrm(TEST_DATABASE_URL, 2);
  temporal = createTemporalClient(loadConfig(testEnv(), 'worker'));
  workflowBundle = await bundleInChild();
}, 60_000);
afterAll(async () => {
  await orm.close();
  await temporal.connection.close();
});

/** Workflow-task pollers the server saw lately on the queue. */
async function pollers(name: string): Promise<number> {
  const described = await temporal.workflowService.describeTaskQueue({
    namespace: 'default',
    taskQueue: { name },
    taskQueueType: temporalProto.temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
  });
  return described.pollers?.length ?? 0;
}

describe('the task queues a worker polls', () => {
  it.each([
    ['all', ['', '-batch', '-webhooks']],
    ['interactive', ['']],
    ['batch', ['-batch', '-webhooks']],
  ] as const)('WORKER_TASK_QUEUES=%s: the queues %j', async (which, polled) => {
    const queue = `worker-queues-test-${which}`;
    const config = loadConfig(testEnv({ WORKER_TASK_QUEUES: which, TEMPORAL_TASK_QUEUE: queue }), 'worker');
    const { workers, taskQueues, connection } = await createWorker(
      config,
      { orm, gateway: new SimulatedGateway(orm) },
      { workflowBundle },
    );
    expect(taskQueues).toEqual(polled.map((suffix) => queue + suffix));
    let stop!: () => void;
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    const running = Promise.all(workers.map((w) => w.runUntil(stopped)));
    try {
      // The server sees a poller on each queue the worker polls, and none on the other.
      await until(async () => (await Promise.all(taskQueues.map(pollers))).every((n) => n > 0));
      const other = ['', '-batch', '-webhooks'].filter((suffix) => !(polled as readonly string[]).includes(suffix));
      for (const suffix of other) expect(await pollers(queue + suffix)).toBe(0);
    } finally {
      stop();
      await running;
      await connection.close();
    }
  });

  it('refuses a value it does not know, naming the variable', () => {
    expect(() => loadConfig(testEnv({ WORKER_TASK_QUEUES: 'renewals' }), 'worker')).toThrow(/WORKER_TASK_QUEUES/);
  });
});
