import { Client, Connection } from '@temporalio/client';
import proto, { type temporal } from '@temporalio/proto';
import { Agent, request } from 'undici';
import { openOrm } from '../db/orm.ts';
import { benchDb, sql, type BenchDb } from './db.ts';
import { SWEEP_JOB } from '../contracts/sweep.ts';
import { batchTaskQueue, scheduleIdFor } from '../domain/task-queues.ts';
import { apiPoster } from './checkout-load.ts';
import { cpuSince, cpuSnapshot } from './harness.ts';
import { startPgCounter, type StatementCounts } from './pg-counter.ts';
import { insertDueSubscriptions, startSubscriptionWorkflows, waitForRenewals } from './renewal-storm.ts';
import { startStack, type Stack } from './stack.ts';

/**
 * `npm run bench -- costs`: what one operation costs the deployment, in counts rather than time.
 * BENCH_COSTS_N (default 20) of each, one after the other on a stack of its own (one worker, the
 * simulated gateway as its own process over HTTP, as the renewal storm runs it):
 *
 *  - card checkout, one-time price; card checkout of a monthly price, gateway-billed and manual;
 *  - manual renewal (this engine charges the saved card at the period's end: the only kind with
 *    Mercado Pago), on subscriptions written as the renewal storm writes them;
 *  - gateway-billed renewal: the gateway bills the cycle (its sandbox route), its notice reaches the
 *    API, which tells the workflow, which reconciles and records the period.
 *
 * For each: Temporal's billable actions, workflow tasks and activity tasks from the histories of
 * every execution with events in the phase's window; statements and transactions seen on the wire
 * (bench/pg-counter.ts), the engine's and the gateway's apart; rows written per table
 * (pg_stat_user_tables); WAL bytes of this database (pg_walinspect, when it can be created). Each
 * phase ends when the stack has been idle for 3 s; the statistics are read 11 s later (a backend
 * flushes its table counters at most once a second, idle ones within 10 s). An idle phase first
 * measures what the stack does on its own (the API's credential-usage flush, polls), taken off the
 * others in proportion to their length.
 */
const N = Number(process.env.BENCH_COSTS_N ?? 20);
const TEMPORAL_PORT = 7259;
const API_PORT = 18448;
const GATEWAY_PORT = 18449;
const TASK_QUEUE = 'bench-costs';
const GATEWAY_KEY = 'bench_gateway_key';
const IDLE_MS = 30_000;
const STATS_FLUSH_MS = 11_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));
const log = (line: string) => process.stderr.write(`  ${line}\n`);

interface Snapshot {
  at: number;
  statements: { engine: StatementCounts; gateway: StatementCounts };
  /** Per table (schema.table): rows inserted, updated, deleted. */
  rows: Record<string, { ins: number; upd: number; del: number }>;
  commits: number;
  walLsn: string | null;
}

interface Phase {
  name: string;
  n: number;
  from: Snapshot;
  to: Snapshot;
  cpuMs: Record<string, number>;
}

async function snapshot(db: BenchDb, counter: { read: () => Snapshot['statements'] }): Promise<Snapshot> {
  const at = Date.now();
  const statements = counter.read();
  const tables = await db.query(
    sql<{
      name: string;
      ins: number;
      upd: number;
      del: number;
    }>`select schemaname || '.' || relname as name, n_tup_ins::int as ins, n_tup_upd::int as upd, n_tup_del::int as del
     from pg_stat_user_tables`,
  );
  const [database] = await db.query(
    sql<{ commits: string }>`select xact_commit::bigint::text as commits from pg_stat_database
      where datname = current_database()`,
  );
  const [wal] = await db.query(sql<{ lsn: string }>`select pg_current_wal_lsn()::text as lsn`);
  return {
    at,
    statements,
    rows: Object.fromEntries(tables.map((t) => [t.name, { ins: t.ins, upd: t.upd, del: t.del }])),
    commits: Number(database!.commits),
    walLsn: wal?.lsn ?? null,
  };
}

/** Waits until the stack's processes have used under 100 ms of CPU in each of 3 seconds in a row. */
async function quiet(stack: Stack): Promise<void> {
  let still = 0;
  while (still < 3) {
    const before = cpuSnapshot(stack.cpu);
    await sleep(1000);
    const used = Object.entries(cpuSince(stack.cpu, before))
      .filter(([k]) => k !== 'postgres')
      .reduce((sum, [, ms]) => sum + ms, 0);
    still = used < 100 ? still + 1 : 0;
  }
}

/** The history events of every execution, as [time ms, event] with the execution's type. */
async function histories(client: Client) {
  const all: { type: string; events: temporal.api.history.v1.IHistoryEvent[] }[] = [];
  for await (const wf of client.workflow.list()) {
    const history = await client.workflow.getHandle(wf.workflowId, wf.runId).fetchHistory();
    all.push({ type: wf.type, events: history.events ?? [] });
  }
  return all;
}

const EventType = proto.temporal.api.enums.v1.EventType;
const tsToMs = (ts: temporal.api.history.v1.IHistoryEvent['eventTime']) =>
  ts ? Number(ts.seconds ?? 0) * 1000 + (ts.nanos ?? 0) / 1e6 : 0;
const typeName = (e: temporal.api.history.v1.IHistoryEvent) =>
  (EventType[e.eventType ?? 0] ?? 'UNKNOWN').replace(/^EVENT_TYPE_/, '');

interface TemporalCounts {
  actions: Record<string, number>;
  workflowTasks: number;
  activityTasks: number;
  localActivities: number;
  /** History events, all kinds. */
  events: number;
  executions: Record<string, number>;
  activities: Record<string, number>;
}

/**
 * What the events of `[from, to)` cost, by the rules of Temporal Cloud's Actions page
 * (docs.temporal.io/evaluate/cloud/actions): a workflow started (client start, continue-as-new, child),
 * a child's start (one more, for its intent), an activity started or retried (its attempts), the local
 * activities of one workflow task (one), a timer started, a signal, an Update accepted, a search
 * attributes upsert. Not in a history, so not counted: heartbeats, queries, rejected Updates and
 * schedule runs (3 each; the hourly sweep's 24 a day do not grow with the book).
 */
function temporalCounts(all: Awaited<ReturnType<typeof histories>>, from: number, to: number): TemporalCounts {
  const c: TemporalCounts = {
    actions: {},
    workflowTasks: 0,
    activityTasks: 0,
    localActivities: 0,
    events: 0,
    executions: {},
    activities: {},
  };
  const action = (kind: string, n = 1) => (c.actions[kind] = (c.actions[kind] ?? 0) + n);
  for (const { type, events } of all) {
    let touched = false;
    let localInTask = false;
    const scheduled = new Map<string, string>();
    for (const e of events) {
      const name = typeName(e);
      if (name === 'ACTIVITY_TASK_SCHEDULED')
        scheduled.set(String(e.eventId), e.activityTaskScheduledEventAttributes?.activityType?.name ?? '?');
      const at = tsToMs(e.eventTime);
      if (at < from || at >= to) continue;
      touched = true;
      c.events++;
      switch (name) {
        case 'WORKFLOW_EXECUTION_STARTED':
          action('workflow started');
          break;
        case 'START_CHILD_WORKFLOW_EXECUTION_INITIATED':
          action('child workflow intent');
          break;
        case 'ACTIVITY_TASK_STARTED': {
          const attempts = e.activityTaskStartedEventAttributes?.attempt ?? 1;
          action('activity started or retried', attempts);
          c.activityTasks += attempts;
          const activity = scheduled.get(String(e.activityTaskStartedEventAttributes?.scheduledEventId)) ?? '?';
          c.activities[activity] = (c.activities[activity] ?? 0) + attempts;
          break;
        }
        case 'TIMER_STARTED':
          action('timer started');
          break;
        case 'WORKFLOW_EXECUTION_SIGNALED':
          action('signal');
          break;
        case 'WORKFLOW_EXECUTION_UPDATE_ACCEPTED':
          action('update accepted');
          break;
        case 'UPSERT_WORKFLOW_SEARCH_ATTRIBUTES':
          action('search attributes upsert');
          break;
        case 'MARKER_RECORDED':
          if (e.markerRecordedEventAttributes?.markerName === 'core_local_activity') {
            c.localActivities++;
            if (!localInTask) action('local activities of a workflow task');
            localInTask = true;
          }
          break;
        case 'WORKFLOW_TASK_COMPLETED':
          c.workflowTasks++;
          localInTask = false;
          break;
        case 'WORKFLOW_TASK_FAILED':
        case 'WORKFLOW_TASK_TIMED_OUT':
          c.workflowTasks++;
          action(`(workflow task ${name === 'WORKFLOW_TASK_FAILED' ? 'failed' : 'timed out'})`, 0);
          break;
      }
    }
    if (touched) c.executions[type] = (c.executions[type] ?? 0) + 1;
  }
  return c;
}

/** WAL bytes of this database's blocks between two positions (pg_walinspect), or null without it. */
async function walBytes(db: BenchDb, from: string | null, to: string | null): Promise<number | null> {
  if (!from || !to) return null;
  try {
    const [row] = await db.query(
      sql<{ bytes: string }>`select coalesce(sum(record_length), 0)::bigint::text as bytes
       from pg_get_wal_records_info(${from}::pg_lsn, ${to}::pg_lsn)
       where block_ref like '%/' || (select oid from pg_database where datname = current_database()) || '/%'`,
    );
    return Number(row!.bytes);
  } catch (err) {
    log(`WAL not measured: ${(err as Error).message}`);
    return null;
  }
}

export async function benchCosts(databaseUrl: string): Promise<void> {
  const target = new URL(databaseUrl);
  const counter = await startPgCounter({ host: target.hostname, port: Number(target.port || 5432) });
  const proxied = new URL(databaseUrl);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(counter.port);
  const stack = await startStack(databaseUrl, {
    temporalPort: TEMPORAL_PORT,
    apiPort: API_PORT,
    taskQueue: TASK_QUEUE,
    gatewayPort: GATEWAY_PORT,
    env: {
      DATABASE_URL: proxied.toString(),
      BATCH_ACTIVITIES_PER_SECOND: '100000',
      RENEWAL_SPREAD_SECONDS: '0',
    },
  });
  const connection = await Connection.connect({ address: stack.temporal.address });
  const client = new Client({ connection });
  const orm = await openOrm(databaseUrl, 2);
  const db = benchDb(orm);
  await db.query(sql`create extension if not exists pg_walinspect`).catch(() => undefined);
  const dispatcher = new Agent({ connect: { rejectUnauthorized: false }, connections: 4 });
  const phases: Phase[] = [];
  try {
    await client.schedule.getHandle(scheduleIdFor(SWEEP_JOB, TASK_QUEUE)).pause('cost benchmark');
    const post = apiPoster(stack, dispatcher);
    const { organizationId, oat } = stack.demo;
    const product = async (recurring: boolean) => {
      const price = recurring
        ? { currency: 'brl', unit_amount: 9_900, type: 'recurring', interval: 'month' }
        : { currency: 'brl', unit_amount: 19_900 };
      const res = await post(
        `/api/v1/products/`,
        { organization_id: organizationId, name: recurring ? 'Cost club' : 'Cost course', prices: [price] },
        oat,
      );
      if (res.status !== 201) throw new Error(`product: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.id as string;
    };
    const [oneTime, monthly] = [await product(false), await product(true)];
    let buyers = 0;
    const checkout = async (productId: string, extra: Record<string, unknown> = {}) => {
      const created = await post(
        `/api/v1/checkouts/`,
        { product_id: productId, customer_email: `cost-${Date.now()}-${buyers++}@example.com`, ...extra },
        oat,
      );
      if (created.status !== 201) throw new Error(`checkout: ${created.status} ${JSON.stringify(created.body)}`);
      const confirmed = await post(`/api/v1/checkouts/client/${created.body.client_secret}/confirm-sdk`, {
        payment_method: 'credit_card',
        card: {
          number: '4111111111111111',
          holder_name: 'COST',
          expiration_month: '12',
          expiration_year: '2031',
          cvv: '123',
          installments: 1,
        },
      });
      if (confirmed.status !== 200 || confirmed.body.status !== 'succeeded')
        throw new Error(`confirm: ${confirmed.status} ${JSON.stringify(confirmed.body)}`);
    };
    // Warm the paths (bundles, JIT, pools, first-use caches) outside the measured phases.
    await checkout(oneTime);
    await checkout(monthly);
    await checkout(monthly, { recurrence_billing: 'manual' });
    await quiet(stack);

    const measure = async (name: string, n: number, run: () => Promise<void>) => {
      log(`${name}: ${n}`);
      await sleep(STATS_FLUSH_MS);
      const from = await snapshot(db, counter);
      const cpuBefore = cpuSnapshot(stack.cpu);
      await run();
      await quiet(stack);
      const cpuMs = cpuSince(stack.cpu, cpuBefore);
      await sleep(STATS_FLUSH_MS);
      const to = await snapshot(db, counter);
      phases.push({ name, n, from, to, cpuMs });
    };

    await measure('idle (per 30 s)', 1, async () => {
      await sleep(IDLE_MS);
    });
    await measure('checkout, card, one-time price', N, async () => {
      for (let i = 0; i < N; i++) await checkout(oneTime);
    });
    const gatewayFrom = new Date();
    await measure('checkout, card, monthly, gateway-billed', N, async () => {
      for (let i = 0; i < N; i++) await checkout(monthly);
    });
    await measure('checkout, card, monthly, manual', N, async () => {
      for (let i = 0; i < N; i++) await checkout(monthly, { recurrence_billing: 'manual' });
    });

    // Manual renewals: written as the storm writes them, their workflows started and asleep before the window.
    const dueAt = new Date(Date.now() + 20_000 + N * 200);
    const storm = await insertDueSubscriptions(orm, N, dueAt);
    await startSubscriptionWorkflows(client, batchTaskQueue(TASK_QUEUE), storm, 4);
    await quiet(stack);
    await measure('renewal, manual (the engine charges the card)', N, async () => {
      await sleep(dueAt.getTime() - Date.now());
      const renewed = await waitForRenewals(db, storm, { everyMs: 500, stallMs: 60_000, maxMs: 300_000 });
      if (renewed < N) throw new Error(`manual renewals: ${renewed}/${N}`);
    });

    const subscriptions = await db.query(
      sql<{ id: string; gateway_subscription_id: string | null }>`select id, gateway_subscription_id from subscriptions
       where organization_id = ${organizationId} and recurrence_billing = 'gateway' and created_at >= ${gatewayFrom}`,
    );
    if (subscriptions.length !== N || subscriptions.some((s) => !s.gateway_subscription_id))
      throw new Error(
        `gateway-billed subscriptions: ${subscriptions.length} (wanted ${N}, each with its gateway's id)`,
      );
    await measure('renewal, gateway-billed (its notice, then reconciled)', N, async () => {
      for (const s of subscriptions) {
        const res = await request(
          `http://127.0.0.1:${GATEWAY_PORT}/v1/_sandbox/subscriptions/${s.gateway_subscription_id}/bill`,
          { method: 'POST', headers: { authorization: `Bearer ${GATEWAY_KEY}` } },
        );
        await res.body.dump();
        if (res.statusCode !== 200) throw new Error(`gateway bill: ${res.statusCode}`);
      }
      const ids = subscriptions.map((s) => s.id);
      for (const started = Date.now(); Date.now() - started < 300_000; await sleep(500)) {
        const [row] = await db.query(
          sql<{ n: number }>`select count(*)::int as n from subscriptions
            where id = any(${ids}::uuid[]) and period_number >= 2`,
        );
        if (row!.n >= N) return;
      }
      throw new Error('gateway-billed renewals: not all recorded within 300 s');
    });

    const all = await histories(client);
    await print(db, phases, all);
  } finally {
    await dispatcher.close();
    await orm.close();
    await connection.close();
    await stack.stop();
    await counter.close();
  }
}

const per = (x: number, n: number) => Math.round((x / n) * 10) / 10;

async function print(db: BenchDb, phases: Phase[], all: Awaited<ReturnType<typeof histories>>): Promise<void> {
  const idle = phases[0]!;
  const idleSec = (idle.to.at - idle.from.at) / 1000;
  /** What the stack does on its own over `sec` seconds (from the idle phase), to take off a phase. */
  const background = (sec: number, x: (p: Phase) => number) => (x(idle) * sec) / idleSec;
  const rows: Record<string, Record<string, number | string>> = {};
  const tables: Record<string, Record<string, string>> = {};
  const details: string[] = [];
  for (const p of phases) {
    const sec = (p.to.at - p.from.at) / 1000;
    const isIdle = p === idle;
    const less = (x: (q: Phase) => number) => (isIdle ? x(p) : x(p) - background(sec, x));
    const t = temporalCounts(all, p.from.at, p.to.at);
    const actions = Object.values(t.actions).reduce((a, b) => a + b, 0);
    const stmt = (q: Phase) => q.to.statements.engine.statements - q.from.statements.engine.statements;
    const txn = (q: Phase) => q.to.statements.engine.transactions - q.from.statements.engine.transactions;
    const gwStmt = (q: Phase) => q.to.statements.gateway.statements - q.from.statements.gateway.statements;
    const written = (q: Phase, schema: (name: string) => boolean) =>
      Object.entries(q.to.rows)
        .filter(([name]) => schema(name))
        .reduce((sum, [name, r]) => {
          const b = q.from.rows[name] ?? { ins: 0, upd: 0, del: 0 };
          return sum + (r.ins - b.ins) + (r.upd - b.upd) + (r.del - b.del);
        }, 0);
    const ours = (name: string) => !name.startsWith('gateway_sim.');
    const wal = await walBytes(db, p.from.walLsn, p.to.walLsn);
    const stackCpu = Object.entries(p.cpuMs)
      .filter(([k]) => k !== 'postgres')
      .reduce((a, [, ms]) => a + ms, 0);
    rows[p.name] = {
      n: p.n,
      'Temporal actions': per(actions, p.n),
      'workflow tasks': per(t.workflowTasks, p.n),
      'activity tasks': per(t.activityTasks, p.n),
      'local activities': per(t.localActivities, p.n),
      'SQL statements': per(less(stmt), p.n),
      'SQL transactions': per(less(txn), p.n),
      'rows written': per(
        less((q) => written(q, ours)),
        p.n,
      ),
      'gateway SQL statements': per(less(gwStmt), p.n),
      'gateway rows written': per(
        less((q) => written(q, (name) => !ours(name))),
        p.n,
      ),
      'WAL KiB (db)': wal === null ? '' : per(wal / 1024, p.n),
      'CPU ms (stack, under load)': per(stackCpu, p.n),
    };
    const byTable: Record<string, string> = {};
    for (const [name, r] of Object.entries(p.to.rows)) {
      const b = p.from.rows[name] ?? { ins: 0, upd: 0, del: 0 };
      const [ins, upd, del] = [r.ins - b.ins, r.upd - b.upd, r.del - b.del];
      if (ins + upd + del > 0)
        byTable[name] = [ins && `+${per(ins, p.n)}`, upd && `~${per(upd, p.n)}`, del && `-${per(del, p.n)}`]
          .filter(Boolean)
          .join(' ');
    }
    tables[p.name] = byTable;
    const kinds = (a: StatementCounts, b: StatementCounts) =>
      Object.entries(a.byKind)
        .map(([k, v]) => [k, v - (b.byKind[k] ?? 0)] as const)
        .filter(([, v]) => v > 0)
        .map(([k, v]) => `${k} ${per(v, p.n)}`)
        .join(', ');
    details.push(
      `  ${p.name} (${sec.toFixed(0)} s window, per operation${isIdle ? '' : ', the idle rate not yet taken off'}):`,
      `    actions: ${Object.entries(t.actions)
        .map(([k, v]) => `${k} ${per(v, p.n)}`)
        .join(', ')}`,
      `    executions touched: ${Object.entries(t.executions)
        .map(([k, v]) => `${k} ${per(v, p.n)}`)
        .join(', ')}`,
      `    activities: ${Object.entries(t.activities)
        .map(([k, v]) => `${k} ${per(v, p.n)}`)
        .join(', ')}`,
      `    engine statements: ${kinds(p.to.statements.engine, p.from.statements.engine)}`,
      `    gateway statements: ${kinds(p.to.statements.gateway, p.from.statements.gateway)}`,
      `    database commits (pg_stat_database, all clients incl. this bench's reads): ${per(p.to.commits - p.from.commits, p.n)}`,
    );
  }
  console.log(`Cost per operation (N = ${phases[1]?.n}; the idle phase's rate taken off the others):`);
  console.table(rows);
  console.log('  Rows written per operation by table (+ inserted, ~ updated, - deleted; pg_stat_user_tables):');
  for (const [phase, byTable] of Object.entries(tables))
    console.log(
      `    ${phase}: ${Object.entries(byTable)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}`,
    );
  console.log(details.join('\n'));
}
