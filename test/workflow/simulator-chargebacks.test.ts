import { beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import type { SimulatedGateway } from '@billing/simulated-gateway';
import type { TestApi } from '../helpers/api.ts';
import { ownQueueStack } from '../helpers/mercadopago-stack.ts';
import { makeCheckout } from '../helpers/checkouts.ts';
import { makeOat, makeOrganization } from '../helpers/fixtures.ts';
import { subscriptionWhen } from '../helpers/subscriptions.ts';
import { chargebackWorkflowId } from '../../contracts/dispute.ts';
import { reconcile, sumsToZero } from '../../domain/reconciliation.ts';

/**
 * Chargebacks at the simulator (issue 33 §3, decisions 0072 and 0079): the sandbox opens a dispute
 * of a card payment and decides it; the simulator posts its signed `chargeback.updated` callback, the
 * engine reads the chargeback back and records it against the sale as it does Mercado Pago's. The
 * simulator's ledger holds the disputed money while open and gives it back when won. The API and a
 * worker of this file's own task queue, on the embedded simulator.
 */
const QUEUE = 'billing-test-simulator-chargebacks';
const stack = ownQueueStack(QUEUE, { GATEWAY: 'simulator' });
let api: TestApi;
let temporal: Client;
let sim: SimulatedGateway;
beforeAll(() => {
  ({ api, temporal } = stack);
  sim = api.gateway as SimulatedGateway;
  sim.callbacks.callbackUrl = `${api.baseUrl}/api/v1/gateway/callbacks`;
  sim.callbacks.callbackSecret = api.config.gatewayCallbackSecret;
});

const sql = (q: string, params: unknown[] = []): Promise<any[]> => api.orm.em.getConnection().execute(q, params);
const card = { number: '4111111111111111', holder_name: 'Ana Souza', expiration_month: '12', expiration_year: '2031' };
const confirmCard = (clientSecret: string) =>
  api.call('POST', `/api/v1/checkouts/client/${clientSecret}/confirm-sdk`, {
    body: { payment_method: 'credit_card', card: { ...card, cvv: '123', installments: 1 } },
  });

/** The callback of the chargeback's state delivered, and the run it started, finished. */
async function recorded(chargebackId: string, status: 'opened' | 'won' | 'lost') {
  await sim.settleCallbacks();
  return temporal.workflow.getHandle(chargebackWorkflowId(chargebackId, status)).result();
}

/** A one-time card sale paid at the simulator: the sale and its gateway payment. */
async function paidSale(amount: number) {
  const c = await makeCheckout(api.orm, temporal, { amount, taskQueue: QUEUE });
  const res = await confirmCard(c.clientSecret);
  expect(res.status).toBe(200);
  expect(res.body.status).toBe('succeeded');
  const [row] = await sql(
    `select s.id, t.gateway_transaction_id from sales s join transactions t on t.id = s.transaction_id
      where s.checkout_id = ?`,
    [c.id],
  );
  return { c, saleId: row.id as string, paymentId: row.gateway_transaction_id as string };
}

const disputesOf = (saleId: string) =>
  sql('select status, amount::int, lost_amount::int, closed_at is not null as closed from disputes where sale_id = ?', [
    saleId,
  ]);
const books = async (saleId: string) =>
  (
    await sql(
      `select s.charged_back_amount::int as sale_charged_back, t.status as payment_status
         from sales s join transactions t on t.id = s.transaction_id where s.id = ?`,
      [saleId],
    )
  )[0];
const saleEvents = async (organizationId: string) =>
  (
    await sql(
      `select type from events where organization_id = ? and type like 'sale.dispute%' order by created_at, id`,
      [organizationId],
    )
  ).map((e) => e.type as string);
/** The simulator's ledger rows of a payment's disputes, as reconciliation reads them. */
async function disputeRows(paymentId: string) {
  const window = { from: new Date(Date.now() - 86_400_000), to: new Date(Date.now() + 86_400_000) };
  return (await sim.ledger(window))
    .filter((r) => r.gatewayId === paymentId && r.kind === 'dispute')
    .map((r) => r.amount);
}

describe('the simulator: chargebacks', () => {
  it('opens, then is lost: the sale is disputed, then its money is charged back, as the ledger shows', async () => {
    const { c, saleId, paymentId } = await paidSale(10_000);
    const opened = await sim.openChargeback(paymentId);
    expect(opened).toMatchObject({ transactionId: paymentId, amount: 10_000, status: 'opened' });
    expect(await recorded(opened.id, 'opened')).toMatchObject({ status: 'opened' });
    expect(await disputesOf(saleId)).toEqual([{ status: 'opened', amount: 10_000, lost_amount: 0, closed: false }]);
    expect(await books(saleId)).toEqual({ sale_charged_back: 0, payment_status: 'dispute' });
    expect(await saleEvents(c.organizationId)).toEqual(['sale.disputed']);
    // The disputed money is held: no refund can give it back meanwhile.
    await expect(sim.refund(paymentId, 100, `refund-${paymentId}`)).rejects.toThrow('refund exceeds captured amount');

    await sim.decideChargeback(opened.id, 'lost');
    expect(await recorded(opened.id, 'lost')).toMatchObject({ status: 'lost' });
    expect(await disputesOf(saleId)).toEqual([{ status: 'lost', amount: 10_000, lost_amount: 10_000, closed: true }]);
    expect(await books(saleId)).toEqual({ sale_charged_back: 10_000, payment_status: 'charged_back' });
    expect(await saleEvents(c.organizationId)).toEqual(['sale.disputed', 'sale.dispute_closed']);
    expect(await disputeRows(paymentId)).toEqual([-10_000]);
    // Reconciliation explains the money taken as a dispute, to the cent.
    const window = { from: new Date(Date.now() - 86_400_000), to: new Date(Date.now() + 86_400_000) };
    const theirs = (await sim.ledger(window)).filter((r) => r.gatewayId === paymentId);
    const ours = [{ kind: 'payment' as const, gatewayId: paymentId, reference: null, amount: 10_000 }];
    const result = reconcile(ours, theirs);
    expect(result.lines.filter((l) => l.kind === 'dispute')).toEqual([
      expect.objectContaining({ ours: 0, theirs: -10_000, difference: 10_000, reason: 'dispute' }),
    ]);
    expect(sumsToZero(result)).toBe(true);
  });

  it('won: no money is taken, the hold is released, the payment succeeded again', async () => {
    const { c, saleId, paymentId } = await paidSale(5_000);
    // Through the API's sandbox controls this time.
    const res = await api.call('POST', `/api/v1/sandbox/transactions/${paymentId}/chargebacks`, {
      body: { amount: 2_000 },
    });
    expect(res).toMatchObject({ status: 200, body: { transaction_id: paymentId, amount: 2_000, status: 'opened' } });
    const opened = { id: res.body.id as string };
    await recorded(opened.id, 'opened');
    const decided = await api.call('POST', `/api/v1/sandbox/chargebacks/${opened.id}/decide`, {
      body: { outcome: 'won' },
    });
    expect(decided).toMatchObject({ status: 200, body: { status: 'won' } });
    expect(await recorded(opened.id, 'won')).toMatchObject({ status: 'won' });
    expect(await disputesOf(saleId)).toEqual([{ status: 'won', amount: 2_000, lost_amount: 0, closed: true }]);
    expect(await books(saleId)).toEqual({ sale_charged_back: 0, payment_status: 'succeeded' });
    expect(await saleEvents(c.organizationId)).toEqual(['sale.disputed', 'sale.dispute_closed']);
    expect(await disputeRows(paymentId)).toEqual([-2_000, 2_000]);
    // Decided already: the same outcome again changes nothing, the other is refused.
    await expect(sim.decideChargeback(opened.id, 'won')).resolves.toMatchObject({ status: 'won' });
    const again = await api.call('POST', `/api/v1/sandbox/chargebacks/${opened.id}/decide`, {
      body: { outcome: 'lost' },
    });
    expect(again).toMatchObject({ status: 409, body: { code: 'conflict', error: 'The dispute was won already' } });
    const unknown = await api.call('POST', '/api/v1/sandbox/chargebacks/chb_unknown/decide', {
      body: { outcome: 'lost' },
    });
    expect(unknown.status).toBe(404);
  });

  it('a renewal charged back and lost: the subscription goes past due (the default)', async () => {
    const { s, saleId, paymentId } = await renewedSubscription();
    const opened = await sim.openChargeback(paymentId);
    await recorded(opened.id, 'opened');
    expect((await sql('select status from subscriptions where id = ?', [s.id]))[0].status).toBe('active');
    await sim.decideChargeback(opened.id, 'lost');
    expect(await recorded(opened.id, 'lost')).toMatchObject({
      status: 'lost',
      subscription: { subscriptionId: s.id, action: 'past_due' },
    });
    expect((await subscriptionWhen(api, s, (b) => b.status === 'past_due')).status).toBe('past_due');
    expect(await disputesOf(saleId)).toEqual([{ status: 'lost', amount: 4_990, lost_amount: 4_990, closed: true }]);
  });
});

/** A manual monthly subscription bought with a card at the simulator and renewed once (its test clock moved). */
async function renewedSubscription() {
  const org = await makeOrganization(api.orm);
  const c = await makeCheckout(api.orm, temporal, {
    organizationId: org.id,
    recurring: 'month',
    recurrenceBilling: 'manual',
    amount: 4_990,
    taskQueue: QUEUE,
  });
  expect((await confirmCard(c.clientSecret)).status).toBe(200);
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
  return { s, saleId: renewal.id as string, paymentId: renewal.gateway_transaction_id as string };
}
