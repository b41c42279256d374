/** Child processes the scripts and tests run, and the local ports they listen on. */
import { execFile } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import net from 'node:net';

export interface RunResult {
  code: number | null;
  output: string;
}

export function run(
  cmd: string,
  args: string[],
  opts: { timeoutMs?: number; env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(
      cmd,
      args,
      { timeout: opts.timeoutMs ?? 0, maxBuffer: 32 * 1024 * 1024, env: opts.env ?? process.env, cwd: opts.cwd },
      (err, stdout, stderr) => {
        const output = `${stdout}${stderr}`;
        if (!err) return resolve({ code: 0, output });
        // Non-zero exit: numeric code. Spawn failure (ENOENT…) or timeout: code is a string / null.
        const code: unknown = (err as { code?: unknown }).code;
        resolve({ code: typeof code === 'number' ? code : null, output: output || err.message });
      },
    );
  });
}

export function waitForExit(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** A port nothing listens on now: the kernel's pick for an ephemeral bind. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export function isPortOpen(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (open: boolean) => {
      socket.removeAllListeners();
      socket.destroy();
      resolve(open);
    };
    socket.setTimeout(1000);
    socket.once('connect', () => done(true));
    socket.once('timeout', () => done(false));
    socket.once('error', () => done(false));
  });
}

/** Stops a child: SIGTERM, then SIGKILL if it has not exited 10 s later; resolves once it has exited. */
export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}
