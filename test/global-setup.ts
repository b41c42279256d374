import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { migrateSimulator } from '@billing/simulated-gateway';
import { dropDatabase, migrate } from '../db/orm.ts';
import { ensureDevCertificate } from '../scripts/certs.ts';
import { ensureChromium } from '../scripts/chromium.ts';
import { freePort, stopProcess } from '../scripts/processes.ts';

export { stopProcess };
import { ensureTemporalDevServer } from '../scripts/temporal-dev-server.ts';
import { REPO_ROOT } from '../scripts/tool-paths.ts';

export { freePort };

declare global {
  var __billingTestTeardown: (() => Promise<void>) | undefined;
}

/**
 * Runs once before every test file: databases of this run's own (one for the time-skipping tests,
 * test/helpers/env.ts), a TLS certificate, a Temporal dev
 * server on a free port of this run's own and one real worker process. Two runs on one machine never
 * share a database or a server. The settings reach the test files (and the processes they spawn)
 * through process.env, which test/helpers/env.ts reads.
 */
export default async function globalSetup(): Promise<void> {
  const run = randomBytes(4).toString('hex');
  process.env.TEST_DATABASE_URL ??= `postgres://postgres@127.0.0.1:5432/billing_test_${run}`;
  process.env.TEST_TIME_SKIPPING_DATABASE_URL ??= `postgres://postgres@127.0.0.1:5432/billing_test_${run}_ts`;
  process.env.TEST_TEMPORAL_PORT ??= String(await freePort());
  // Imported only now: env.ts reads the variables when it is evaluated.
  const { TEST_DATABASE_URL, TEST_TIME_SKIPPING_DATABASE_URL, TEST_TEMPORAL_PORT, TEST_MAIL_OUTBOX_DIR } =
    await import('./helpers/env.ts');
  const databases = [TEST_DATABASE_URL, TEST_TIME_SKIPPING_DATABASE_URL];
  for (const url of databases) {
    await dropDatabase(url);
    await migrate(url);
    await migrateSimulator(url);
  }
  await ensureDevCertificate(path.join(REPO_ROOT, '.certs'));
  // The browser tests' Chromium (Debian's package), installed once here rather than in a test's time.
  ensureChromium();
  const temporal = await ensureTemporalDevServer({ port: TEST_TEMPORAL_PORT, uiPort: 0, ui: false });
  const worker = await startWorkerProcess();
  globalThis.__billingTestTeardown = async () => {
    await stopProcess(worker);
    await temporal.stop();
    if (!process.env.KEEP_TEST_DATABASE) {
      for (const url of databases) await dropDatabase(url).catch(() => undefined);
    }
    await rm(TEST_MAIL_OUTBOX_DIR, { recursive: true, force: true });
  };
}

/** The worker runs as its own process, as in production: tests may stop and restart it. */
export async function startWorkerProcess(envOverrides: Record<string, string> = {}): Promise<ChildProcess> {
  const { testEnv } = await import('./helpers/env.ts');
  const child = spawn(process.execPath, [path.join(REPO_ROOT, 'worker/main.ts')], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...testEnv({ LOG_LEVEL: 'warn', ...envOverrides }) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      if (!seen.includes('worker ready:')) return;
      child.stdout!.off('data', onData);
      child.stdout!.pipe(process.stdout);
      child.off('exit', onExit);
      resolve();
    };
    const onExit = (code: number | null) => reject(new Error(`worker exited at start with code ${code}: ${seen}`));
    child.stdout!.on('data', onData);
    child.once('exit', onExit);
  });
  return child;
}
