import { beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import type { SimulatedGateway } from '@billing/simulated-gateway';
import type { TestApi } from '../helpers/api.ts';
import { simulatorQueueStack } from '../helpers/mercadopago-stack.ts';
import { chargebackBooks } from '../helpers/chargebacks.ts';
import { makeCheckout } from '../helpers/checkouts.ts';
import { makeOat, makeOrganization } from '../helpers/fixtures.ts';
import { subscriptionWhen } from '../helpers/subscriptions.ts';
import { reconcile, sumsToZero } from '../../domain/reconciliation.ts';

/**
 * Chargebacks at the simulator (issue 33 §3, decisions 0072 and 0079): the sandbox opens a dispute
 * of a card payment and decides it; the simulator posts its signed `chargeback.updated` callback, the
 * engine reads the chargeback back and records it against the sale as it does Mercado Pago's. The
 * simulator's ledger holds the disputed money while open and gives it back when won. The API and a
 * worker of this file's own task queue, on the embedded simulator.
 */
const QUEUE = 'billing-test-simulator-chargebacks';
const stack = simulatorQueueStack(QUEUE);
let api: TestApi;
let temporal: Client;
let sim: SimulatedGateway;
beforeAll(() => {
  ({ api, temporal, sim } = stack);
});

const { sql, confirmCard, recorded, paidSale, disputesOf, expectDisputeRecorded, disputeRows } = chargebackBooks(
  () => ({ api, temporal, sim, queue: QUEUE }),
);

describe('the simulator: chargebacks', () => {
  it('opens, then is lost: the sale is disputed, then its money is charged back, as the ledger shows', async () => {
    const sale = await paidSale(10_000);
    const { paymentId } = sale;
    const opened = await sim.openChargeback(paymentId);
    expect(opened).toMatchObject({ transactionId: paymentId, amount: 10_000, status: 'opened' });
    expect(await recorded(opened.id, 'opened')).toMatchObject({ status: 'opened' });
    await expectDisputeRecorded(sale, 'opened', 10_000);
    // The disputed money is held: no refund can give it back meanwhile.
    await expect(sim.refund(paymentId, 100, `refund-${paymentId}`)).rejects.toThrow('refund exceeds captured amount');

    await sim.decideChargeback(opened.id, 'lost');
    expect(await recorded(opened.id, 'lost')).toMatchObject({ status: 'lost' });
    await expectDisputeRecorded(sale, 'lost', 10_000);
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
    const sale = await paidSale(5_000);
    const { paymentId } = sale;
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
    await expectDisputeRecorded(sale, 'won', 2_000);
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
