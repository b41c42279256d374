import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { uuidv7 } from 'uuidv7';
import type { GatewayMandate, GatewayMandateCharge } from '../../contracts/pix-automatico.ts';
import { upsertMandateCharge } from '../../db/mandate/charges.ts';
import { upsertMandate } from '../../db/mandate/mandates.ts';
import { insertEvents } from '../../db/events.ts';
import { mandateChargeEventData, mandateEventData } from '../../use-cases/schemas/mandates.ts';
import { webhookValidator } from '../helpers/openapi-validator.ts';
import { startApi, type TestApi } from '../helpers/api.ts';
import { makeOat, makeTenant } from '../helpers/fixtures.ts';
import { approved, attempt, gatewayCharge, gatewayMandate, seedSubscription } from '../helpers/mandates.ts';

/**
 * GET /mandates and GET /mandates/{id} (decision 0096), over rows the mandate's repository wrote: one
 * organization's mandates only, filtered, paged and sorted; the detail lists each charge's attempts
 * with the failure in words; another organization's mandate, or none, is a 404.
 */
let api: TestApi;
type Tenant = Awaited<ReturnType<typeof makeTenant>>;
let A: Tenant;
let B: Tenant;
type Body = Record<string, any>;

/** A mandate of a new subscription of `t`, as the gateway's sights of it left it, created at `at`. */
async function mandateOf(t: Tenant, at: Date, sights: (subscriptionId: string) => GatewayMandate[]) {
  const s = await seedSubscription(api.orm, t.org.id);
  const seen = sights(s.subscriptionId);
  let row;
  for (const gateway of seen) {
    ({ row } = await api.orm.em
      .fork()
      .transactional((tx) => upsertMandate(tx, { organizationId: t.org.id, currency: 'brl', ...s, gateway }, at)));
  }
  return { ...s, row: row!, gateway: seen.at(-1)! };
}

async function chargeOf(
  t: Tenant,
  m: Awaited<ReturnType<typeof mandateOf>>,
  period: number,
  gateway: GatewayMandateCharge,
) {
  await api.orm.em.fork().transactional((tx) =>
    upsertMandateCharge(
      tx,
      {
        organizationId: t.org.id,
        mandateId: m.row.id,
        subscriptionId: m.subscriptionId,
        period,
        settlementDate: gateway.dueDate,
        gateway,
      },
      new Date(),
    ),
  );
}

const get = async (url: string, token = A.oat, status = 200) => {
  const res = await api.call('GET', url, { token });
  expect({ url, status: res.status }).toEqual({ url, status });
  return res.body as Body;
};

let created: Awaited<ReturnType<typeof mandateOf>>;
let active: Awaited<ReturnType<typeof mandateOf>>;
let cancelled: Awaited<ReturnType<typeof mandateOf>>;
let ofB: Awaited<ReturnType<typeof mandateOf>>;

beforeAll(async () => {
  api = await startApi();
  [A, B] = [await makeTenant(api.orm), await makeTenant(api.orm)];
  created = await mandateOf(A, new Date('2026-11-01T10:00:00Z'), (id) => [gatewayMandate(id)]);
  active = await mandateOf(A, new Date('2026-11-02T10:00:00Z'), (id) => [approved(gatewayMandate(id))]);
  cancelled = await mandateOf(A, new Date('2026-11-03T10:00:00Z'), (id) => {
    const m = approved(gatewayMandate(id));
    return [
      m,
      {
        ...m,
        status: 'cancelled',
        cancellation: { by: 'payer', code: 'SLDB', description: 'Solicitado pelo pagador' },
        history: [...m.history, { status: 'cancelled', at: '2026-11-29T11:00:00.000Z' }],
      },
    ];
  });
  ofB = await mandateOf(B, new Date('2026-11-04T10:00:00Z'), (id) => [approved(gatewayMandate(id))]);

  // The active mandate's first cycle: no funds in the morning, paid at the first retry.
  const noFunds = attempt({ settlementDate: '2026-12-10', status: 'expired' });
  const retry = attempt({ kind: 'retry', settlementDate: '2026-12-11', status: 'paid' });
  await chargeOf(
    A,
    active,
    1,
    gatewayCharge(active.gateway, 1, {
      status: 'completed',
      attempts: [noFunds, retry],
      paidAt: '2026-12-11T09:00:00.000Z',
    }),
  );
  // Its second: above the payer's maximum.
  const above = attempt({
    settlementDate: '2027-01-11',
    status: 'rejected',
    rejection: { code: 'AM02', description: 'Valor acima do limite' },
  });
  await chargeOf(A, active, 2, gatewayCharge(active.gateway, 2, { dueDate: '2027-01-10', attempts: [above] }));
});
afterAll(async () => {
  await api.close();
});

describe('GET /mandates', () => {
  it("lists the organization's mandates, newest first, never another organization's", async () => {
    const page = await get('/api/v1/mandates/');
    expect(page.items.map((m: Body) => m.id)).toEqual([cancelled.row.id, active.row.id, created.row.id]);
    expect(page.pagination).toEqual({ total_count: 3, max_page: 1 });
    expect(page.items[0]).toMatchObject({
      subscription_id: cancelled.subscriptionId,
      customer_id: cancelled.customerId,
      status: 'cancelled',
      currency: 'BRL',
      periodicity: 'monthly',
      retry_policy: 'three_in_seven_days',
      start_date: '2026-12-10',
      end_date: null,
      fixed_amount: 4990,
      debtor: { name: 'Ana Souza', tax_id: '12345678909' },
      rejection: null,
      cancellation: { by: 'payer', code: 'SLDB', description: 'The payer asked to cancel it' },
    });
    expect(page.items[0].charges).toBeUndefined();
    const ofB_ = await get('/api/v1/mandates/', B.oat);
    expect(ofB_.items.map((m: Body) => m.id)).toEqual([ofB.row.id]);
  });

  it('filters by subscription, customer and status', async () => {
    const ids = async (query: string) => (await get(`/api/v1/mandates/?${query}`)).items.map((m: Body) => m.id);
    expect(await ids(`subscription_id=${active.subscriptionId}`)).toEqual([active.row.id]);
    expect(await ids(`customer_id=${created.customerId}`)).toEqual([created.row.id]);
    expect(await ids('status=approved')).toEqual([active.row.id]);
    expect(await ids(`status=approved&customer_id=${created.customerId}`)).toEqual([]);
    // Another organization's subscription, and an id that is no uuid, find nothing.
    expect(await ids(`subscription_id=${ofB.subscriptionId}`)).toEqual([]);
    expect(await ids('subscription_id=nope')).toEqual([]);
    await get('/api/v1/mandates/?status=paid', A.oat, 400);
  });

  it('pages and sorts', async () => {
    const second = await get('/api/v1/mandates/?limit=2&page=2');
    expect(second.items.map((m: Body) => m.id)).toEqual([created.row.id]);
    expect(second.pagination).toEqual({ total_count: 3, max_page: 2 });
    const oldest = await get('/api/v1/mandates/?sorting=created_at&limit=1');
    expect(oldest.items.map((m: Body) => m.id)).toEqual([created.row.id]);
    await get('/api/v1/mandates/?sorting=amount', A.oat, 400);
  });

  it('takes the subscriptions read scope', async () => {
    const other = await makeOat(api.orm, A.org.id, ['customers:read']);
    await get('/api/v1/mandates/', other, 403);
    const reader = await makeOat(api.orm, A.org.id, ['subscriptions:read']);
    expect((await get(`/api/v1/mandates/${active.row.id}`, reader)).id).toBe(active.row.id);
  });
});

describe('GET /mandates/{id}', () => {
  it('answers the mandate with its charges by period, each attempt with its failure in words', async () => {
    const m = await get(`/api/v1/mandates/${active.row.id}`);
    const { charges, ...mandate } = m;
    expect(mandate).toEqual((await get(`/api/v1/mandates/?subscription_id=${active.subscriptionId}`)).items[0]);
    expect(mandate.history.map((h: Body) => h.status)).toEqual(['created', 'approved']);
    expect(charges.map((c: Body) => [c.period, c.status, c.failure_reason, c.paid_at])).toEqual([
      [1, 'completed', 'insufficient_funds', '2026-12-11T09:00:00.000Z'],
      [2, 'active', 'AM02', null],
    ]);
    expect(charges[0]).toMatchObject({ mandate_id: active.row.id, due_date: '2026-12-10', amount: 4990 });
    expect(charges[0].attempts).toEqual([
      expect.objectContaining({
        settlement_date: '2026-12-10',
        kind: 'scheduled',
        status: 'expired',
        rejection_code: null,
        failure_reason: 'insufficient_funds',
        failure_description: 'The payer’s account had no funds on the settlement day',
      }),
      expect.objectContaining({ settlement_date: '2026-12-11', kind: 'retry', status: 'paid', failure_reason: null }),
    ]);
    expect(charges[1].attempts).toEqual([
      expect.objectContaining({
        status: 'rejected',
        rejection_code: 'AM02',
        failure_description: 'The amount is above the maximum the payer allows',
      }),
    ]);
    expect((await get(`/api/v1/mandates/${created.row.id}`)).charges).toEqual([]);
  });

  it("is a 404 for another organization's mandate, an unknown id and a malformed one", async () => {
    for (const id of [ofB.row.id, uuidv7(), 'not-a-uuid']) {
      const body = await get(`/api/v1/mandates/${id}`, A.oat, 404);
      expect(body.code).toBe('not_found');
    }
    expect((await get(`/api/v1/mandates/${ofB.row.id}`, B.oat)).id).toBe(ofB.row.id);
  });
});

describe('the mandate events’ data', () => {
  it('is the record the API answers, valid against the document’s webhooks, written with the change', async () => {
    const m = await mandateOf(A, new Date(), (id) => [gatewayMandate(id)]);
    const failedAttempt = attempt({ status: 'rejected', rejection: { code: 'AC06', description: 'Conta bloqueada' } });
    await api.orm.em.fork().transactional(async (tx) => {
      const { row, previousStatus } = await upsertMandate(
        tx,
        {
          organizationId: A.org.id,
          subscriptionId: m.subscriptionId,
          customerId: m.customerId,
          currency: 'brl',
          gateway: approved(m.gateway),
        },
        new Date(),
      );
      expect(previousStatus).toBe('created');
      const charge = await upsertMandateCharge(
        tx,
        {
          organizationId: A.org.id,
          mandateId: row.id,
          subscriptionId: m.subscriptionId,
          period: 1,
          settlementDate: '2026-12-10',
          gateway: gatewayCharge(approved(m.gateway), 1, { attempts: [failedAttempt] }),
        },
        new Date(),
      );
      expect(charge.newFailures).toHaveLength(1);
      await insertEvents(tx, A.org.id, [
        ['mandate.approved', mandateEventData(row)],
        ['mandate.charge_created', mandateChargeEventData(charge.row)],
        ['mandate.charge_attempt_failed', mandateChargeEventData(charge.row)],
      ]);
    });
    const detail = await get(`/api/v1/mandates/${m.row.id}`);
    const { charges, ...mandate } = detail;
    const invalid = webhookValidator((await api.call('GET', '/openapi.json')).body);
    const eventsOf = async (id: string) =>
      ((await get(`/api/v1/events/?object_id=${id}&sorting=created_at`)).items as Body[]).map((e) => {
        expect({ type: e.type, errors: invalid(e as { type: string }) }).toEqual({ type: e.type, errors: [] });
        return [e.type, e.data];
      });
    expect(await eventsOf(m.row.id)).toEqual([['mandate.approved', mandate]]);
    expect((await eventsOf(charges[0].id)).sort()).toEqual([
      ['mandate.charge_attempt_failed', charges[0]],
      ['mandate.charge_created', charges[0]],
    ]);
    expect(charges[0]).toMatchObject({ failure_reason: 'AC06', failure_description: 'The payer’s account is blocked' });
  });
});
