/**
 * CI's check of the production install (issue 22, §1): the tracked files copied into a fresh folder and
 * installed the way the Docker image installs them (`npm ci --omit=dev`), then the migration, the seed,
 * the worker and the API started from that folder against a fresh database and a Temporal dev server. A package the
 * running code imports but that is only a devDependency fails the build here instead of in the image.
 * As in the image, the folder has no simulated gateway (packages/simulated-gateway, dev and tests only): the
 * stack talks to one over HTTP (GATEWAY=http), the standalone server run from this repository.
 * Exits non-zero when any of them cannot start.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dropDatabase } from '../db/orm.ts';
import { freePort, run, stopProcess } from './processes.ts';
import { startTemporalDevServer, type TemporalDevServer } from './temporal-dev-server.ts';
import { REPO_ROOT } from './tool-paths.ts';

const START_TIMEOUT_MS = 180_000;

/** The simulated gateway's package, which the image leaves out (the Dockerfile's `sources` stage). */
const SIMULATOR_PACKAGE = 'packages/simulated-gateway';

/** The tracked files of the working tree (what CI checked out), without node_modules, anything ignored or the simulator. */
function exportTrackedFiles(dir: string): void {
  const list = `git ls-files -z -- . ':!${SIMULATOR_PACKAGE}'`;
  execFileSync('bash', ['-c', `${list} | tar --null -T - -cf - | tar -xf - -C "$1"`, '_', dir], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

/** The production install must not hold the simulated gateway, not even as a workspace link. */
function assertNoSimulator(dir: string): void {
  for (const at of [SIMULATOR_PACKAGE, 'node_modules/@billing/simulated-gateway']) {
    if (existsSync(path.join(dir, at))) throw new Error(`the production install holds ${at}`);
  }
}

/** GATEWAY=simulator, which the production install cannot serve, is refused with a message that says what to set. */
async function assertSimulatorRefused(dir: string, databaseUrl: string): Promise<void> {
  const env = { PATH: process.env.PATH, NODE_ENV: 'production', DATABASE_URL: databaseUrl, GATEWAY: 'simulator' };
  const result = await run(process.execPath, ['db/migrate.ts'], { cwd: dir, env, timeoutMs: START_TIMEOUT_MS });
  if (result.code === 0 || !result.output.includes('GATEWAY=simulator needs @billing/simulated-gateway')) {
    throw new Error(`GATEWAY=simulator was not refused (${result.code}):\n${result.output}`);
  }
  console.log('GATEWAY=simulator: refused');
}

/** The standalone simulated gateway, from this repository (not the production folder), on a free port. */
async function startSimulatedGateway(databaseUrl: string, port: number, children: ChildProcess[]): Promise<void> {
  const env = {
    PATH: process.env.PATH,
    DATABASE_URL: databaseUrl,
    GATEWAY_SERVER_PORT: String(port),
    LOG_LEVEL: 'warn',
  };
  const gateway = start(REPO_ROOT, `${SIMULATOR_PACKAGE}/src/server-main.ts`, env);
  children.push(gateway.child);
  const url = `http://127.0.0.1:${port}`;
  await waitUntil(gateway, 'simulated gateway', async () => (await fetch(url).catch(() => null)) !== null);
}

async function npmCiProduction(dir: string): Promise<void> {
  console.log(`npm ci --omit=dev in ${dir}`);
  const result = await run('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: dir,
    timeoutMs: 600_000,
  });
  if (result.code !== 0) throw new Error(`npm ci --omit=dev failed (${result.code}):\n${result.output}`);
}

/** Runs `script` with this Node (24; the production folder has no `node` package) to its end. */
async function runToEnd(dir: string, script: string, env: NodeJS.ProcessEnv): Promise<void> {
  const result = await run(process.execPath, [script], { cwd: dir, env, timeoutMs: START_TIMEOUT_MS });
  if (result.code !== 0) throw new Error(`${script} failed (${result.code}):\n${result.output}`);
  console.log(`${script}: done`); // not its output: the seed's is credentials
}

/** Starts `script` from the production folder; its output is kept for the error when it dies. */
function start(dir: string, script: string, env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [script], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code, signal) => reject(new Error(`${script} exited (${code ?? signal}):\n${output}`))),
  );
  exited.catch(() => undefined);
  return { child, exited, output: () => output };
}

/** Resolves once `ready` holds, polled every 250 ms; rejects when the process exits first or time runs out. */
async function waitUntil(
  proc: ReturnType<typeof start>,
  what: string,
  ready: () => boolean | Promise<boolean>,
): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  let settled = false; // the poll ends with the race: a process that died must not keep this one waiting
  const poll = async () => {
    while (!settled && !(await ready())) {
      if (Date.now() > deadline) throw new Error(`${what} not ready within ${START_TIMEOUT_MS} ms:\n${proc.output()}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  };
  try {
    await Promise.race([poll(), proc.exited]);
  } finally {
    settled = true;
  }
  console.log(`${what}: ready`);
}

/**
 * worker/health-check.ts from the production folder, as the worker container's healthcheck runs it: exits 0
 * once Temporal lists a poller of this host (retried a few seconds: the first poll follows `worker ready`).
 */
async function assertWorkerHealth(dir: string, env: NodeJS.ProcessEnv, healthy: boolean): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const result = await run(process.execPath, ['worker/health-check.ts'], { cwd: dir, env, timeoutMs: 30_000 });
    if ((result.code === 0) === healthy) break;
    if (!healthy || attempt >= 20) {
      throw new Error(
        `worker/health-check.ts: expected ${healthy ? 'healthy' : 'unhealthy'} (${result.code}):\n${result.output}`,
      );
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  console.log(`worker/health-check.ts: ${healthy ? 'healthy' : 'unhealthy'}, as expected`);
}

async function apiReady(port: number): Promise<boolean> {
  try {
    // As a TLS-terminating proxy would forward it: a plain request is refused (api/plugins/https.ts).
    const response = await fetch(`http://127.0.0.1:${port}/readyz`, { headers: { 'x-forwarded-proto': 'https' } });
    return response.status === 200;
  } catch {
    return false;
  }
}

/** Migration, worker, API from `dir`, each waited for; `children` collects what must be stopped. */
async function startStack(dir: string, databaseUrl: string, temporal: TemporalDevServer, children: ChildProcess[]) {
  // Only what a deployment sets: PATH for the child's own lookups, no NODE_OPTIONS or npm_* of this run.
  const gatewayPort = await freePort();
  const base = {
    PATH: process.env.PATH,
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    DATABASE_URL: databaseUrl,
    GATEWAY: 'http',
    GATEWAY_URL: `http://127.0.0.1:${gatewayPort}`,
    GATEWAY_API_KEY: 'sim_gateway_key',
  };
  await runToEnd(dir, 'db/migrate.ts', base);
  // On the database the migration created; it runs its own migrations (schema gateway_sim).
  await startSimulatedGateway(databaseUrl, gatewayPort, children);
  // The first credential of a new deployment (docker-compose.yml's `seed` service runs it from the image).
  await runToEnd(dir, 'scripts/seed.ts', { ...base, JWT_SECRET: randomBytes(32).toString('hex') });
  const appEnv = { ...base, TEMPORAL_ADDRESS: temporal.address, TEMPORAL_TASK_QUEUE: 'prod-install-check' };
  // docker-compose.prod.yml's worker healthcheck: unhealthy while no worker of this host polls, then healthy.
  await assertWorkerHealth(dir, appEnv, false);
  const worker = start(dir, 'worker/main.ts', appEnv);
  children.push(worker.child);
  await waitUntil(worker, 'worker/main.ts', () => worker.output().includes('worker ready'));
  await assertWorkerHealth(dir, appEnv, true);
  const port = await freePort();
  // Plain HTTP behind a (here absent) proxy: the check needs no certificate.
  const apiEnv = { ...appEnv, PORT: String(port), TLS_MODE: 'proxy', JWT_SECRET: randomBytes(32).toString('hex') };
  const api = start(dir, 'api/server.ts', apiEnv);
  children.push(api.child);
  await waitUntil(api, 'api/server.ts', () => apiReady(port));
}

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'billing-prod-'));
  const databaseUrl = `postgres://postgres@127.0.0.1:5432/billing_prod_check_${randomBytes(4).toString('hex')}`;
  const children: ChildProcess[] = [];
  let temporal: TemporalDevServer | null = null;
  try {
    exportTrackedFiles(dir);
    await npmCiProduction(dir);
    assertNoSimulator(dir);
    temporal = await startTemporalDevServer({ port: await freePort(), uiPort: 0, ui: false });
    await startStack(dir, databaseUrl, temporal, children);
    await assertSimulatorRefused(dir, databaseUrl);
    console.log('production install: no simulated gateway; the migration, the seed, the worker and the API start');
  } finally {
    for (const child of children.reverse()) await stopProcess(child);
    await temporal?.stop();
    await dropDatabase(databaseUrl).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

try {
  await main();
} catch (err) {
  console.error(`production install check failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
}
