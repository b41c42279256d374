import { Client, Connection } from '@temporalio/client';
import { openOrm } from '../db/orm.ts';
import { batchTaskQueue, scheduleIdFor } from '../domain/task-queues.ts';
import { checkoutBuyer, pace, type Run } from './checkout-load.ts';
import { cpuSince, cpuSnapshot, ownCpuMs, percentile, type CpuReaders } from './harness.ts';
import {
  booksBalance,
  insertDueSubscriptions,
  renewalBooks,
  startSubscriptionWorkflows,
  waitForRenewals,
  type RenewalBooks,
} from './renewal-storm.ts';
import { benchDb } from './db.ts';
import { startStack, type Stack } from './stack.ts';
import { SWEEP_JOB } from '../contracts/sweep.ts';

/**
 * The renewal storm: N subscriptions due at the same instant (manual billing, a saved approving card
 * on the simulated gateway), their workflows started on the batch queue beforehand; measured from the
 * due instant until every one is charged and recorded, with one and with two worker processes, while
 * a small steady checkout load (the checkout benchmark's buyer, at a fixed rate) measures what the
 * storm does to a buyer's confirmation. Goals (issue 13): the cost per renewal at 10k within 1.2× of
 * 1k, every worker's peak RSS under 500 MB, the checkout's p99 during the storm within 2× of at rest.
 */
const SIZES = (process.env.BENCH_RENEWALS ?? '1000,10000').split(',').map(Number);
const WORKER_COUNTS = (process.env.BENCH_RENEWAL_WORKERS ?? '1,2').split(',').map(Number);
/** The batch queue's activity rate across workers: the default 50 would make 10k renewals take 400 s by design. */
const BATCH_RATE = process.env.BENCH_BATCH_ACTIVITIES_PER_SECOND ?? '100000';
/**
 * `http` (default): the simulated gateway as its own process, called over HTTP as a real gateway is;
 * `embedded`: inside the worker and API processes, as the sandbox runs it (see docs/performance.md).
 */
const GATEWAY = process.env.BENCH_RENEWAL_GATEWAY ?? 'http';
/**
 * RENEWAL_SPREAD_SECONDS of the storm's workers: the subscriptions due at the instant are tried over
 * this many seconds after it. Default N / 8: eight renewals a second, about 40 % of what this project's
 * 2-core machine sustains (0: all at the instant, a flood).
 */
const spreadSec = (n: number) => Number(process.env.BENCH_RENEWAL_SPREAD_SEC ?? Math.ceil(n / 8));
/**
 * `1`: the interactive queue in a worker process of its own besides the storm's workers, which then
 * poll only the batch queue (WORKER_TASK_QUEUES); by default every worker polls both.
 */
const INTERACTIVE_WORKER = process.env.BENCH_RENEWAL_INTERACTIVE_WORKER === '1';
const PROBE_PER_SEC = Number(process.env.BENCH_PROBE_CHECKOUTS_PER_SEC ?? 2);
const REST_MS = Number(process.env.BENCH_PROBE_REST_SEC ?? 60) * 1000;
/** How long before the due instant the subscriptions are written (their workflows start meanwhile). */
const leadMs = (n: number) => Number(process.env.BENCH_RENEWAL_LEAD_SEC ?? 20 + n / 25) * 1000;
/** A storm still going after this long is given up (and reported as such). */
const MAX_STORM_MS = Number(process.env.BENCH_RENEWAL_MAX_SEC ?? 1800) * 1000;
const TEMPORAL_PORT = 7257;
const API_PORT = 18446;
const GATEWAY_PORT = 18447;
const TASK_QUEUE = 'bench-renewals';

interface StormFigures {
  n: number;
  workers: number;
  /** From the due instant to the last renewal's record, and to the first. */
  totalMs: number;
  firstMs: number;
  /** CPU ms per renewal by process, the checkout probe's share (as measured at rest) taken off. */
  cpuPerRenewal: Record<string, number>;
  peakRssMiB: number[];
  rest: Run & { confirm: number[] };
  storm: Run & { confirm: number[] };
  books: RenewalBooks;
  balanced: boolean;
  /** The workflows had not all started and settled by the due instant (the lead was too short). */
  lateStart: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));
const log = (line: string) => process.stderr.write(`  ${line}\n`);

/** Each process's CPU use since the meter's last reading, as % of one core. */
function cpuMeter(readers: CpuReaders): () => string {
  let [last, at] = [cpuSnapshot(readers), Date.now()];
  return () => {
    const used = cpuSince(readers, last);
    const ms = Date.now() - at;
    [last, at] = [cpuSnapshot(readers), Date.now()];
    return Object.entries(used)
      .map(([k, cpu]) => `${k} ${Math.round((cpu / ms) * 100)}%`)
      .join(', ');
  };
}

/**
 * Waits until the just-started workflows are all waiting on their timers: the workers and Temporal
 * (almost) idle for 3 s in a row. The instant it settled, or null when the due instant came first.
 */
async function settle(readers: CpuReaders, dueAt: Date): Promise<number | null> {
  const busy = Object.fromEntries(Object.entries(readers).filter(([k]) => k === 'temporal' || k.startsWith('worker')));
  let quiet = 0;
  const meter = cpuMeter(busy);
  for (let second = 1; Date.now() < dueAt.getTime(); second++) {
    const before = cpuSnapshot(busy);
    await sleep(1000);
    if (second % 15 === 0) log(`settling: ${meter()}`);
    const used = Object.values(cpuSince(busy, before)).reduce((a, b) => a + b, 0);
    quiet = used < 150 ? quiet + 1 : 0;
    if (quiet >= 3) return Date.now();
  }
  return null;
}
async function storm(databaseUrl: string, n: number, workers: number): Promise<StormFigures> {
  const shape = INTERACTIVE_WORKER ? ' polling the batch queue, and one for the interactive queue' : '';
  log(`${n} renewals, ${workers} worker process(es)${shape}: starting the stack`);
  const stack: Stack = await startStack(databaseUrl, {
    temporalPort: TEMPORAL_PORT,
    apiPort: API_PORT,
    taskQueue: TASK_QUEUE,
    workers,
    interactiveWorker: INTERACTIVE_WORKER,
    env: { BATCH_ACTIVITIES_PER_SECOND: BATCH_RATE, RENEWAL_SPREAD_SECONDS: String(spreadSec(n)) },
    ...(GATEWAY === 'http' ? { gatewayPort: GATEWAY_PORT } : {}),
  });
  const connection = await Connection.connect({ address: stack.temporal.address });
  const client = new Client({ connection });
  const orm = await openOrm(databaseUrl, 4);
  const db = benchDb(orm);
  const buyer = await checkoutBuyer(stack, 16);
  try {
    // The hourly sweep would start workflows for the subscriptions of earlier runs: not part of this storm.
    await client.schedule.getHandle(scheduleIdFor(SWEEP_JOB, TASK_QUEUE)).pause('renewal benchmark');
    const cpu = { ...stack.cpu, 'bench (probe, polling)': ownCpuMs };

    // At rest: the checkout probe alone (after a warm-up), and what it costs each process per second.
    for (let i = 0; i < 3; i++) await buyer.checkout();
    buyer.halves.confirm.length = 0;
    let before = cpuSnapshot(cpu);
    const rest = await (async () => {
      const probe = pace(buyer.checkout, PROBE_PER_SEC);
      await sleep(REST_MS);
      return probe.stop();
    })();
    const probeCpuPerSec = Object.fromEntries(
      Object.entries(cpuSince(cpu, before)).map(([k, ms]) => [k, ms / rest.seconds]),
    );
    const restConfirm = buyer.halves.confirm.splice(0);

    const dueAt = new Date(Date.now() + leadMs(n));
    const subscriptions = await insertDueSubscriptions(orm, n, dueAt);
    const t0 = Date.now();
    await startSubscriptionWorkflows(client, batchTaskQueue(TASK_QUEUE), subscriptions);
    log(`${n} workflows started in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    const settledAt = await settle(cpu, dueAt);
    log(
      settledAt
        ? `settled ${((dueAt.getTime() - settledAt) / 1000).toFixed(1)} s before the due instant`
        : 'NOT settled by the due instant',
    );
    await sleep(dueAt.getTime() - Date.now());

    before = cpuSnapshot(cpu);
    const probe = pace(buyer.checkout, PROBE_PER_SEC);
    const meter = cpuMeter(cpu);
    let reported = Date.now();
    const renewed = await waitForRenewals(db, subscriptions, {
      everyMs: 250,
      stallMs: 120_000,
      maxMs: MAX_STORM_MS,
      progress: (done) => {
        if (Date.now() - reported < 10_000) return;
        reported = Date.now();
        log(`${done}/${n} renewed after ${((Date.now() - dueAt.getTime()) / 1000).toFixed(0)} s; ${meter()}`);
      },
    });
    const used = cpuSince(cpu, before);
    const stormRun = await probe.stop();
    const windowSec = (Date.now() - dueAt.getTime()) / 1000;
    if (renewed < n) log(`gave up: ${renewed}/${n} renewed (none more for 120 s, or past BENCH_RENEWAL_MAX_SEC)`);

    const books = await renewalBooks(db, subscriptions);
    const at = (d: Date | null) => (d ? d.getTime() - dueAt.getTime() : NaN);
    const cpuPerRenewal = Object.fromEntries(
      Object.entries(used).map(([k, ms]) => [k, Math.max(0, ms - (probeCpuPerSec[k] ?? 0) * windowSec) / n]),
    );
    return {
      n,
      workers,
      totalMs: at(books.lastRecordedAt),
      firstMs: at(books.firstRecordedAt),
      cpuPerRenewal,
      peakRssMiB: stack.workerPeakRssMiB(),
      rest: { ...rest, confirm: restConfirm },
      storm: { ...stormRun, confirm: buyer.halves.confirm.splice(0) },
      books,
      balanced: booksBalance(books, n),
      lateStart: settledAt === null,
    };
  } finally {
    await buyer.close();
    await orm.close();
    await connection.close();
    await stack.stop();
  }
}

const round = (x: number, digits = 1) => Number(x.toFixed(digits));
const stackCpu = (f: StormFigures) =>
  Object.entries(f.cpuPerRenewal)
    .filter(([k]) => !k.startsWith('bench'))
    .reduce((sum, [, ms]) => sum + ms, 0);

function print(results: StormFigures[]): void {
  console.log(
    `Renewal storm (gateway ${GATEWAY}, BATCH_ACTIVITIES_PER_SECOND=${BATCH_RATE}, checkout probe ${PROBE_PER_SEC}/s):`,
  );
  console.table(
    results.map((f) => ({
      renewals: f.n,
      workers: f.workers,
      'total s': round(f.totalMs / 1000),
      'first s': round(f.firstMs / 1000),
      'per s': round((f.n / f.totalMs) * 1000),
      'wall ms/renewal': round(f.totalMs / f.n, 2),
      'CPU ms/renewal (stack)': round(stackCpu(f)),
      'worker peak RSS MiB': f.peakRssMiB.join(' + '),
      'confirm p50 rest → storm ms': `${percentile(f.rest.confirm, 50)} → ${percentile(f.storm.confirm, 50)}`,
      'confirm p99 rest → storm ms': `${percentile(f.rest.confirm, 99)} → ${percentile(f.storm.confirm, 99)}`,
      'probe n rest / storm': `${f.rest.confirm.length} / ${f.storm.confirm.length}`,
      'probe failed': f.rest.failed + f.storm.failed,
    })),
  );
  console.log('  CPU ms per renewal, by process (the probe’s share, as measured at rest, taken off):');
  console.table(
    Object.fromEntries(
      results.map((f) => [
        `${f.n} × ${f.workers}w`,
        Object.fromEntries(Object.entries(f.cpuPerRenewal).map(([k, ms]) => [k, round(ms)])),
      ]),
    ),
  );
  console.log('  Exactly one charge per subscription (simulated gateway ledger: captures by reference):');
  for (const f of results) {
    const b = f.books;
    console.log(
      `    ${f.n} × ${f.workers}w: ${b.oneCaptureOfPrice}/${f.n} captured once for the price, ${b.notCaptured} not captured, ` +
        `${b.capturedMoreThanOnce} more than once; charges ${b.succeededCharges} succeeded (${b.otherCharges} other), ` +
        `sales ${b.sales}, events ${JSON.stringify(b.events)} → ${f.balanced ? 'OK' : 'MISMATCH'}` +
        (f.lateStart ? ' (the workflows had not settled by the due instant: raise BENCH_RENEWAL_LEAD_SEC)' : ''),
    );
  }
  console.log('Goals:');
  for (const w of WORKER_COUNTS) {
    const [small, large] = [1000, 10000].map((n) => results.find((f) => f.n === n && f.workers === w));
    if (!small || !large) continue;
    const wall = large.totalMs / large.n / (small.totalMs / small.n);
    const cpu = stackCpu(large) / stackCpu(small);
    console.log(
      `  ${w} worker(s): cost per renewal at 10k vs 1k: wall ${wall.toFixed(2)}×, CPU ${cpu.toFixed(2)}× ` +
        `(goal ≤ 1.2×) → ${wall <= 1.2 && cpu <= 1.2 ? 'met' : 'NOT met'}`,
    );
  }
  const peak = Math.max(...results.flatMap((f) => f.peakRssMiB));
  console.log(`  worker peak RSS ${peak} MiB (goal < 500 MB = 476.8 MiB) → ${peak < 476.8 ? 'met' : 'NOT met'}`);
  for (const f of results) {
    const [rest, during] = [percentile(f.rest.confirm, 99), percentile(f.storm.confirm, 99)];
    console.log(
      `  ${f.n} × ${f.workers}w: checkout confirm p99 during the storm ${during} ms vs ${rest} ms at rest ` +
        `(${(during / rest).toFixed(2)}×, goal ≤ 2×) → ${during <= 2 * rest ? 'met' : 'NOT met'}`,
    );
  }
}

export async function benchRenewals(databaseUrl: string): Promise<void> {
  const results: StormFigures[] = [];
  for (const workers of WORKER_COUNTS) for (const n of SIZES) results.push(await storm(databaseUrl, n, workers));
  print(results);
}
