import { migrateSimulator } from '@billing/simulated-gateway';
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { migrate, openOrm } from '../db/orm.ts';
import { seedDemo } from '../scripts/seed.ts';
import { ensureDevCertificate } from '../scripts/certs.ts';
import { ensureTemporalDevServer, type TemporalDevServer } from '../scripts/temporal-dev-server.ts';
import { REPO_ROOT } from '../scripts/tool-paths.ts';
import { WORKER_ENV, WORKER_NODE_ARGS } from '../worker/process-settings.ts';
import { cpuMs, peakRssMiB, postgresCpuReader, startServer, stopServer, type CpuReaders } from './harness.ts';

/**
 * The billing stack as the workflow benchmarks run it: a Temporal dev server (in memory, headless),
 * N worker processes, one API process over HTTPS and, when asked, the simulated gateway's own server,
 * each a real process of its own (so its CPU time and peak memory can be read), on the benchmark's
 * database with the demo organization seeded.
 */
const GATEWAY_KEY = 'bench_gateway_key';

export interface Stack {
  temporal: TemporalDevServer;
  workers: ChildProcess[];
  api: ChildProcess;
  databaseUrl: string;
  baseUrl: string;
  demo: Awaited<ReturnType<typeof seedDemo>>;
  /** CPU time so far of Temporal, each worker, the API and the database's PostgreSQL backends. */
  cpu: CpuReaders;
  /** Peak RSS (VmHWM) of each worker so far, MiB. */
  workerPeakRssMiB(): number[];
  stop(): Promise<void>;
}

export interface StackOptions {
  temporalPort: number;
  apiPort: number;
  taskQueue: string;
  workers?: number;
  /** More variables for the workers and the API (e.g. BATCH_ACTIVITIES_PER_SECOND). */
  env?: Record<string, string>;
  /**
   * The simulated gateway embedded in the worker and API processes (the sandbox's default), or as its
   * own process (`npm run gateway:sim` on this port) that they call over HTTP, as a real gateway.
   */
  gatewayPort?: number;
  /**
   * The interactive queue in a worker process of its own (WORKER_TASK_QUEUES=interactive), the `workers`
   * processes polling only the batch queue; otherwise each of them polls both.
   */
  interactiveWorker?: boolean;
}

export async function startStack(databaseUrl: string, options: StackOptions): Promise<Stack> {
  const certs = await ensureDevCertificate(path.join(REPO_ROOT, '.certs'));
  await migrate(databaseUrl);
  await migrateSimulator(databaseUrl);
  const temporal = await ensureTemporalDevServer({
    port: options.temporalPort,
    uiPort: options.temporalPort + 1000,
    ui: false,
  });
  const orm = await openOrm(databaseUrl, 2);
  const demo = await seedDemo(orm, 'test');
  await orm.close();

  const env = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_TASK_QUEUE: options.taskQueue,
    TLS_CERT_FILE: certs.certFile,
    TLS_KEY_FILE: certs.keyFile,
    LOG_LEVEL: 'warn',
    PORT: String(options.apiPort),
    JWT_SECRET: 'bench-secret-bench-secret-bench-secret!',
    RATE_LIMIT_MAX: '100000000',
    ...(options.gatewayPort
      ? { GATEWAY: 'http', GATEWAY_URL: `http://127.0.0.1:${options.gatewayPort}`, GATEWAY_API_KEY: GATEWAY_KEY }
      : {}),
    ...options.env,
  };
  const children: ChildProcess[] = [];
  let gateway: ChildProcess | null = null;
  const stop = async () => {
    await Promise.all(children.map(stopServer));
    if (gateway) await stopServer(gateway);
    await temporal.stop();
  };
  try {
    if (options.gatewayPort) {
      const gatewayEnv = {
        ...env,
        GATEWAY_SERVER_PORT: String(options.gatewayPort),
        GATEWAY_CALLBACK_URL: `https://127.0.0.1:${options.apiPort}/api/v1/gateway/callbacks`,
      };
      gateway = await startServer(
        path.join(REPO_ROOT, 'packages/simulated-gateway/src/server-main.ts'),
        gatewayEnv,
        options.gatewayPort,
      );
    }
    // One after the other: each bundles the workflow code, which takes a core for a few seconds.
    const queues = options.interactiveWorker
      ? ['interactive', ...Array<string>(options.workers ?? 1).fill('batch')]
      : Array<string>(options.workers ?? 1).fill('all');
    for (const WORKER_TASK_QUEUES of queues)
      children.push(
        await startServer(
          path.join(REPO_ROOT, 'worker/main.ts'),
          { ...env, ...WORKER_ENV, WORKER_TASK_QUEUES },
          null,
          // BENCH_WORKER_NODE_ARGS, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`: to profile the workers.
          [...WORKER_NODE_ARGS, ...(process.env.BENCH_WORKER_NODE_ARGS?.split(' ').filter(Boolean) ?? [])],
        ),
      );
    children.push(await startServer(path.join(REPO_ROOT, 'api/server.ts'), env, options.apiPort));
  } catch (err) {
    await stop();
    throw err;
  }
  const workers = children.slice(0, -1);
  const api = children.at(-1)!;
  const database = new URL(databaseUrl).pathname.slice(1);
  return {
    temporal,
    workers,
    api,
    databaseUrl,
    baseUrl: `https://127.0.0.1:${options.apiPort}`,
    demo,
    cpu: {
      temporal: () => (temporal.pid ? cpuMs(temporal.pid) : 0),
      ...Object.fromEntries(
        workers.map((w, i) => [workers.length > 1 ? `worker ${i + 1}` : 'worker', () => cpuMs(w.pid!)]),
      ),
      api: () => cpuMs(api.pid!),
      ...(gateway ? { gateway: () => cpuMs(gateway.pid!) } : {}),
      postgres: postgresCpuReader(database),
    },
    workerPeakRssMiB: () => workers.map((w) => peakRssMiB(w.pid!)),
    stop,
  };
}
