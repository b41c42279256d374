import { Client } from '@temporalio/client';
import { DefaultLogger, Runtime, type LogLevel } from '@temporalio/worker';
import { loadConfigOrExit } from '../config/env.ts';
import { openOrm } from '../db/orm.ts';
import { openGateway } from '../gateway/index.ts';
import { batchTaskQueue, webhookTaskQueue } from '../domain/task-queues.ts';
import { ensureSchedules } from './schedules.ts';
import { createTemporalClient } from '../temporal/client.ts';
import { openMailer } from '../mailer/index.ts';
import { startNotificationSender } from './notification-sender.ts';
import { startRelayLoop } from './webhook-relay.ts';
import { createWorker } from './worker.ts';
import { describeDatabase, TaskQueueClaimedError } from './queue-claim.ts';
import { dependencyUnavailable } from '../api/plugins/errors.ts';

const config = loadConfigOrExit('worker');
const level = (
  {
    fatal: 'ERROR',
    error: 'ERROR',
    warn: 'WARN',
    info: 'INFO',
    debug: 'DEBUG',
    trace: 'TRACE',
    silent: 'ERROR',
  } as const
)[config.LOG_LEVEL] satisfies LogLevel;
const logger = new DefaultLogger(level);
Runtime.install({ logger });
// No connection is opened here: activities open them, and a PostgreSQL that is down only fails the
// activities that need it (Temporal retries them), never the worker.
const orm = await openOrm(config.DATABASE_URL, config.DATABASE_POOL_MAX, {
  connectTimeoutMs: config.DATABASE_CONNECT_TIMEOUT_MS,
  applicationName: 'billing-worker',
  onError: (err) => logger.warn(`PostgreSQL connection lost (${err.message}); the pool reconnects on the next query`),
});

const { gateway, close: closeGateway } = await openGateway(config, 'billing-worker');
// For the sweep's starts and the schedules; connects lazily, like the API's.
const temporal = createTemporalClient(config);

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => (stopping = true));

/**
 * Temporal or PostgreSQL down at start-up is waited for, as it is once running (the worker's
 * connection then reconnects by itself): a supervisor starting the stack in any order gets a worker
 * that comes up. PostgreSQL is read once before polling, for the database's deployment id that
 * claims the task queue (worker/queue-claim.ts).
 */
async function connectWorker(): Promise<Awaited<ReturnType<typeof createWorker>> | null> {
  for (let delay = 500; ; delay = Math.min(delay * 2, 5000)) {
    try {
      const taskQueue = batchTaskQueue(config.TEMPORAL_TASK_QUEUE);
      return await createWorker(config, { orm, gateway, temporal, taskQueue, config });
    } catch (err) {
      // Only an unreachable server is waited for; anything else (a bad workflow bundle, an unknown
      // namespace, a queue another database serves) is a mistake that retrying would hide.
      const down = err instanceof Error && (err.name === 'TransportError' || dependencyUnavailable(err) !== null);
      if (!down) throw err;
      if (stopping) return null;
      const which = dependencyUnavailable(err)?.code === 'database_unavailable' ? 'PostgreSQL' : 'Temporal';
      const at = which === 'PostgreSQL' ? describeDatabase(config.DATABASE_URL) : config.TEMPORAL_ADDRESS;
      logger.warn(`${which} at ${at} is unreachable (${err.message}); retrying`);
      await new Promise((resolve) => setTimeout(resolve, delay));
      if (stopping) return null;
    }
  }
}

const connected = await connectWorker().catch((err: unknown) => {
  if (!(err instanceof TaskQueueClaimedError)) throw err;
  // The refusal is the whole message: what is wrong and what to set (no stack trace to read past).
  process.stderr.write(`worker refused to start: ${err.message}\n`);
  process.exitCode = 1;
  return null;
});
if (connected) {
  const { workers, taskQueues, connection } = connected;
  // Worker.run() handles SIGINT/SIGTERM itself: it drains in-flight tasks, then resolves.
  const running = Promise.all(workers.map((w) => w.run()));
  // Registered by whichever worker starts first; a failure only delays them to the next start.
  await ensureSchedules(temporal, config).catch((err: unknown) =>
    logger.warn(`Temporal Schedules not registered (${err instanceof Error ? err.message : String(err)})`),
  );
  // The worker that delivers webhooks also relays the outbox to them and mails the notifications.
  const webhookQueue = webhookTaskQueue(config.TEMPORAL_TASK_QUEUE);
  const relaying = taskQueues.includes(webhookQueue);
  const sender = relaying
    ? startNotificationSender({
        orm,
        mailer: openMailer(config),
        from: config.mailFrom,
        publicBaseUrl: config.publicBaseUrl,
        pollMs: config.WEBHOOK_RELAY_POLL_MS,
        log: (message) => logger.info(message),
      })
    : null;
  const relay = relaying
    ? startRelayLoop({
        databaseUrl: config.DATABASE_URL,
        connectTimeoutMs: config.DATABASE_CONNECT_TIMEOUT_MS,
        orm,
        // On the worker's own connection, so that its starts are eager (the runs' first tasks come
        // straight back to this worker).
        temporal: new Client({ connection, namespace: config.TEMPORAL_NAMESPACE }),
        eager: true,
        webhookQueue,
        pollMs: config.WEBHOOK_RELAY_POLL_MS,
        log: (message) => logger.warn(message),
        onNotifications: () => sender?.poke(),
      })
    : null;
  // The line scripts and tests wait on: the worker polls its task queue from here on.
  process.stdout.write(`worker ready: task queues ${taskQueues.join(' and ')}, pid ${process.pid}\n`);
  await running;
  await relay?.stop();
  await sender?.stop();
  await connection.close();
}
await temporal.connection.close();
await closeGateway();
await orm.close();
