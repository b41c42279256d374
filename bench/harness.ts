import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { isPortOpen } from '../scripts/processes.ts';

export interface Figures {
  name: string;
  requestsPerSec: number;
  p50: number;
  p99: number;
  non2xx: number;
  peakRssMiB?: number;
}

/**
 * Starts a server script as its own process (so its memory and CPU can be read) and waits for its
 * port, or, for a process that listens on none (the worker), for its `worker ready` line.
 */
export async function startServer(
  script: string,
  env: NodeJS.ProcessEnv,
  port: number | null,
  nodeArgs: string[] = [],
): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...nodeArgs, script], {
    env,
    stdio: ['ignore', port === null ? 'pipe' : 'ignore', 'inherit'],
  });
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`))),
  );
  exited.catch(() => undefined);
  if (port === null) await Promise.race([readyLine(child, 'worker ready', 120_000), exited]);
  else
    for (let i = 0; i < 100 && !(await isPortOpen('127.0.0.1', port)); i++)
      await new Promise((r) => setTimeout(r, 100));
  if (child.exitCode !== null) throw new Error(`${script} exited with ${child.exitCode}`);
  return child;
}

/** Resolves once the child prints a line with `text`; its output is drained (and dropped) from then on. */
function readyLine(child: ChildProcess, text: string, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = '';
    let ready = false;
    const timer = setTimeout(() => reject(new Error(`no "${text}" line within ${timeoutMs} ms`)), timeoutMs);
    child.stdout!.on('data', (chunk: Buffer) => {
      if (ready) return;
      seen += chunk.toString();
      if (!seen.includes(text)) return;
      ready = true;
      clearTimeout(timer);
      resolve();
    });
  });
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

/**
 * CPU time (ms) of a process's threads so far, summed by thread name (the main thread, the workflow
 * threads, libuv's pool, V8's helpers, the Rust core's runtime), to see which part of a process works.
 */
export function threadCpuMs(pid: number): Record<string, number> {
  const byName: Record<string, number> = {};
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      byName[name] = (byName[name] ?? 0) + ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SEC;
    }
  } catch {
    // Gone meanwhile.
  }
  return byName;
}

/**
 * A reader of the CPU time of the PostgreSQL backends serving `database` (their process title names
 * it), or of every PostgreSQL process on the machine. Backends come and go with the pools: one that
 * has exited counts with what it had used when last read.
 */
export function postgresCpuReader(database?: string): () => number {
  const lastSeen = new Map<number, number>();
  return () => {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== 'postgres') continue;
        if (database && !readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(` ${database} `)) continue;
        const used = cpuMs(Number(entry));
        // A pid reused by a new backend starts again from zero: the old one's time is kept under a key of its own.
        const known = lastSeen.get(Number(entry)) ?? 0;
        if (used < known) lastSeen.set(-lastSeen.size - 1, known);
        lastSeen.set(Number(entry), used);
      } catch {
        // Gone meanwhile.
      }
    }
    let total = 0;
    for (const ms of lastSeen.values()) total += ms;
    return total;
  };
}

/** CPU time of this process (the load generator), ms. */
export function ownCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** Named CPU-time readers (ms so far); `since` gives what each used after a snapshot. */
export type CpuReaders = Record<string, () => number>;
export const cpuSnapshot = (readers: CpuReaders): Record<string, number> =>
  Object.fromEntries(Object.entries(readers).map(([name, read]) => [name, read()]));
export const cpuSince = (readers: CpuReaders, before: Record<string, number>): Record<string, number> =>
  Object.fromEntries(Object.entries(readers).map(([name, read]) => [name, read() - (before[name] ?? 0)]));

/** The value at percentile `p` (nearest rank), rounded to whole ms. */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0);
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
