import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { Agent, request } from 'undici';
import { uuidv7 } from 'uuidv7';
import { migrate, openOrm } from '../db/orm.ts';
import { seedDemo } from '../db/seed.ts';
import { ensureDevCertificate } from '../scripts/certs.ts';
import { ensureTemporalDevServer, REPO_ROOT } from '../scripts/tools.ts';
import { confirmBaselineUpdate } from './baseline-workflow.ts';
import { cpuMs, postgresCpuMs, startServer, stopServer } from './harness.ts';

/**
 * Checkout create + confirm-sdk with an approving card, end to end over HTTPS, at a fixed concurrency,
 * against a bare Temporal baseline in the same run: a workflow started by a client that takes one
 * Update and runs the same number of no-op activities (three). Target: at least 60% of the baseline (goal 70%).
 */
const CONCURRENCY = Number(process.env.BENCH_CHECKOUT_CONCURRENCY ?? 8);
const DURATION_MS = Number(process.env.BENCH_DURATION_SEC ?? 10) * 1000;
const TEMPORAL_PORT = 7255;
const API_PORT = 18445;

interface Run {
  completed: number;
  failed: number;
  latencies: number[];
  seconds: number;
}

/** Runs `one` in CONCURRENCY loops for DURATION_MS and collects per-iteration latencies. */
async function drive(one: () => Promise<boolean>): Promise<Run> {
  const latencies: number[] = [];
  let failed = 0;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() - started < DURATION_MS) {
        const t0 = performance.now();
        if (await one()) latencies.push(performance.now() - t0);
        else failed++;
      }
    }),
  );
  return { completed: latencies.length, failed, latencies, seconds: (Date.now() - started) / 1000 };
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0);
}

export async function benchCheckouts(databaseUrl: string): Promise<void> {
  const certs = await ensureDevCertificate(path.join(REPO_ROOT, '.certs'));
  await migrate(databaseUrl);
  const temporalServer = await ensureTemporalDevServer({
    port: TEMPORAL_PORT,
    uiPort: TEMPORAL_PORT + 1000,
    ui: false,
  });
  const orm = await openOrm(databaseUrl, 2);
  const demo = await seedDemo(orm, 'test');
  await orm.close();

  const env = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: temporalServer.address,
    TEMPORAL_TASK_QUEUE: 'bench-checkouts',
    TLS_CERT_FILE: certs.certFile,
    TLS_KEY_FILE: certs.keyFile,
    LOG_LEVEL: 'warn',
    PORT: String(API_PORT),
    JWT_SECRET: 'bench-secret-bench-secret-bench-secret!',
    RATE_LIMIT_MAX: '100000000',
  };
  const workerProcess = await startServer(path.join(REPO_ROOT, 'worker/main.ts'), env, null);
  const api = await startServer(path.join(REPO_ROOT, 'api/server.ts'), env, API_PORT);

  const baseUrl = `https://127.0.0.1:${API_PORT}`;
  const dispatcher = new Agent({ connect: { rejectUnauthorized: false }, connections: CONCURRENCY * 2 });
  async function post(url: string, body: unknown, token?: string) {
    const res = await request(baseUrl + url, {
      method: 'POST',
      dispatcher,
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
    return { status: res.statusCode, body: (await res.body.json()) as Record<string, any> };
  }

  Runtime.install({ logger: new DefaultLogger('WARN') });
  const connection = await Connection.connect({ address: temporalServer.address });
  const client = new Client({ connection });
  const nativeConnection = await NativeConnection.connect({ address: temporalServer.address });
  const baselineWorker = await Worker.create({
    connection: nativeConnection,
    taskQueue: 'bench-baseline',
    workflowsPath: path.join(REPO_ROOT, 'bench/baseline-workflow.ts'),
    activities: { noop: async () => undefined },
  });
  const baselineRunning = baselineWorker.run();

  try {
    const product = await post(
      '/api/v1/products/',
      {
        organization_id: demo.organizationId,
        name: 'Bench course',
        prices: [{ currency: 'brl', unit_amount: 19_900 }],
      },
      demo.oat,
    );
    if (product.status !== 201) throw new Error(`product: ${product.status} ${JSON.stringify(product.body)}`);
    /** Each half's latencies, so a slow step shows which request it is in. */
    const halves = { create: [] as number[], confirm: [] as number[] };
    const checkout = async () => {
      const t0 = performance.now();
      const created = await post(
        '/api/v1/checkouts/',
        { product_id: product.body.id, customer_email: 'bench@example.com' },
        demo.oat,
      );
      if (created.status !== 201) return false;
      const t1 = performance.now();
      const confirmed = await post(`/api/v1/checkouts/client/${created.body.client_secret}/confirm-sdk`, {
        payment_method: 'credit_card',
        card: {
          number: '4111111111111111',
          holder_name: 'BENCH',
          expiration_month: '12',
          expiration_year: '2031',
          cvv: '123',
          installments: 1,
        },
      });
      halves.create.push(t1 - t0);
      halves.confirm.push(performance.now() - t1);
      return confirmed.status === 200 && confirmed.body.status === 'succeeded';
    };
    const baseline = async () => {
      const handle = await client.workflow.start('baselineCheckoutWorkflow', {
        taskQueue: 'bench-baseline',
        workflowId: `baseline:${uuidv7()}`,
      });
      return (await handle.executeUpdate(confirmBaselineUpdate)) === 'succeeded';
    };

    /** CPU time used by each process of the stack while `run` goes on. */
    const processes = {
      temporal: () => (temporalServer.pid ? cpuMs(temporalServer.pid) : 0),
      worker: () => cpuMs(workerProcess.pid!),
      api: () => cpuMs(api.pid!),
      postgres: postgresCpuMs,
      'bench (load, baseline worker)': () => process.cpuUsage().user / 1000 + process.cpuUsage().system / 1000,
    };
    async function measured(run: () => Promise<Run>): Promise<Run & { cpu: Record<string, number> }> {
      const before = Object.fromEntries(Object.entries(processes).map(([k, read]) => [k, read()]));
      const result = await run();
      const cpu = Object.fromEntries(Object.entries(processes).map(([k, read]) => [k, read() - before[k]!]));
      return { ...result, cpu };
    }

    // Warm both paths (bundles, JIT, pools) before measuring.
    for (let i = 0; i < 3; i++) await Promise.all([checkout(), baseline()]);
    const base = await measured(() => drive(baseline));
    halves.create.length = 0;
    halves.confirm.length = 0;
    const real = await measured(() => drive(checkout));
    const rate = (r: Run) => r.completed / r.seconds;
    console.table([
      {
        target: 'bare Temporal (start + Update + 3 no-op activities)',
        'per s': rate(base).toFixed(1),
        'p50 ms': percentile(base.latencies, 50),
        'p99 ms': percentile(base.latencies, 99),
        failed: base.failed,
      },
      {
        target: 'checkout create + confirm-sdk (card)',
        'per s': rate(real).toFixed(1),
        'p50 ms': percentile(real.latencies, 50),
        'p99 ms': percentile(real.latencies, 99),
        failed: real.failed,
      },
    ]);
    console.log(
      `  of which POST /checkouts/ p50 ${percentile(halves.create, 50)} ms, p99 ${percentile(halves.create, 99)} ms; ` +
        `confirm-sdk p50 ${percentile(halves.confirm, 50)} ms, p99 ${percentile(halves.confirm, 99)} ms`,
    );
    const perOperation = (r: typeof base) =>
      Object.fromEntries(Object.entries(r.cpu).map(([k, ms]) => [k, Math.round(ms / Math.max(r.completed, 1))]));
    console.log('  CPU ms per operation, by process:');
    console.table({ baseline: perOperation(base), checkout: perOperation(real) });
    console.log(
      `checkout rate ${((rate(real) / rate(base)) * 100).toFixed(1)}% of the baseline (target ≥ 60%, goal 70%) at concurrency ${CONCURRENCY}`,
    );
  } finally {
    baselineWorker.shutdown();
    await baselineRunning;
    await nativeConnection.close();
    await connection.close();
    await dispatcher.close();
    await stopServer(api);
    await stopServer(workerProcess);
    await temporalServer.stop();
  }
}
