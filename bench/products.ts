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
 * GET /api/v1/products/<id> with an API key over HTTPS, against a bare
 * Fastify + pg endpoint running the same single-row query, side by side in one run.
 * Target: at least 60% of the bare throughput, and p99 at most twice the bare p99, at 50 connections.
 */
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const DURATION = Number(process.env.BENCH_DURATION_SEC ?? 10);
const API_PORT = 18443;
const BARE_PORT = 18444;

export async function benchProducts(DATABASE_URL: string): Promise<void> {
  const certs = await ensureDevCertificate(path.join(REPO_ROOT, '.certs'));
  await migrate(DATABASE_URL);
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
    const options = { connections: CONNECTIONS, durationSec: DURATION };
    // Warm both (JIT, connection pools, credential cache) before measuring.
    await load('warm-up', `https://127.0.0.1:${BARE_PORT}/products/${productId}`, { ...options, durationSec: 2 });
    await load('warm-up', `https://127.0.0.1:${API_PORT}/api/v1/products/${productId}`, {
      ...options,
      durationSec: 2,
      headers: { 'x-service-api-key': demo.apiKey },
    });
    // CPU time each process spends per request while one target is loaded (the load generator is this process).
    const database = new URL(DATABASE_URL).pathname.slice(1);
    const cpuPerRequest = async (server: number, run: () => Promise<Figures>) => {
      const readers: CpuReaders = {
        server: () => cpuMs(server),
        postgres: postgresCpuReader(database),
        'load generator': ownCpuMs,
      };
      const before = cpuSnapshot(readers);
      const figures = await run();
      const used = cpuSince(readers, before);
      const requests = figures.requestsPerSec * DURATION;
      return {
        figures,
        cpu: Object.fromEntries(Object.entries(used).map(([k, ms]) => [k, Math.round((ms * 1000) / requests)])),
      };
    };
    const bare = await cpuPerRequest(bareServer.pid!, () =>
      load('bare fastify + pg', `https://127.0.0.1:${BARE_PORT}/products/${productId}`, options),
    );
    const bareFigures = bare.figures;
    bareFigures.peakRssMiB = peakRssMiB(bareServer.pid!);
    const served = await cpuPerRequest(api.pid!, () =>
      load('API GET /products/:id (API key)', `https://127.0.0.1:${API_PORT}/api/v1/products/${productId}`, {
        ...options,
        headers: { 'x-service-api-key': demo.apiKey },
      }),
    );
    const apiFigures = served.figures;
    apiFigures.peakRssMiB = peakRssMiB(api.pid!);
    printTable([bareFigures, apiFigures]);
    console.log('  CPU µs per request, by process:');
    console.table({ bare: bare.cpu, api: served.cpu });
    const throughput = apiFigures.requestsPerSec / bareFigures.requestsPerSec;
    const p99 = apiFigures.p99 / Math.max(bareFigures.p99, 1);
    console.log(
      `throughput ratio ${(throughput * 100).toFixed(1)}% (target ≥ 60%)  p99 ratio ${p99.toFixed(2)}× (target ≤ 2×)`,
    );
    if (apiFigures.non2xx > 0) console.log(`warning: ${apiFigures.non2xx} non-2xx responses or errors from the API`);
  } finally {
    await stopServer(api);
    await stopServer(bareServer);
  }
}
