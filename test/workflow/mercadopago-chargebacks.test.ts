import { beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import type { TestApi } from '../helpers/api.ts';
import { mercadoPagoTestbed } from '../helpers/mercadopago-testbed.ts';
import { makeCheckout } from '../helpers/checkouts.ts';
import { makeOat, makeOrganization } from '../helpers/fixtures.ts';
import { subscriptionWhen } from '../helpers/subscriptions.ts';
import { waitFor } from '../helpers/processes.ts';
import { chargebackNotice } from '../helpers/mercadopago-fake.ts';
import { chargebackWorkflowId } from '../../contracts/dispute.ts';
import { recordHistory } from '../helpers/histories.ts';

/**
 * Chargebacks (issue 33 §3, decision 0072): Mercado Pago sends a `chargebacks` notice, the engine
 * reads `/v1/chargebacks/:id` and the payment, and records the dispute against the sale: opened, then
 * won or lost; a lost one takes its money back from the sale, with the sale's events. The API and a
 * worker of this file's own task queue, on the Mercado Pago adapter over the stateful fake.
 */
const QUEUE = 'billing-test-mercadopago-chargebacks';
const WEBHOOK_SECRET = 'mp-webhook-secret-of-the-chargebacks-test';
const { mp, stack, sql, paidSale } = mercadoPagoTestbed(QUEUE, WEBHOOK_SECRET);
let api: TestApi;
let temporal: Client;
beforeAll(() => {
  ({ api, temporal } = stack);
});

/** Mercado Pago's signed notice of the chargeback, as it posts it; the run it started, finished. */
async function notify(chargebackId: string, status: 'opened' | 'won' | 'lost') {
  const notice = chargebackNotice(chargebackId, WEBHOOK_SECRET);
  const res = await api.call('POST', notice.path, { body: notice.body, headers: notice.headers });
  expect(res.status).toBe(200);
  const run = temporal.workflow.getHandle(chargebackWorkflowId(chargebackId, status));
  return { run, outcome: await run.result() };
}

const disputesOf = (saleId: string) =>
  sql('select status, amount::int, lost_amount::int, closed_at is not null as closed from disputes where sale_id = ?', [
    saleId,
  ]);
const books = async (saleId: string) =>
  (
    await sql(
      `select s.charged_back_amount::int as sale_charged_back, s.status as sale_status, t.status as payment_status
         from sales s join transactions t on t.id = s.transaction_id where s.id = ?`,
      [saleId],
    )
  )[0];
const eventsOf = async (organizationId: string) =>
  (
    await sql(
      `select type, data from events where organization_id = ? and type like 'sale.dispute%' order by created_at, id`,
      [organizationId],
    )
  ).map((e) => ({
    type: e.type,
    charged_back_amount: e.data.charged_back_amount,
    disputes: e.data.disputes.map((d: any) => d.status),
  }));

describe('Mercado Pago: chargebacks', () => {
  it('a dispute opens, then is lost: its money is taken back from the sale, with the events; a repeated notice adds nothing', async () => {
    const { saleId, paymentId, c } = await paidSale(10_000);
    const chargebackId = mp.openChargeback(paymentId);
    expect((await notify(chargebackId, 'opened')).outcome).toMatchObject({ status: 'opened' });
    expect(await disputesOf(saleId)).toEqual([{ status: 'opened', amount: 10_000, lost_amount: 0, closed: false }]);
    expect(await books(saleId)).toEqual({ sale_charged_back: 0, sale_status: 'paid', payment_status: 'dispute' });

    mp.decideChargeback(chargebackId, 'lost');
    const { run } = await notify(chargebackId, 'lost');
    expect(await disputesOf(saleId)).toEqual([{ status: 'lost', amount: 10_000, lost_amount: 10_000, closed: true }]);
    expect(await books(saleId)).toEqual({
      sale_charged_back: 10_000,
      sale_status: 'paid',
      payment_status: 'charged_back',
    });
    expect(await eventsOf(c.organizationId)).toEqual([
      { type: 'sale.disputed', charged_back_amount: 0, disputes: ['opened'] },
      { type: 'sale.dispute_closed', charged_back_amount: 10_000, disputes: ['lost'] },
    ]);
    await recordHistory(temporal, 'chargeback-lost', run.workflowId);

    // The metrics count it: the sale disputed, its money taken off the net revenue.
    const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
    const metrics = await api.call('GET', `/api/v1/metrics/?start_date=${day(-1)}&end_date=${day(1)}&interval=day`, {
      token: await makeOat(api.orm, c.organizationId),
    });
    expect(metrics.status).toBe(200);
    expect(metrics.body.totals).toMatchObject({
      revenue: 10_000,
      chargebacks: 10_000,
      disputed_sales_count: 1,
      net_revenue: 0,
    });

    // Mercado Pago sends it again (and again): the runs they start, the first having ended, record nothing.
    expect((await notify(chargebackId, 'lost')).outcome).toEqual({ recorded: null, reason: 'unchanged' });
    expect((await notify(chargebackId, 'lost')).outcome).toEqual({ recorded: null, reason: 'unchanged' });
    expect(await disputesOf(saleId)).toHaveLength(1);
    expect(await eventsOf(c.organizationId)).toHaveLength(2);
    expect((await books(saleId)).sale_charged_back).toBe(10_000);
  });

  it('a dispute won leaves the money with the sale and its payment succeeded', async () => {
    const { saleId, paymentId, c } = await paidSale(5_000);
    const chargebackId = mp.openChargeback(paymentId, 20);
    await notify(chargebackId, 'opened');
    mp.decideChargeback(chargebackId, 'won');
    await notify(chargebackId, 'won');
    expect(await disputesOf(saleId)).toEqual([{ status: 'won', amount: 2_000, lost_amount: 0, closed: true }]);
    expect(await books(saleId)).toEqual({ sale_charged_back: 0, sale_status: 'paid', payment_status: 'succeeded' });
    expect((await eventsOf(c.organizationId)).map((e) => e.type)).toEqual(['sale.disputed', 'sale.dispute_closed']);
  });

  it('a disputed sale is not refunded while its dispute is open, and what a lost one took back cannot be refunded again', async () => {
    const { saleId, paymentId, c } = await paidSale(5_000);
    const token = await makeOat(api.orm, c.organizationId);
    const refund = (amount?: number) =>
      api.call('POST', '/api/v1/refunds/', { token, body: { sale_id: saleId, ...(amount ? { amount } : {}) } });
    const chargebackId = mp.openChargeback(paymentId, 20);
    await notify(chargebackId, 'opened');
    const whileOpen = await refund(1_000);
    expect([whileOpen.status, whileOpen.body.code]).toEqual([422, 'sale_disputed']);

    mp.decideChargeback(chargebackId, 'lost');
    await notify(chargebackId, 'lost');
    const all = await refund(5_000);
    expect(all.status).toBe(422);
    expect(all.body).toMatchObject({
      code: 'refund_exceeds_captured',
      detail: 'At most 3000 cents can still be refunded',
    });
    expect(await sql('select count(*)::int as n from refunds where sale_id = ?', [saleId])).toEqual([{ n: 0 }]);
  });

  it('a notice of a chargeback Mercado Pago does not know is acknowledged and starts nothing', async () => {
    const notice = chargebackNotice('999999', WEBHOOK_SECRET);
    const res = await api.call('POST', notice.path, { body: notice.body, headers: notice.headers });
    expect(res.status).toBe(200);
    await expect(temporal.workflow.getHandle(chargebackWorkflowId('999999', 'opened')).describe()).rejects.toThrow();
  });
});

/**
 * A manual monthly subscription bought and renewed once through Mercado Pago (the test clock moves it
 * into period 2): the subscription, and its renewal's sale and payment.
 */
async function renewedSubscription(settings: Record<string, unknown> = {}) {
  const org = await makeOrganization(api.orm);
  if (Object.keys(settings).length > 0) {
    await sql('update organizations set subscription_settings = subscription_settings || ?::jsonb where id = ?', [
      JSON.stringify(settings),
      org.id,
    ]);
  }
  const c = await makeCheckout(api.orm, temporal, {
    organizationId: org.id,
    recurring: 'month',
    recurrenceBilling: 'manual',
    amount: 4_990,
    taskQueue: QUEUE,
  });
  const res = await api.call('POST', `/api/v1/checkouts/client/${c.clientSecret}/confirm-sdk`, {
    body: { payment_method: 'credit_card', card_token: mp.cardToken() },
  });
  expect(res.status).toBe(200);
  const [row] = await sql('select id, current_period_end from subscriptions where checkout_id = ?', [c.id]);
  const s = { id: row.id as string, oat: await makeOat(api.orm, org.id) };
  const to = new Date(new Date(row.current_period_end).getTime() + 3_600_000).toISOString();
  const moved = await api.call('POST', `/api/v1/subscriptions/${s.id}/test-clock/advance`, {
    body: { to },
    token: s.oat,
  });
  expect(moved.status).toBe(200);
  await subscriptionWhen(api, s, (b) => b.period_number === 2 && b.status === 'active');
  const [renewal] = await sql(
    `select s.id, t.gateway_transaction_id from sales s join transactions t on t.id = s.transaction_id
      where s.subscription_id = ? order by s.created_at desc limit 1`,
    [s.id],
  );
  return { s, saleId: renewal.id as string, paymentId: renewal.gateway_transaction_id as string, org };
}

const subscriptionEvents = async (subscriptionId: string) =>
  (
    await sql(
      `select type, data->>'status' as status from events where type like 'subscription.%'
        and data->>'id' = ? order by created_at, id`,
      [subscriptionId],
    )
  ).map((e) => `${e.type}:${e.status}`);

describe('Mercado Pago: a renewal charged back', () => {
  it('is lost: the subscription goes past due (the default), through its workflow', async () => {
    const { s, saleId, paymentId } = await renewedSubscription();
    const chargebackId = mp.openChargeback(paymentId);
    await notify(chargebackId, 'opened');
    // Open, it changes nothing of the subscription.
    expect((await sql('select status from subscriptions where id = ?', [s.id]))[0].status).toBe('active');
    mp.decideChargeback(chargebackId, 'lost');
    const { outcome } = await notify(chargebackId, 'lost');
    expect(outcome).toMatchObject({ status: 'lost', subscription: { subscriptionId: s.id, action: 'past_due' } });
    const body = await subscriptionWhen(api, s, (b) => b.status === 'past_due');
    expect(body.status).toBe('past_due');
    expect((await subscriptionEvents(s.id)).at(-1)).toBe('subscription.past_due:past_due');
    expect(await disputesOf(saleId)).toEqual([{ status: 'lost', amount: 4_990, lost_amount: 4_990, closed: true }]);
  });

  it('is lost under chargeback_subscription_action cancel: the subscription ends; under none, it stays', async () => {
    const canceled = await renewedSubscription({ chargeback_subscription_action: 'cancel' });
    const first = mp.openChargeback(canceled.paymentId);
    mp.decideChargeback(first, 'lost');
    await notify(first, 'lost');
    expect((await subscriptionWhen(api, canceled.s, (b) => b.status === 'canceled')).status).toBe('canceled');

    const kept = await renewedSubscription({ chargeback_subscription_action: 'none' });
    const second = mp.openChargeback(kept.paymentId);
    mp.decideChargeback(second, 'lost');
    expect((await notify(second, 'lost')).outcome).toMatchObject({ status: 'lost', subscription: null });
    await waitFor(async () => (await disputesOf(kept.saleId)).length === 1, { what: 'the dispute', timeoutMs: 10_000 });
    expect((await sql('select status from subscriptions where id = ?', [kept.s.id]))[0].status).toBe('active');
  });
});
