import { beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import type { TestApi } from '../helpers/api.ts';
import { mercadoPagoStack } from '../helpers/mercadopago-stack.ts';
import { makeCheckout, waitForCheckoutStatus } from '../helpers/checkouts.ts';
import { fakeMercadoPago, paymentNotice } from '../helpers/mercadopago-fake.ts';
import { waitFor } from '../helpers/processes.ts';
import { makeOat } from '../helpers/fixtures.ts';
import { subscriptionWhen, advancePastPeriodEnd } from '../helpers/subscriptions.ts';
import { checkoutWorkflowId } from '../../contracts/checkout.ts';
import { paymentNoticeWorkflowId } from '../../contracts/payment-notice.ts';

/**
 * A card payment Mercado Pago answers `in_process` (its review; the test card holder `CONT`) keeps the
 * checkout waiting (decision 0070) instead of reopening it for a second card that would charge the buyer
 * twice once the first is approved. The API and a worker of this file's own queue over the stateful fake,
 * with a review wait of a few seconds so that its deadline comes within the test.
 */
const QUEUE = 'billing-test-mercadopago-review';
const WEBHOOK_SECRET = 'mp-webhook-secret-of-the-review-test';
const REVIEW_WAIT_SECONDS = 6;
const mp = fakeMercadoPago();
const stack = mercadoPagoStack(QUEUE, {
  MERCADOPAGO_WEBHOOK_SECRET: WEBHOOK_SECRET,
  CARD_REVIEW_WAIT_SECONDS: String(REVIEW_WAIT_SECONDS),
});
let api: TestApi;
let temporal: Client;
beforeAll(() => {
  ({ api, temporal } = stack);
});

const sql = (q: string, params: unknown[] = []): Promise<any[]> => api.orm.em.getConnection().execute(q, params);
const confirm = (clientSecret: string, body: unknown) =>
  api.call('POST', `/api/v1/checkouts/client/${clientSecret}/confirm-sdk`, { body });
const payByCard = (clientSecret: string, holder = 'APRO') =>
  confirm(clientSecret, { payment_method: 'credit_card', card_token: mp.cardToken(holder) });
const newCheckout = () => makeCheckout(api.orm, temporal, { amount: 12_000, taskQueue: QUEUE });
const sales = (checkoutId: string) => sql('select status, amount::int from sales where checkout_id = ?', [checkoutId]);
const paymentsOf = (reference: string) => [...mp.payments.values()].filter((p) => p.metadata?.reference === reference);
/** Mercado Pago's signed `payment` notice of payment `id`. */
async function notify(id: string): Promise<void> {
  const n = paymentNotice(id, WEBHOOK_SECRET);
  const res = await api.call('POST', n.path, { body: n.body, headers: n.headers });
  expect(res.status).toBe(200);
}

/** A `CONT` card: the payment is in_process, the confirmation answers pending and the checkout waits. */
async function underReview(c: { id: string; clientSecret: string }): Promise<string> {
  const res = await payByCard(c.clientSecret, 'CONT');
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({
    status: 'confirmed',
    payment_method: 'credit_card',
    gateway_payment_data: { status: 'pending', review: { until: expect.any(String) } },
  });
  const id = res.body.gateway_payment_data.transaction_id as string;
  expect(mp.payments.get(id)).toMatchObject({ status: 'in_process', status_detail: 'pending_contingency' });
  const [row] = await sql('select status from checkouts where id = ?', [c.id]);
  expect(row).toEqual({ status: 'confirmed' });
  return id;
}

describe('Mercado Pago: a card in_process', () => {
  it('approved minutes later: the notice makes the one sale, one payment at the gateway', async () => {
    const c = await newCheckout();
    const id = await underReview(c);
    mp.approve(id);
    await notify(id);
    await waitForCheckoutStatus(api.orm, c.id, 'succeeded');
    expect(await sales(c.id)).toEqual([{ status: 'paid', amount: 12_000 }]);
    expect(paymentsOf(c.id).map((p) => p.status)).toEqual(['approved']);
    const [t] = await sql('select status, gateway_transaction_id from transactions where checkout_id = ?', [c.id]);
    expect(t).toEqual({ status: 'succeeded', gateway_transaction_id: id });
  });

  it('rejected by the review: the checkout opens again with the reason, and another card pays', async () => {
    const c = await newCheckout();
    const id = await underReview(c);
    mp.reject(id);
    await notify(id);
    const reopened = await waitForCheckoutStatus(api.orm, c.id, 'open');
    expect(reopened.decline_reason).toBe('fraud_suspected');
    expect(await sales(c.id)).toEqual([]);
    const again = await payByCard(c.clientSecret);
    expect([again.status, again.body.status]).toEqual([200, 'succeeded']);
  });

  it('still in_process at its deadline: cancelled at Mercado Pago, the checkout open again', async () => {
    const c = await newCheckout();
    const id = await underReview(c);
    const reopened = await waitForCheckoutStatus(api.orm, c.id, 'open', (REVIEW_WAIT_SECONDS + 20) * 1000);
    expect(reopened.decline_reason).toBe('review_expired');
    expect(mp.payments.get(id)).toMatchObject({ status: 'cancelled' });
    const cancel = mp.requests.filter((r) => r.method === 'PUT' && r.path === `/v1/payments/${id}`);
    expect(cancel.map((r) => r.body)).toEqual([{ status: 'cancelled' }]);
  }, 60_000);

  it('another card while in_process: the first payment is cancelled before the second is made', async () => {
    const c = await newCheckout();
    const first = await underReview(c);
    const second = await payByCard(c.clientSecret);
    expect([second.status, second.body.status]).toEqual([200, 'succeeded']);
    expect(mp.payments.get(first)).toMatchObject({ status: 'cancelled' });
    const cancelAt = mp.requests.findIndex((r) => r.method === 'PUT' && r.path === `/v1/payments/${first}`);
    const secondAt = mp.requests.findIndex(
      (r, i) =>
        i > cancelAt && r.method === 'POST' && r.path === '/v1/payments' && r.body?.metadata?.reference === c.id,
    );
    expect(cancelAt).toBeGreaterThanOrEqual(0);
    expect(secondAt).toBeGreaterThan(cancelAt);
    expect(paymentsOf(c.id).map((p) => p.status)).toEqual(['cancelled', 'approved']);
    expect(await sales(c.id)).toEqual([{ status: 'paid', amount: 12_000 }]);
  });

  it('approved before the cancellation of another try: that payment is the sale, the other try is refused', async () => {
    const c = await newCheckout();
    const first = await underReview(c);
    mp.approve(first); // its notice not yet arrived
    const second = await payByCard(c.clientSecret);
    expect(second.status).toBe(409);
    await waitForCheckoutStatus(api.orm, c.id, 'succeeded');
    expect(paymentsOf(c.id).map((p) => p.status)).toEqual(['approved']);
    expect(await sales(c.id)).toEqual([{ status: 'paid', amount: 12_000 }]);
  });

  it('an approval that crosses the cancellation of a card given up is refunded and recorded', async () => {
    const c = await newCheckout();
    const first = await underReview(c);
    const second = await payByCard(c.clientSecret);
    expect(second.body.status).toBe('succeeded');
    mp.approve(first); // the issuer's approval crossed the seller's cancellation
    await notify(first);
    await waitFor(async () => mp.payments.get(first)!.status === 'refunded', {
      what: 'the crossing approval to be refunded',
      timeoutMs: 20_000,
    });
    const refunds = mp.requests.filter((r) => r.method === 'POST' && r.path === `/v1/payments/${first}/refunds`);
    expect(refunds.map((r) => r.body)).toEqual([{ amount: 120 }]);
    await waitFor(
      async () =>
        (await sql('select status from transactions where gateway_transaction_id = ?', [first]))[0]?.status ===
        'refunded',
      { what: 'our record of the refunded payment', timeoutMs: 10_000 },
    );
    expect(await sales(c.id)).toEqual([{ status: 'paid', amount: 12_000 }]);
    // Refunded once (the requests above), by the checkout's aftermath or by the payment-notice workflow
    // (decision 0071), whichever saw the approval first: the run that refunded it is flagged for an operator.
    const issueOf = async (workflowId: string) =>
      (
        await temporal.workflow
          .getHandle(workflowId)
          .describe()
          .catch(() => null)
      )?.searchAttributes.PaymentIssue;
    // The flag follows the refund's record in the run's next workflow task: waited for.
    let flagged: unknown[] = [];
    await waitFor(
      async () => {
        flagged = [
          await issueOf(checkoutWorkflowId(c.id)),
          await issueOf(paymentNoticeWorkflowId(first, 'succeeded')),
        ].filter(Boolean);
        return flagged.length > 0;
      },
      { what: 'the run that refunded the approval to be flagged', timeoutMs: 10_000 },
    );
    expect(
      flagged.flat().every((f) => ['abandoned_payment_refunded', 'late_payment_undone'].includes(f as string)),
    ).toBe(true);
  });

  it("a subscription's first payment approved after its review keeps its card, as one approved at once does", async () => {
    const c = await makeCheckout(api.orm, temporal, {
      amount: 4_990,
      taskQueue: QUEUE,
      recurring: 'month',
      recurrenceBilling: 'manual',
    });
    const id = await underReview(c);
    const kept = () => mp.requests.filter((r) => r.method === 'POST' && /^\/v1\/customers\/[^/]+\/cards$/.test(r.path));
    expect(kept()).toEqual([]); // not while the payment is under review
    mp.approve(id);
    await notify(id);
    await waitForCheckoutStatus(api.orm, c.id, 'succeeded');
    expect(kept()).toHaveLength(1);
    const [sub] = await sql('select id, card_token_id, current_period_end from subscriptions where checkout_id = ?', [
      c.id,
    ]);
    expect(sub.card_token_id).toMatch(/^mpcard:[^:]+:[^:]+:master:/);

    // The next period renews on that card, as the merchant's charge (decision 0074); its issuer now
    // approves it at once (the test card's holder name would put every payment of it under review).
    const [, customerId, cardId] = (sub.card_token_id as string).split(':');
    mp.keptCardPaysAs(cardId!, 'APRO');
    const s = { id: sub.id as string, oat: await makeOat(api.orm, c.organizationId) };
    await advancePastPeriodEnd(api, s, sub.current_period_end);
    const renewed = await subscriptionWhen(api, s, (b) => b.period_number === 2);
    expect(renewed.charges).toEqual([
      expect.objectContaining({ period_number: 2, amount: 4_990, outcome: 'succeeded' }),
    ]);
    const [renewal] = mp.requests.filter((r) => r.path === '/v1/payments' && r.body?.metadata?.reference === s.id);
    expect(renewal!.body).toMatchObject({ payer: { type: 'customer', id: customerId }, binary_mode: true });
    const minted = mp.requests.filter((r) => r.path === '/v1/card_tokens' && r.key === `${renewal!.key}:token`);
    expect(minted.map((r) => r.body)).toEqual([{ customer_id: customerId, card_id: cardId }]);
  });
});
