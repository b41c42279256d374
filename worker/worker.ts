import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import type { Config } from '../config/env.ts';
import { createActivities, type ActivityDeps } from '../activities/index.ts';
import { batchTaskQueue, webhookTaskQueue } from '../domain/task-queues.ts';
import { actorActivityInterceptor } from '../temporal/actor-headers.ts';
import { bundleInChild, workflowsPath } from './bundle.ts';
import { Client } from '@temporalio/client';
import { readDeploymentId } from '../db/deployment/identity.ts';
import { claimTaskQueue, describeDatabase } from './queue-claim.ts';

export { workflowsPath };

/** The batch queue's concurrent activities per worker process: half its database pool. */
export const batchActivitySlots = (poolMax: number) => Math.max(1, Math.floor(poolMax / 2));

/**
 * Builds the Worker of the interactive task queue and those of its batch and webhook queues
 * (domain/task-queues.ts), or only the interactive or the background ones (WORKER_TASK_QUEUES), on one connection: each runs every
 * workflow and activity (a run started on either queue is served), and the batch queue's activities are
 * rate-limited (BATCH_ACTIVITIES_PER_SECOND, shared by all workers). Before any of them polls, the task
 * queue is claimed for this database (worker/queue-claim.ts): TaskQueueClaimedError if another serves it.
 */
export async function createWorker(
  config: Config,
  deps: ActivityDeps,
  overrides: Partial<WorkerOptions> = {},
): Promise<{ workers: Worker[]; taskQueues: string[]; connection: NativeConnection }> {
  const connection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
  try {
    // Before anything polls: a queue another database serves is refused (worker/queue-claim.ts).
    await claimTaskQueue(new Client({ connection, namespace: config.TEMPORAL_NAMESPACE }), config.TEMPORAL_TASK_QUEUE, {
      deploymentId: await readDeploymentId(deps.orm.em.fork()),
      database: describeDatabase(config.DATABASE_URL),
    });
  } catch (err) {
    await connection.close();
    throw err;
  }
  const activities = createActivities(deps);
  // Bundled once for both workers (a bundle is built per Worker otherwise), in a child process.
  const workflowBundle = overrides.workflowBundle ?? (await bundleInChild());
  const options = {
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    activities,
    maxCachedWorkflows: config.WORKER_MAX_CACHED_WORKFLOWS,
    // Each activity runs as the actor its workflow sent, so its events record who acted.
    interceptors: { activity: [actorActivityInterceptor] },
    ...overrides,
    workflowBundle,
  };
  const interactive = (): Promise<Worker> => Worker.create({ ...options, taskQueue: config.TEMPORAL_TASK_QUEUE });
  const batch = (): Promise<Worker> =>
    Worker.create({
      ...options,
      taskQueue: batchTaskQueue(config.TEMPORAL_TASK_QUEUE),
      maxTaskQueueActivitiesPerSecond: config.BATCH_ACTIVITIES_PER_SECOND,
      // Its runs wait days between tasks: few are kept in memory (no more tasks at once than are kept).
      maxCachedWorkflows: config.WORKER_BATCH_MAX_CACHED_WORKFLOWS,
      maxConcurrentWorkflowTaskExecutions: Math.min(40, config.WORKER_BATCH_MAX_CACHED_WORKFLOWS),
      // A renewal holds a connection across its gateway call: the batch queue's activities never take more
      // than half the pool, so a storm waits in Temporal's queue, not on the pool (and buyers keep the rest).
      maxConcurrentActivityTaskExecutions: batchActivitySlots(config.DATABASE_POOL_MAX),
      // A renewal's record runs as a local activity (workflows/subscription-run.ts): the same bound.
      maxConcurrentLocalActivityExecutions: batchActivitySlots(config.DATABASE_POOL_MAX),
    });
  // Deliveries wait on merchants' servers, not on the database (a short statement before and after the
  // call): many at once. A delivery's run is small and mostly done within a second: as many are kept in
  // memory as run at once (twice over), so a busy relay's runs are not evicted between their tasks and
  // replayed from their history (runs asleep between retries are the ones the cache lets go).
  const deliveriesAtOnce = config.WEBHOOK_DELIVERIES_AT_ONCE;
  const webhooks = (): Promise<Worker> =>
    Worker.create({
      ...options,
      taskQueue: webhookTaskQueue(config.TEMPORAL_TASK_QUEUE),
      maxCachedWorkflows: 2 * deliveriesAtOnce,
      maxConcurrentWorkflowTaskExecutions: Math.min(100, 2 * deliveriesAtOnce),
      maxConcurrentActivityTaskExecutions: deliveriesAtOnce,
      // A run's first attempt runs in its workflow task (workflows/webhook-delivery.ts).
      maxConcurrentLocalActivityExecutions: deliveriesAtOnce,
    });
  const which = config.WORKER_TASK_QUEUES;
  const workers = [
    ...(which === 'batch' ? [] : [await interactive()]),
    ...(which === 'interactive' ? [] : [await batch(), await webhooks()]),
  ];
  return { workers, taskQueues: workers.map((w) => w.options.taskQueue), connection };
}
