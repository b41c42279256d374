import { describe, expect, it } from '@jest/globals';
import { useApi, type TestApi } from '../helpers/api.ts';
import { makeTenant } from '../helpers/fixtures.ts';
import { subscribeByPixAutomatico } from '../helpers/pix-automatico-buyers.ts';
import { waitFor } from '../helpers/processes.ts';

/**
 * POST /refunds of a sale a Pix Automático cycle paid (decision 0099): the period's charge paid
 * through the mandate on a sandbox test clock, then refunded in part and for the rest. Each refund is
 * the paid pix's devolução at the simulated gateway (its own table, gateway_sim.mandate_refunds), with
 * the refund rows, the payment's and the sale's totals and the events of any refund.
 */
let api: TestApi;
useApi((started) => ({ api } = started), { callbacksHere: true });

type Tenant = Awaited<ReturnType<typeof makeTenant>>;
const sql = (q: string, params: unknown[] = []): Promise<any[]> => api.orm.em.getConnection().execute(q, params);

/** A monthly Pix Automático subscription whose period 2 (R$ 39,90) the mandate paid. */
async function periodPaidByMandate(tenant: Tenant) {
  const { subscription: s } = await subscribeByPixAutomatico(api, tenant);
  await waitFor(async () => (await sql('select id from mandates where subscription_id = ?', [s.id]))[0], {
    what: 'the mandate adopted',
    timeoutMs: 20_000,
  });
  const to = new Date(new Date(s.current_period_end).getTime() + 2 * 86_400_000).toISOString();
  const moved = await api.call('POST', `/api/v1/subscriptions/${s.id}/test-clock/advance`, {
    body: { to },
    token: tenant.oat,
  });
  expect(moved.status).toBe(200);
  return waitFor(
    async () => {
      const [row] = await sql(
        `select sa.id as sale_id, t.id as transaction_id, c.gateway_charge_id as charge_id
           from mandate_charges c
           join transactions t on t.gateway_transaction_id = c.gateway_charge_id
           join sales sa on sa.transaction_id = t.id
          where c.subscription_id = ? and c.period = 2 and c.status = 'completed'`,
        [s.id],
      );
      return row as { sale_id: string; transaction_id: string; charge_id: string } | undefined;
    },
    { what: 'period 2 paid through the mandate', timeoutMs: 30_000 },
  );
}

const refund = (tenant: Tenant, body: Record<string, unknown>, key?: string) =>
  api.call('POST', '/api/v1/refunds/', {
    token: tenant.oat,
    body,
    ...(key ? { headers: { 'idempotency-key': key } } : {}),
  });

describe('POST /refunds of a sale paid by a Pix Automático charge', () => {
  it('gives back part, then the rest, as devoluções of the paid pix; a third is refused; a replay refunds once', async () => {
    const tenant = await makeTenant(api.orm);
    const paid = await periodPaidByMandate(tenant);

    const part = await refund(tenant, { sale_id: paid.sale_id, amount: 1_000, reason: 'late delivery' }, 'refund-1');
    expect(part.status).toBe(201);
    expect(part.body).toMatchObject({ sale_id: paid.sale_id, amount: 1_000, status: 'succeeded' });
    // The same request again: the first answer, and no second devolução.
    const replay = await refund(tenant, { sale_id: paid.sale_id, amount: 1_000, reason: 'late delivery' }, 'refund-1');
    expect([replay.status, replay.headers['idempotent-replayed'], replay.body.id]).toEqual([201, 'true', part.body.id]);

    const rest = await refund(tenant, { sale_id: paid.sale_id }, 'refund-2');
    expect(rest.body).toMatchObject({ amount: 2_990, status: 'succeeded' });

    const third = await refund(tenant, { sale_id: paid.sale_id, amount: 1 }, 'refund-3');
    expect(third.status).toBe(422);
    expect(third.body).toEqual({
      error: 'Nothing left to refund on this sale',
      code: 'nothing_to_refund',
    });

    // The money at the gateway: two devoluções of the paid attempt, R$ 10,00 and R$ 29,90.
    const given = await sql(
      `select r.amount::int as amount, r.status, r.end_to_end_id = a.end_to_end_id as of_paid_attempt
         from gateway_sim.mandate_refunds r
         join gateway_sim.mandate_attempts a on a.charge_id = r.charge_id and a.status = 'paid'
        where r.charge_id = ? order by r.requested_at`,
      [paid.charge_id],
    );
    expect(given).toEqual([
      { amount: 1_000, status: 'refunded', of_paid_attempt: true },
      { amount: 2_990, status: 'refunded', of_paid_attempt: true },
    ]);
    // Our books: the refunds, the payment and the sale refunded in full.
    const rows = await sql(
      `select amount::int as amount, status, reason from refunds where sale_id = ? order by created_at`,
      [paid.sale_id],
    );
    expect(rows).toEqual([
      { amount: 1_000, status: 'succeeded', reason: 'late delivery' },
      { amount: 2_990, status: 'succeeded', reason: null },
    ]);
    const [payment] = await sql('select status, refunded_amount::int as refunded from transactions where id = ?', [
      paid.transaction_id,
    ]);
    expect(payment).toEqual({ status: 'refunded', refunded: 3_990 });
    const sale = await api.call('GET', `/api/v1/sales/${paid.sale_id}`, { token: tenant.oat });
    // The period was paid by pix through the mandate, and its sale says so.
    expect(sale.body).toMatchObject({ status: 'refunded', refunded_amount: 3_990, payment_method: 'pix' });
    const events = await sql(
      `select type from events where organization_id = ? and type in ('refund.created', 'sale.refunded') order by id`,
      [tenant.org.id],
    );
    expect(events.map((e) => e.type)).toEqual(['refund.created', 'sale.refunded', 'refund.created', 'sale.refunded']);
  }, 90_000);
});
