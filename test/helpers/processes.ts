import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from '../../scripts/tool-paths.ts';
import { freePort, startWorkerProcess, stopProcess } from '../global-setup.ts';
import { call, type ApiResponse, type CallOptions } from './api.ts';
import { testEnv } from './env.ts';

/**
 * The stack's processes as a crash test drives them: started for real, killed without warning
 * (SIGKILL: no drain, no shutdown hook, open database transactions left to PostgreSQL), started again.
 */
export { freePort, startWorkerProcess, stopProcess };

/** Kills the process at once (kill -9) and resolves when the kernel has reaped it. */
export async function killNow(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

export interface ApiProcess {
  child: ChildProcess;
  port: number;
  baseUrl: string;
  call<T = any>(method: string, url: string, options?: CallOptions): Promise<ApiResponse<T>>;
}

/**
 * The API as its own process (api/server.ts), with the test run's settings, over HTTPS on `port`
 * (a free one when not given; the same one again after a crash, so clients keep their address).
 * Resolves once it answers /healthz.
 */
export async function startApiProcess(envOverrides: Record<string, string> = {}, port?: number): Promise<ApiProcess> {
  const listenOn = port ?? (await freePort());
  const child = spawn(process.execPath, [path.join(REPO_ROOT, 'api/server.ts')], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...testEnv({ LOG_LEVEL: 'warn', ...envOverrides, PORT: String(listenOn) }) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const baseUrl = `https://127.0.0.1:${listenOn}`;
  let exited: string | null = null;
  child.once('exit', (code, signal) => (exited = `API process exited at start (code ${code}, signal ${signal})`));
  await waitFor(
    async () => {
      if (exited) throw new Error(exited);
      return call(baseUrl, 'GET', '/healthz').then(
        (res) => res.status === 200,
        () => false,
      );
    },
    { what: `the API on port ${listenOn} to answer /healthz`, timeoutMs: 30_000 },
  );
  return { child, port: listenOn, baseUrl, call: (method, url, options) => call(baseUrl, method, url, options) };
}

/**
 * Polls `probe` until it returns something truthy, and returns that. Past `timeoutMs` it fails,
 * naming what it waited for and the last value seen (when `describe` is given).
 */
export async function waitFor<T>(
  probe: () => Promise<T | null | undefined | false>,
  options: { what: string; timeoutMs: number; intervalMs?: number; describe?: () => string },
): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) {
      const last = options.describe ? `; last seen: ${options.describe()}` : '';
      throw new Error(`Timed out after ${options.timeoutMs} ms waiting for ${options.what}${last}`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 50));
  }
}

/** waitFor for a yes/no condition: polls it until it holds, failing after `timeoutMs`. */
export async function until(
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 20_000,
  what = 'a condition to hold',
): Promise<void> {
  await waitFor(async () => (await condition()) || null, { what, timeoutMs });
}
