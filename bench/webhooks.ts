import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { uuidv7 } from 'uuidv7';
import { openOrm } from '../db/orm.ts';
import { benchDb, sql } from './db.ts';
import { cpuSince, cpuSnapshot, ownCpuMs, percentile } from './harness.ts';
import { startStack } from './stack.ts';

/**
 * `npm run bench -- webhooks`: BENCH_WEBHOOK_EVENTS (10,000) events committed at BENCH_WEBHOOK_RATE a
 * second (a few per transaction, as the API commits them) to one endpoint on a local receiver, through
 * the real stack (worker processes relay and deliver). Per event, from its commit to its first arrival at
 * the receiver: p50 and p99 (target p50 under 1 s), and none lost.
 */
const EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 10_000);
const RATE = Number(process.env.BENCH_WEBHOOK_RATE ?? 60);
const PER_TRANSACTION = 5;
const STALL_MS = 60_000;

export async function benchWebhooks(databaseUrl: string): Promise<void> {
  const stack = await startStack(databaseUrl, { temporalPort: 7259, apiPort: 18449, taskQueue: 'bench-webhooks' });
  const arrivals = new Map<string, number>();
  let deliveries = 0;
  const receiver = createServer((req, res) => {
    const id = String(req.headers['webhook-id']);
    deliveries++;
    if (!arrivals.has(id)) arrivals.set(id, Date.now());
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  const orm = await openOrm(databaseUrl, 4);
  const db = benchDb(orm);
  const organizationId = stack.demo.organizationId;
  try {
    // The database outlives a run: earlier runs' endpoints (their receivers gone) would get every event too.
    await db.query(
      sql`update webhook_endpoints set enabled = false, deleted_at = now()
        where organization_id = ${organizationId} and deleted_at is null`,
    );
    await db.query(
      sql`insert into webhook_endpoints (id, organization_id, url, event_types, secret, created_at, updated_at)
       values (${uuidv7()}, ${organizationId}, ${url}, '{customer.created}', ${`whsec_${randomBytes(24).toString('base64')}`},
         now(), now())`,
    );
    const committedAt = new Map<string, number>();
    const cpu = { ...stack.cpu, 'bench (writer, receiver)': ownCpuMs };
    const before = cpuSnapshot(cpu);
    const started = Date.now();
    for (let sent = 0; sent < EVENTS; sent += PER_TRANSACTION) {
      const ids = Array.from({ length: Math.min(PER_TRANSACTION, EVENTS - sent) }, () => uuidv7());
      await db.transaction(async (query) => {
        for (const id of ids) {
          const data = JSON.stringify({ id: uuidv7(), email: `bench-${id}@example.com` });
          await query(
            sql`insert into events (id, organization_id, type, data, created_at)
              values (${id}, ${organizationId}, 'customer.created', ${data}::jsonb, now())`,
          );
        }
      });
      const now = Date.now();
      for (const id of ids) committedAt.set(id, now);
      // Hold the pace: the next transaction when its share of the second has come.
      const due = started + ((sent + PER_TRANSACTION) * 1000) / RATE;
      if (due > Date.now()) await new Promise((resolve) => setTimeout(resolve, due - Date.now()));
    }
    const writtenSec = (Date.now() - started) / 1000;
    let last = arrivals.size;
    let lastChange = Date.now();
    while (arrivals.size < EVENTS && Date.now() - lastChange < STALL_MS) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      if (arrivals.size !== last) [last, lastChange] = [arrivals.size, Date.now()];
    }
    const used = cpuSince(cpu, before);
    const latencies = [...committedAt].flatMap(([id, at]) => (arrivals.has(id) ? [arrivals.get(id)! - at] : []));
    const lost = EVENTS - latencies.length;
    console.log(
      `Webhooks: ${EVENTS} events at ${RATE}/s (${PER_TRANSACTION} a transaction), written in ${writtenSec.toFixed(1)} s`,
    );
    console.table({
      'commit → delivery ms': {
        p50: percentile(latencies, 50),
        p90: percentile(latencies, 90),
        p99: percentile(latencies, 99),
        max: Math.max(...latencies),
      },
    });
    console.log(
      `  delivered ${latencies.length}/${EVENTS} (lost ${lost}), ${deliveries} POSTs (${deliveries - latencies.length} more than once)`,
    );
    console.log(
      '  CPU ms per event: ' +
        Object.entries(used)
          .map(([k, ms]) => `${k} ${(ms / EVENTS).toFixed(2)}`)
          .join(', '),
    );
    const p50 = percentile(latencies, 50);
    console.log(
      `Goals:\n  p50 ${p50} ms (goal < 1000 ms) → ${p50 < 1000 ? 'met' : 'NOT met'}; none lost → ${lost === 0 ? 'met' : 'NOT met'}`,
    );
  } finally {
    await orm.close();
    await new Promise((resolve) => receiver.close(resolve));
    await stack.stop();
  }
}
