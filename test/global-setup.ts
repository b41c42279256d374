import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { dropDatabase, migrate } from '../db/orm.ts';
import { ensureDevCertificate } from '../scripts/certs.ts';
import { ensureTemporalDevServer, REPO_ROOT } from '../scripts/tools.ts';
import { TEST_DATABASE_URL, TEST_TEMPORAL_PORT, testEnv } from './helpers/env.ts';

declare global {
  var __billingTestTeardown: (() => Promise<void>) | undefined;
}

/**
 * Runs once before every test file: a fresh database, a TLS certificate, a Temporal dev server
 * (started from the tools folder when none listens on the test port) and one real worker process.
 */
export default async function globalSetup(): Promise<void> {
  await dropDatabase(TEST_DATABASE_URL);
  await migrate(TEST_DATABASE_URL);
  await ensureDevCertificate(path.join(REPO_ROOT, '.certs'));
  const temporal = await ensureTemporalDevServer({
    port: TEST_TEMPORAL_PORT,
    uiPort: TEST_TEMPORAL_PORT + 1000,
    ui: false,
  });
  const worker = await startWorkerProcess();
  globalThis.__billingTestTeardown = async () => {
    await stopProcess(worker);
    await temporal.stop();
  };
}

/** The worker runs as its own process, as in production: tests may stop and restart it. */
export async function startWorkerProcess(envOverrides: Record<string, string> = {}): Promise<ChildProcess> {
  const child = spawn(process.execPath, [path.join(REPO_ROOT, 'worker/main.ts')], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...testEnv({ LOG_LEVEL: 'warn', ...envOverrides }) },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  await new Promise((resolve) => setTimeout(resolve, 500));
  if (child.exitCode !== null) throw new Error(`worker exited at start with code ${child.exitCode}`);
  return child;
}

export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}
