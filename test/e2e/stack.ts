import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { Agent, request } from 'undici';
import { freePort } from '../../scripts/processes.ts';
import { REPO_ROOT } from '../../scripts/tool-paths.ts';
import { waitFor as pollUntil } from '../helpers/processes.ts';

export { freePort };

/**
 * The stack's processes as `npm start` runs them (API, worker, standalone gateway), each a real
 * process of its own, for end-to-end tests that take their dependencies away. Output is kept (the
 * last lines) and shown when a process dies or never becomes ready.
 */
export interface StackProcess {
  readonly name: string;
  readonly child: ChildProcess;
  readonly pid: number;
  alive(): boolean;
  /** Throws, with the process's last output, unless it is still running. */
  assertAlive(): void;
  output(): string;
  stop(): Promise<void>;
}

const KEEP_LINES = 200;

export function spawnProcess(name: string, file: string, env: NodeJS.ProcessEnv): StackProcess {
  const child = spawn(process.execPath, [path.join(REPO_ROOT, file)], {
    cwd: REPO_ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const keep = (chunk: Buffer) => {
    lines.push(...chunk.toString().split('\n').filter(Boolean));
    if (lines.length > KEEP_LINES) lines.splice(0, lines.length - KEEP_LINES);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const output = () => lines.join('\n');
  const alive = () => child.exitCode === null && child.signalCode === null;
  return {
    name,
    child,
    pid: child.pid!,
    alive,
    output,
    assertAlive() {
      if (!alive()) {
        throw new Error(
          `${name} (pid ${child.pid}) died: exit ${child.exitCode ?? child.signalCode}\n--- last output ---\n${output()}`,
        );
      }
    },
    async stop() {
      if (!alive()) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Waits until `ready()` holds, failing early (with its output) if the process exits meanwhile. */
export async function waitUntilReady(proc: StackProcess, ready: () => Promise<boolean>, timeoutMs = 60_000) {
  await waitFor(
    async () => {
      proc.assertAlive();
      return ready();
    },
    timeoutMs,
    `${proc.name} to become ready`,
  ).catch((err: Error) => {
    throw new Error(`${err.message}\n--- ${proc.name} output ---\n${proc.output()}`);
  });
}

/** Polls a condition (a state, never a fixed delay) until it holds or the time is up. */
export async function waitFor(condition: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  let last: unknown = null;
  // The one polling helper (test/helpers/processes.ts); a process that died fails at once, other errors are retried.
  await pollUntil(
    async () => {
      try {
        return await condition();
      } catch (err) {
        if (err instanceof Error && err.message.includes('died: exit')) throw err;
        last = err;
        return false;
      }
    },
    { what, timeoutMs, intervalMs: 100, describe: () => (last ? `error: ${(last as Error).message}` : 'false') },
  );
}

export function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    const done = (open: boolean) => {
      socket.destroy();
      resolve(open);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** Plain HTTP(S) calls with a time limit, so that a hung server fails the test instead of stalling it. */
const insecure = new Agent({ connect: { rejectUnauthorized: false } });

export interface TimedResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
  ms: number;
}

export async function timedCall(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: unknown; timeoutMs?: number } = {},
): Promise<TimedResponse> {
  const started = Date.now();
  const headers = { ...(options.headers ?? {}) };
  let body: string | undefined;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] = 'application/json';
  }
  const res = await request(url, {
    method: (options.method ?? 'GET') as 'GET',
    headers,
    body,
    dispatcher: insecure,
    signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
  });
  const text = await res.body.text();
  const json = String(res.headers['content-type'] ?? '').includes('json') && text ? JSON.parse(text) : text;
  return { status: res.statusCode, headers: res.headers, body: json, ms: Date.now() - started };
}

export async function closeHttpClient(): Promise<void> {
  await insecure.close();
}
