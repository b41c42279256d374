import { describe, expect, it } from '@jest/globals';
import type { SimulatedGateway } from '@billing/simulated-gateway';
import { uuidv7 } from 'uuidv7';
import type { Client } from '@temporalio/client';
import { reconciliationWorkflowId } from '../../contracts/reconciliation.ts';
import { startApi, useApi, type TestApi } from '../helpers/api.ts';
import { makeApiKey, makeOat, makeTenant } from '../helpers/fixtures.ts';
import { paidSale } from '../helpers/reconciliation-books.ts';

/**
 * The reconciliation API (decision 0076) over the real worker and the simulated gateway: a day run on
 * demand answers its report, whose lines name a refund made only at the gateway; reports are listed
 * newest day first, one organization's never another's; the lines download as CSV; days and
 * credentials are checked.
 */
let api: TestApi;
let temporal: Client;
useApi((started) => ({ api, temporal } = started));

type Tenant = Awaited<ReturnType<typeof makeTenant>>;
const sql = (query: string, params: unknown[] = []): Promise<any[]> =>
  api.orm.em.getConnection().execute(query, params);
const today = () => new Date().toISOString().slice(0, 10);
const sim = () => api.gateway as SimulatedGateway;

/** A report as the store has it, written by a finished run (for list tests that need no gateway). */
async function storedReport(tenant: Tenant, day: string, status: 'balanced' | 'drift') {
  const id = uuidv7();
  await sql(
    `insert into reconciliations (id, organization_id, day, status, ours_total, theirs_total, unmatched_total,
       matched_count, unmatched_count, report_key, created_at)
     values (?, ?, ?, ?, 100, 100, 0, 1, 0, ?, now())`,
    [id, tenant.org.id, day, status, `test:${id}`],
  );
  return id;
}

describe('POST /reconciliations', () => {
  it('runs a day now and answers its report, a refund made only at the gateway named with its reason', async () => {
    const t = await makeTenant(api.orm);
    const refundedThere = await paidSale(api, t.org.id, 5_000);
    const matched = await paidSale(api, t.org.id, 10_000);
    // Refunded in the gateway's panel: no notice reached our books.
    await sim().refund(refundedThere.gatewayId, 2_000, `panel:${uuidv7()}`);

    const run = await api.call('POST', '/api/v1/reconciliations', { token: t.oat, body: { day: today() } });
    expect(run.status).toBe(201);
    expect(run.headers.location).toBe(`/api/v1/reconciliations/${run.body.id}`);
    expect(run.body).toMatchObject({
      organization_id: t.org.id,
      day: today(),
      status: 'drift',
      ours_total: 15_000,
      // 150,00 captured; the gateway refunded 20,00 and took 3.99 % of each: 2,00 (1,995 half up) and 3,99.
      theirs_total: 15_000 - 2_000 - 200 - 399,
      unmatched_total: 2_000 + 200 + 399,
      unmatched_count: 3,
      reason_counts: { fee: 2, missing_in_books: 1 },
    });
    expect(run.body.ours_total - run.body.theirs_total).toBe(run.body.unmatched_total);
    const refundLine = run.body.lines.find((l: any) => l.kind === 'refund');
    expect(refundLine).toMatchObject({
      kind: 'refund',
      gateway_id: refundedThere.gatewayId,
      ours: 0,
      theirs: -2_000,
      difference: 2_000,
      reason: 'missing_in_books',
      repair: 'gateway_refunds',
    });
    expect(run.body.lines.find((l: any) => l.kind === 'payment' && l.gateway_id === matched.gatewayId)).toMatchObject({
      ours: 10_000,
      theirs: 10_000,
      difference: 0,
      reason: null,
    });

    const read = await api.call('GET', `/api/v1/reconciliations/${run.body.id}`, { token: t.oat });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(run.body);

    const csv = await api.call('GET', `/api/v1/reconciliations/${run.body.id}/lines.csv`, { token: t.oat });
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.headers['x-content-type-options']).toBe('nosniff');
    expect(csv.headers['content-disposition']).toBe(
      `attachment; filename="reconciliation-${today()}-${run.body.id}.csv"`,
    );
    const rows = (csv.body as string).split('\r\n');
    expect(rows[0]).toBe('kind,gateway_id,reference,ours,theirs,difference,reason,repair');
    expect(rows).toHaveLength(run.body.lines.length + 2);
    expect(rows.at(-1)).toBe('');
    const reference = (gatewayId: string) =>
      run.body.lines.find((l: any) => l.gateway_id === gatewayId).reference ?? '';
    expect(rows).toContain(
      `refund,${refundedThere.gatewayId},${reference(refundedThere.gatewayId)},0,-2000,2000,missing_in_books,gateway_refunds`,
    );
    // 3.99 % of 100,00.
    expect(rows).toContain(`fee,${matched.gatewayId},${reference(matched.gatewayId)},0,-399,399,fee,`);
  });

  it('refuses a malformed day (400) and a future one (422), starting nothing', async () => {
    const t = await makeTenant(api.orm);
    for (const day of ['2026-13-01', '2026-02-30', 'yesterday', '20260101']) {
      const res = await api.call('POST', '/api/v1/reconciliations', { token: t.oat, body: { day } });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'validation_error', detail: expect.stringContaining('day') });
    }
    expect((await api.call('POST', '/api/v1/reconciliations', { token: t.oat, body: {} })).status).toBe(400);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const future = await api.call('POST', '/api/v1/reconciliations', { token: t.oat, body: { day: tomorrow } });
    expect(future.status).toBe(422);
    expect(future.body).toMatchObject({ code: 'day_in_future', error: 'The day has not come yet' });
    expect(future.body.detail).toContain(tomorrow);
    expect(await sql(`select id from reconciliations where organization_id = ?`, [t.org.id])).toEqual([]);
  });

  it('answers 202 with where to find the report when the run has not written it in time; the run goes on', async () => {
    // An API whose runs no worker takes: the run waits, as for a ledger Mercado Pago is still building.
    const waiting = await startApi({ TEMPORAL_TASK_QUEUE: `nobody-${uuidv7()}`, RECONCILIATION_REPORT_WAIT_MS: '300' });
    try {
      const t = await makeTenant(api.orm);
      const res = await waiting.call('POST', '/api/v1/reconciliations', { token: t.oat, body: { day: today() } });
      expect(res.status).toBe(202);
      expect(res.body).toEqual({
        status: 'running',
        day: today(),
        run_id: expect.any(String),
        detail: expect.any(String),
      });
      expect(res.headers.location).toBe(`/api/v1/reconciliations?day=${today()}`);
      const handle = temporal.workflow.getHandle(reconciliationWorkflowId(t.org.id, today(), res.body.run_id));
      expect((await handle.describe()).status.name).toBe('RUNNING');
      await handle.terminate('test over');
    } finally {
      await waiting.close();
    }
  });
});

describe('GET /reconciliations', () => {
  it('lists newest day first, a page at a time, filtered by day and status, each organization its own', async () => {
    const t = await makeTenant(api.orm);
    const other = await makeTenant(api.orm);
    const first = await storedReport(t, '2026-03-01', 'balanced');
    const third = await storedReport(t, '2026-03-03', 'drift');
    const second = await storedReport(t, '2026-03-02', 'drift');
    const elsewhere = await storedReport(other, '2026-03-04', 'drift');

    const page1 = await api.call('GET', '/api/v1/reconciliations?limit=2', { token: t.oat });
    expect(page1.status).toBe(200);
    expect(page1.body.items.map((r: any) => r.id)).toEqual([third, second]);
    expect(page1.body.pagination).toEqual({ total_count: 3, max_page: 2 });
    expect(page1.body.items[0]).toMatchObject({ day: '2026-03-03', status: 'drift', reason_counts: {} });
    const page2 = await api.call('GET', '/api/v1/reconciliations?limit=2&page=2', { token: t.oat });
    expect(page2.body.items.map((r: any) => r.id)).toEqual([first]);
    const ascending = await api.call('GET', '/api/v1/reconciliations?sorting=day', { token: t.oat });
    expect(ascending.body.items.map((r: any) => r.id)).toEqual([first, second, third]);

    const byDay = await api.call('GET', '/api/v1/reconciliations?day=2026-03-02', { token: t.oat });
    expect(byDay.body.items.map((r: any) => r.id)).toEqual([second]);
    const drift = await api.call('GET', '/api/v1/reconciliations?status=drift', { token: t.oat });
    expect(drift.body.items.map((r: any) => r.id)).toEqual([third, second]);
    expect((await api.call('GET', '/api/v1/reconciliations?sorting=amount', { token: t.oat })).status).toBe(400);
    expect((await api.call('GET', '/api/v1/reconciliations?day=March', { token: t.oat })).status).toBe(400);

    // Another organization's report is not there for this one.
    expect((await api.call('GET', `/api/v1/reconciliations/${elsewhere}`, { token: t.oat })).status).toBe(404);
    expect((await api.call('GET', `/api/v1/reconciliations/${elsewhere}/lines.csv`, { token: t.oat })).status).toBe(
      404,
    );
    expect((await api.call('GET', '/api/v1/reconciliations/not-an-id', { token: t.oat })).status).toBe(404);
    const theirs = await api.call('GET', '/api/v1/reconciliations', { token: other.oat });
    expect(theirs.body.items.map((r: any) => r.id)).toEqual([elsewhere]);
  });
});

describe('GET /reconciliations/{id}', () => {
  it('names how each line missing in our books was repaired: a refund recorded, a payment applied', async () => {
    const t = await makeTenant(api.orm);
    const id = await storedReport(t, '2026-11-20', 'drift');
    for (const [position, kind, repair] of [
      [0, 'payment', 'payment_notice'],
      [1, 'refund', 'gateway_refunds'],
    ] as const) {
      await sql(
        `insert into reconciliation_lines (id, reconciliation_id, position, kind, gateway_id, reference, ours, theirs,
           difference, reason, repair) values (?, ?, ?, ?, 'tr_x', null, 0, 100, -100, 'missing_in_books', ?)`,
        [uuidv7(), id, position, kind, repair],
      );
    }
    const read = await api.call('GET', `/api/v1/reconciliations/${id}`, { token: t.oat });
    expect(read.status).toBe(200);
    expect(read.body.lines.map((l: any) => [l.kind, l.repair])).toEqual([
      ['payment', 'payment_notice'],
      ['refund', 'gateway_refunds'],
    ]);
  });
});

describe('credentials', () => {
  it('takes reconciliations:read to read and reconciliations:write to run; API keys need admin', async () => {
    const t = await makeTenant(api.orm);
    const id = await storedReport(t, '2026-03-01', 'balanced');
    const reader = await makeOat(api.orm, t.org.id, ['reconciliations:read']);
    const salesOnly = await makeOat(api.orm, t.org.id, ['sales:read']);
    const run = { body: { day: today() } };

    expect((await api.call('GET', '/api/v1/reconciliations')).status).toBe(401);
    expect((await api.call('POST', '/api/v1/reconciliations', run)).status).toBe(401);
    expect((await api.call('GET', `/api/v1/reconciliations/${id}`, { token: reader })).status).toBe(200);
    expect((await api.call('GET', `/api/v1/reconciliations/${id}/lines.csv`, { token: reader })).status).toBe(200);
    const denied = await api.call('POST', '/api/v1/reconciliations', { ...run, token: reader });
    expect(denied.status).toBe(403);
    expect(denied.body.detail).toContain('reconciliations:write');
    expect((await api.call('GET', '/api/v1/reconciliations', { token: salesOnly })).status).toBe(403);

    // The spec's read and write API keys name other resources; an admin key reads them.
    const readWrite = { 'x-service-api-key': t.apiKey };
    expect((await api.call('GET', '/api/v1/reconciliations', { headers: readWrite })).status).toBe(403);
    expect((await api.call('POST', '/api/v1/reconciliations', { ...run, headers: readWrite })).status).toBe(403);
    const admin = await makeApiKey(api.orm, t.org.id, { scopes: ['admin'] });
    const listed = await api.call('GET', '/api/v1/reconciliations', { headers: { 'x-service-api-key': admin.key } });
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((r: any) => r.id)).toEqual([id]);
  });
});
