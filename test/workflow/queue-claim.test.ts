import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { migrateSimulator, SimulatedGateway } from '@billing/simulated-gateway';
import { loadConfig } from '../../config/env.ts';
import { readDeploymentId } from '../../db/deployment/identity.ts';
import { dropDatabase, migrate, openOrm, type Orm } from '../../db/orm.ts';
import { REPO_ROOT } from '../../scripts/tool-paths.ts';
import { createTemporalClient } from '../../temporal/client.ts';
import { bundleInChild } from '../../worker/bundle.ts';
import { claimTaskQueue, claimWorkflowId, TaskQueueClaimedError } from '../../worker/queue-claim.ts';
import { createWorker } from '../../worker/worker.ts';
import { TEST_DATABASE_URL, TEST_TASK_QUEUE, testEnv } from '../helpers/env.ts';
import { until } from '../helpers/processes.ts';
import { TcpProxy } from '../helpers/tcp-proxy.ts';

/**
 * One database per Temporal namespace and task queue (issue 34 §5, decision 0083): against the test
 * run's dev server, a worker of a second database on a queue the test database's workers serve is
 * refused with a message that says what to set, while the test database's own workers (a second one,
 * one restarted) start. Without the claim the second database's worker would poll the queue and run
 * the first's tasks, failing them as "not found". The claim reads PostgreSQL at start: a worker waits
 * for one that is down, as for Temporal.
 */
const OTHER_DATABASE_URL = `${TEST_DATABASE_URL}_other_stack`;
let orm: Orm;
let otherOrm: Orm;
let temporal: Client;
let workflowBundle: { code: string };
beforeAll(async () => {
  await dropDatabase(OTHER_DATABASE_URL);
  await migrate(OTHER_DATABASE_URL);
  await migrateSimulator(OTHER_DATABASE_URL);
  orm = await openOrm(TEST_DATABASE_URL, 2);
  otherOrm = await openOrm(OTHER_DATABASE_URL, 2);
  temporal = createTemporalClient(loadConfig(testEnv(), 'worker'));
  workflowBundle = await bundleInChild();
}, 120_000);
afterAll(async () => {
  await orm?.close();
  await otherOrm?.close();
  await temporal?.connection.close();
  await dropDatabase(OTHER_DATABASE_URL).catch(() => undefined);
});

/** A worker of `databaseUrl` on `queue`, started and left running; `stop` ends it. */
async function startWorker(queue: string, databaseUrl: string) {
  const config = loadConfig(testEnv({ TEMPORAL_TASK_QUEUE: queue, DATABASE_URL: databaseUrl }), 'worker');
  const on = databaseUrl === TEST_DATABASE_URL ? orm : otherOrm;
  const { workers, connection } = await createWorker(
    config,
    { orm: on, gateway: new SimulatedGateway(on) },
    { workflowBundle },
  );
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  const running = Promise.all(workers.map((w) => w.runUntil(stopped)));
  return {
    async stop() {
      stop();
      await running;
      await connection.close();
    },
  };
}

/** The refusal's message; a worker that starts instead is stopped (it would poll on) and fails the test. */
async function refusal(queue: string, databaseUrl: string): Promise<string> {
  let started: Awaited<ReturnType<typeof startWorker>>;
  try {
    started = await startWorker(queue, databaseUrl);
  } catch (err) {
    expect(err).toBeInstanceOf(TaskQueueClaimedError);
    return (err as Error).message;
  }
  await started.stop();
  throw new Error(`a worker of ${databaseUrl} started on ${queue}`);
}

const freshQueue = () => `queue-claim-test-${randomBytes(4).toString('hex')}`;

describe('a worker and the task queue of another database', () => {
  it('is refused on a queue the test database serves, naming what to set; the same database starts again', async () => {
    const queue = freshQueue();
    const first = await startWorker(queue, TEST_DATABASE_URL);
    try {
      const message = await refusal(queue, OTHER_DATABASE_URL);
      expect(message).toContain(`task queue "${queue}" in namespace "default"`);
      expect(message).toContain(`(127.0.0.1:5432/${new URL(TEST_DATABASE_URL).pathname.slice(1)}, deployment `);
      expect(message).toContain(`(127.0.0.1:5432/${new URL(OTHER_DATABASE_URL).pathname.slice(1)}, deployment `);
      for (const setting of ['TEMPORAL_TASK_QUEUE', 'TEMPORAL_NAMESPACE', 'DATABASE_URL'])
        expect(message).toContain(setting);
      expect(message).toContain(
        `temporal workflow terminate --namespace default --workflow-id '${claimWorkflowId(queue)}'`,
      );
      // A second worker of the same database, alongside the first, starts.
      const second = await startWorker(queue, TEST_DATABASE_URL);
      await second.stop();
    } finally {
      await first.stop();
    }
    // And one started again after they stopped (a restart, a deploy) starts too.
    const restarted = await startWorker(queue, TEST_DATABASE_URL);
    await restarted.stop();
  }, 60_000);

  it('refuses the worker process with the message, on the queue the run’s worker process serves', async () => {
    const child = spawn(process.execPath, [path.join(REPO_ROOT, 'worker/main.ts')], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...testEnv({ LOG_LEVEL: 'warn', DATABASE_URL: OTHER_DATABASE_URL }) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // It exits; one that polls instead says it is ready, and is stopped.
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const code = await new Promise<number | null | 'ready'>((resolve) => {
      void exited.then(resolve);
      child.stdout.on('data', () => stdout.includes('worker ready:') && resolve('ready'));
    });
    if (code === 'ready') {
      child.kill('SIGTERM');
      await exited;
    }
    expect(stdout).not.toContain('worker ready:');
    expect(code).toBe(1);
    expect(stderr).toContain(
      `worker refused to start: Temporal task queue "${TEST_TASK_QUEUE}" in namespace "default"`,
    );
    expect(stderr).toContain('Set TEMPORAL_TASK_QUEUE to a queue no other database serves');
  }, 60_000);

  it('of two databases claiming a new queue at once, gives it to exactly one', async () => {
    const queue = freshQueue();
    const claims = [
      { deploymentId: await readDeploymentId(orm.em.fork()), database: 'test' },
      { deploymentId: await readDeploymentId(otherOrm.em.fork()), database: 'other' },
    ];
    expect(claims[0]!.deploymentId).not.toBe(claims[1]!.deploymentId);
    const outcomes = await Promise.allSettled(claims.map((claim) => claimTaskQueue(temporal, queue, claim)));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const rejected = outcomes.filter((o) => o.status === 'rejected');
    expect(rejected).toHaveLength(1);
    expect((rejected[0] as PromiseRejectedResult).reason).toBeInstanceOf(TaskQueueClaimedError);
  });

  it('hands the queue over once its claim is terminated (the first database gone for good)', async () => {
    const queue = freshQueue();
    await (await startWorker(queue, TEST_DATABASE_URL)).stop();
    await refusal(queue, OTHER_DATABASE_URL);
    await temporal.workflow.getHandle(claimWorkflowId(queue)).terminate('test: the database is gone');
    await (await startWorker(queue, OTHER_DATABASE_URL)).stop();
    await refusal(queue, TEST_DATABASE_URL);
  }, 60_000);

  it('waits for a PostgreSQL that is down at start (the claim reads it), then polls', async () => {
    const database = new URL(TEST_DATABASE_URL);
    const proxy = await TcpProxy.start({ host: database.hostname, port: Number(database.port || 5432) });
    await proxy.cut('refuse');
    const throughProxy = new URL(TEST_DATABASE_URL);
    throughProxy.port = String(proxy.port);
    const child = spawn(process.execPath, [path.join(REPO_ROOT, 'worker/main.ts')], {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        ...testEnv({
          LOG_LEVEL: 'warn',
          DATABASE_URL: throughProxy.toString(),
          DATABASE_CONNECT_TIMEOUT_MS: '500',
          TEMPORAL_TASK_QUEUE: freshQueue(),
        }),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    for (const stream of [child.stdout, child.stderr])
      stream.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      await until(() => output.includes(`PostgreSQL at 127.0.0.1:${proxy.port}/`), 20_000, 'the wait to be logged');
      expect(output).toContain('is unreachable');
      expect(child.exitCode).toBeNull();
      await proxy.restore();
      await until(() => output.includes('worker ready:'), 30_000, 'the worker to poll');
    } finally {
      child.kill('SIGTERM');
      await exited;
      await proxy.close();
    }
  }, 60_000);
});
