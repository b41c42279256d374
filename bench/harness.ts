import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { isPortOpen } from '../scripts/tools.ts';

export interface Figures {
  name: string;
  requestsPerSec: number;
  p50: number;
  p99: number;
  non2xx: number;
  peakRssMiB?: number;
}

/**
 * Starts a server script as its own process (so its memory can be read) and waits for its port, or,
 * for a process that listens on none (the worker), a few seconds for it to bundle and poll.
 */
export async function startServer(script: string, env: NodeJS.ProcessEnv, port: number | null): Promise<ChildProcess> {
  const child = spawn(process.execPath, [script], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  if (port === null) await new Promise((r) => setTimeout(r, 4000));
  else
    for (let i = 0; i < 100 && !(await isPortOpen('127.0.0.1', port)); i++)
      await new Promise((r) => setTimeout(r, 100));
  if (child.exitCode !== null) throw new Error(`${script} exited with ${child.exitCode}`);
  return child;
}

export async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** Peak resident set size of a process, from the kernel's high-water mark. */
export function peakRssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round((kb / 1024) * 10) / 10;
}

/** CPU time (user + system, ms) a process has used so far; 0 once it is gone. */
export function cpuMs(pid: number): number {
  try {
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SEC;
  } catch {
    return 0;
  }
}
const CLOCK_TICKS_PER_SEC = 100;

/** CPU time of every PostgreSQL process on the machine (its backends come and go with the pools). */
export function postgresCpuMs(): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres') total += cpuMs(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return total;
}

export async function load(
  name: string,
  url: string,
  options: { connections: number; durationSec: number; headers?: Record<string, string> },
): Promise<Figures> {
  // Self-signed certificate of the local run.
  process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
  const result = await autocannon({
    url,
    connections: options.connections,
    duration: options.durationSec,
    headers: options.headers ?? {},
  });
  return {
    name,
    requestsPerSec: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx + result.errors,
  };
}

export function printTable(rows: Figures[]): void {
  console.table(
    rows.map((r) => ({
      target: r.name,
      'req/s': r.requestsPerSec,
      'p50 ms': r.p50,
      'p99 ms': r.p99,
      'non-2xx/errors': r.non2xx,
      'peak RSS MiB': r.peakRssMiB ?? '',
    })),
  );
}
