import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import type { Config } from '../config/env.ts';
import { createActivities, type ActivityDeps } from '../activities/index.ts';

export const workflowsPath = new URL('../workflows/index.ts', import.meta.url).pathname;

/** Builds the worker that runs every workflow and activity on the billing task queue. */
export async function createWorker(
  config: Config,
  deps: ActivityDeps,
  overrides: Partial<WorkerOptions> = {},
): Promise<{ worker: Worker; connection: NativeConnection }> {
  const connection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
  const worker = await Worker.create({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    activities: createActivities(deps),
    ...(overrides.workflowBundle ? {} : { workflowsPath }),
    ...overrides,
  });
  return { worker, connection };
}
