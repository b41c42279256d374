import { migrateSimulator } from '@billing/simulated-gateway';
import path from 'node:path';
import { uuidv7 } from 'uuidv7';
import { migrate, openOrm } from '../db/orm.ts';
import { seedDemo } from '../scripts/seed.ts';
import { ensureDevCertificate } from '../scripts/certs.ts';
import { REPO_ROOT } from '../scripts/tool-paths.ts';
import {
  cpuMs,
  cpuSince,
  cpuSnapshot,
  load,
  ownCpuMs,
  peakRssMiB,
  postgresCpuReader,
  printTable,
  startServer,
  stopServer,
  type CpuReaders,
  type Figures,
} from './harness.ts';

/**
 * GET /api/v1/products/<id> with an API key over HTTPS, against a bare Fastify + pg endpoint reading
 * the product's row (without its prices and medias), side by side in one run: each loaded for
 * BENCH_DURATION_SEC in two halves, in the order bare, API, API, bare.
 * Target: at least 60% of the bare throughput, and p99 at most twice the bare p99, at 50 connections
 * (issue 21's goal: 85 %, p99 at most 1.25×).
 */
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const DURATION = Number(process.env.BENCH_DURATION_SEC ?? 10);
const API_PORT = 18443;
const BARE_PORT = 18444;

export async function benchProducts(DATABASE_URL: string): Promise<void> {
  const certs = await ensureDevCertificate(path.join(REPO_ROOT, '.certs'));
  await migrate(DATABASE_URL);
  await migrateSimulator(DATABASE_URL);
  const orm = await openOrm(DATABASE_URL, 2);
  const demo = await seedDemo(orm, 'test');
  const productId = uuidv7();
  const priceId = uuidv7();
  await orm.em.transactional(async (tx) => {
    const conn = tx.getConnection();
    const ctx = tx.getTransactionContext();
    await conn.execute(
      `insert into products (id, organization_id, name, description, created_at, default_price_id) values (?, ?, 'Bench plan', 'A product to read', now(), ?)`,
      [productId, demo.organizationId, priceId],
      'run',
      ctx,
    );
    await conn.execute(
      `insert into prices (id, product_id, organization_id, type, currency, unit_amount, tax_behavior, created_at) values (?, ?, ?, 'one_time', 'brl', 4990, 'unspecified', now())`,
      [priceId, productId, demo.organizationId],
      'run',
      ctx,
    );
  });
  await orm.close();

  const common = {
    ...process.env,
    DATABASE_URL,
    TLS_CERT_FILE: certs.certFile,
    TLS_KEY_FILE: certs.keyFile,
    LOG_LEVEL: 'warn',
  };
  const api = await startServer(
    path.join(REPO_ROOT, 'api/server.ts'),
    {
      ...common,
      PORT: String(API_PORT),
      JWT_SECRET: 'bench-secret-bench-secret-bench-secret!',
      RATE_LIMIT_MAX: '100000000',
      TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233',
    },
    API_PORT,
  );
  const bareServer = await startServer(
    path.join(REPO_ROOT, 'bench/bare-server.ts'),
    { ...common, PORT: String(BARE_PORT) },
    BARE_PORT,
  );

  try {
    const options = { connections: CONNECTIONS, durationSec: DURATION / 2 };
    // Warm both (JIT, connection pools, credential cache) before measuring.
    await load('warm-up', `https://127.0.0.1:${BARE_PORT}/products/${productId}`, { ...options, durationSec: 2 });
    await load('warm-up', `https://127.0.0.1:${API_PORT}/api/v1/products/${productId}`, {
      ...options,
      durationSec: 2,
      headers: { 'x-service-api-key': demo.apiKey },
    });
    // CPU time each process spends per request while one target is loaded (the load generator is this process).
    const database = new URL(DATABASE_URL).pathname.slice(1);
    const targets = {
      bare: new Target('bare fastify + pg', bareServer.pid!, database, () =>
        load('bare', `https://127.0.0.1:${BARE_PORT}/products/${productId}`, options),
      ),
      api: new Target('API GET /products/:id (API key)', api.pid!, database, () =>
        load('api', `https://127.0.0.1:${API_PORT}/api/v1/products/${productId}`, {
          ...options,
          headers: { 'x-service-api-key': demo.apiKey },
        }),
      ),
    };
    // Bare, API, API, bare: a machine that speeds up or slows down during the run weighs on both alike.
    for (const name of ['bare', 'api', 'api', 'bare'] as const) await targets[name].round();
    const bareFigures = targets.bare.figures(peakRssMiB(bareServer.pid!));
    const apiFigures = targets.api.figures(peakRssMiB(api.pid!));
    printTable([bareFigures, apiFigures]);
    console.log('  CPU µs per request, by process:');
    console.table({ bare: targets.bare.cpuPerRequest(), api: targets.api.cpuPerRequest() });
    const throughput = apiFigures.requestsPerSec / bareFigures.requestsPerSec;
    const p99 = apiFigures.p99 / Math.max(bareFigures.p99, 1);
    console.log(
      `throughput ratio ${(throughput * 100).toFixed(1)}% (target ≥ 60%, goal ≥ 85%)  p99 ratio ${p99.toFixed(2)}× (target ≤ 2×, goal ≤ 1.25×)`,
    );
    if (apiFigures.non2xx > 0) console.log(`warning: ${apiFigures.non2xx} non-2xx responses or errors from the API`);
  } finally {
    await stopServer(api);
    await stopServer(bareServer);
  }
}

/** One target's rounds: throughput and latency averaged over them, CPU summed. */
class Target {
  private readonly rounds: Figures[] = [];
  private readonly cpuUsed: Record<string, number> = {};
  private readonly readers: CpuReaders;
  private readonly name: string;
  private readonly run: () => Promise<Figures>;

  constructor(name: string, pid: number, database: string, run: () => Promise<Figures>) {
    this.name = name;
    this.run = run;
    this.readers = { server: () => cpuMs(pid), postgres: postgresCpuReader(database), 'load generator': ownCpuMs };
  }

  async round(): Promise<void> {
    const before = cpuSnapshot(this.readers);
    this.rounds.push(await this.run());
    for (const [k, ms] of Object.entries(cpuSince(this.readers, before))) this.cpuUsed[k] = (this.cpuUsed[k] ?? 0) + ms;
  }

  figures(peakRss: number): Figures {
    const mean = (pick: (f: Figures) => number) =>
      Math.round(this.rounds.reduce((sum, f) => sum + pick(f), 0) / this.rounds.length);
    return {
      name: this.name,
      requestsPerSec: mean((f) => f.requestsPerSec),
      p50: mean((f) => f.p50),
      p99: mean((f) => f.p99),
      non2xx: this.rounds.reduce((sum, f) => sum + f.non2xx, 0),
      peakRssMiB: peakRss,
    };
  }

  cpuPerRequest(): Record<string, number> {
    const requests = this.rounds.reduce((sum, f) => sum + f.requestsPerSec, 0) * (DURATION / 2);
    return Object.fromEntries(Object.entries(this.cpuUsed).map(([k, ms]) => [k, Math.round((ms * 1000) / requests)]));
  }
}
