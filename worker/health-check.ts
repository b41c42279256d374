import os from 'node:os';
import { Connection } from '@temporalio/client';
import { loadConfigOrExit } from '../config/env.ts';
import { batchTaskQueue, webhookTaskQueue } from '../domain/task-queues.ts';

/**
 * The worker container's healthcheck (docker-compose.prod.yml): `node worker/health-check.ts`, run inside
 * the container, exits 0 while Temporal lists a poller of this container on one of its task queues seen
 * lately. A worker has no HTTP port to probe, and a process that is up but no longer polls (a stuck event
 * loop, a connection that never came back) is exactly the failure a healthcheck is for.
 *
 * The SDK names each poller `<pid>@<hostname>` (Worker's default identity) and a container's hostname is
 * its own, so the hostname says which pollers are this container's, whichever pid the worker has.
 */

/** A poller's long poll lasts about a minute; one not seen for three has stopped polling. */
export const POLLER_FRESH_MS = 180_000;

export interface Poller {
  identity?: string | null;
  lastAccessTime?: { seconds?: { toNumber(): number } | number | null; nanos?: number | null } | null;
}

/** Whether one of `pollers` is this host's and polled within POLLER_FRESH_MS of `now`. */
export function pollingHere(pollers: readonly Poller[], hostname: string, now: number): boolean {
  return pollers.some((poller) => {
    if (!poller.identity?.endsWith(`@${hostname}`)) return false;
    const seconds = poller.lastAccessTime?.seconds;
    const at = (typeof seconds === 'number' ? seconds : (seconds?.toNumber() ?? 0)) * 1000;
    return now - at <= POLLER_FRESH_MS;
  });
}

async function main(): Promise<boolean> {
  const config = loadConfigOrExit('worker');
  const connection = await Connection.connect({ address: config.TEMPORAL_ADDRESS, connectTimeout: 5000 });
  try {
    const queues = [
      config.TEMPORAL_TASK_QUEUE,
      batchTaskQueue(config.TEMPORAL_TASK_QUEUE),
      webhookTaskQueue(config.TEMPORAL_TASK_QUEUE),
    ];
    for (const name of queues) {
      const { pollers } = await connection.withDeadline(Date.now() + 5000, () =>
        connection.workflowService.describeTaskQueue({
          namespace: config.TEMPORAL_NAMESPACE,
          taskQueue: { name },
          taskQueueType: 1, // TASK_QUEUE_TYPE_WORKFLOW: every Worker of ours runs workflows
        }),
      );
      if (pollingHere(pollers ?? [], os.hostname(), Date.now())) return true;
    }
    return false;
  } finally {
    await connection.close();
  }
}

if (import.meta.main) {
  try {
    const healthy = await main();
    if (!healthy) console.error(`no poller of ${os.hostname()} on this worker's task queues`);
    process.exitCode = healthy ? 0 : 1;
  } catch (err) {
    console.error(`worker health check: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  }
}
