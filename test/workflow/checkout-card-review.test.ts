import { beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import type { SimulatedGateway } from '@billing/simulated-gateway';
import type { TestApi } from '../helpers/api.ts';
import { simulatorQueueStack } from '../helpers/mercadopago-stack.ts';
import { checkoutRow, ledgerOf, makeCheckout, waitForCheckoutStatus } from '../helpers/checkouts.ts';
import { waitFor } from '../helpers/processes.ts';

/**
 * A card the gateway holds for review (decision 0070), on the simulator: its test cards 4000000000001505
 * (approved when the review ends) and 4000000000002503 (declined), the review ended by the sandbox's
 * `endReview`. The checkout waits on it as on a pix: the API and a worker of this file's own task queue,
 * with a review wait of a few seconds so that its deadline comes within the test.
 */
const QUEUE = 'billing-test-card-review';
const REVIEW_WAIT_SECONDS = 6;
const stack = simulatorQueueStack(QUEUE, { CARD_REVIEW_WAIT_SECONDS: String(REVIEW_WAIT_SECONDS) });
let api: TestApi;
let temporal: Client;
let sim: SimulatedGateway;
beforeAll(() => {
  ({ api, temporal, sim } = stack);
});

const APPROVE = '4111111111111111';
const REVIEW_THEN_APPROVE = '4000000000001505';
const REVIEW_THEN_DECLINE = '4000000000002503';
const card = (number: string) => ({
  number,
  holder_name: 'Ana Souza',
  expiration_month: '12',
  expiration_year: '2031',
  cvv: '123',
  installments: 1,
});
const sql = (q: string, params: unknown[] = []): Promise<any[]> => api.orm.em.getConnection().execute(q, params);
const confirm = (clientSecret: string, body: unknown) =>
  api.call('POST', `/api/v1/checkouts/client/${clientSecret}/confirm-sdk`, { body });
const newCheckout = (amount = 8_000) => makeCheckout(api.orm, temporal, { amount, taskQueue: QUEUE });
const gatewayStatus = async (id: string) => (await sim.getTransaction(id))!.status;
const sales = (checkoutId: string) => sql('select status, amount::int from sales where checkout_id = ?', [checkoutId]);

/** The card held for review: the confirmation answers pending, the checkout stays confirmed and shows it. */
async function underReview(clientSecret: string, checkoutId: string): Promise<string> {
  const res = await confirm(clientSecret, { payment_method: 'credit_card', card: card(REVIEW_THEN_APPROVE) });
  return pendingAnswer(res, checkoutId);
}

async function pendingAnswer(res: { status: number; body: any }, checkoutId: string): Promise<string> {
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({
    status: 'confirmed',
    payment_method: 'credit_card',
    gateway_payment_data: { status: 'pending', review: { until: expect.any(String) } },
  });
  const id = res.body.gateway_payment_data.transaction_id as string;
  expect(await gatewayStatus(id)).toBe('pending');
  const row = await checkoutRow(api.orm, checkoutId);
  expect(row.status).toBe('confirmed');
  expect(row.gateway_payment_data).toMatchObject({ transaction_id: id, status: 'pending' });
  return id;
}

describe('a card under review at the simulator', () => {
  it('approved when its review ends: one capture, one sale, and the buyer could not pay twice meanwhile', async () => {
    const c = await newCheckout();
    const id = await underReview(c.clientSecret, c.id);
    // The page polls the public checkout: under review, not declined.
    const view = await api.call('GET', `/api/v1/checkouts/client/${c.clientSecret}`);
    expect(view.body).toMatchObject({ status: 'confirmed', gateway_payment_data: { status: 'pending' } });

    await sim.endReview(id);
    await sim.settleCallbacks();
    await waitForCheckoutStatus(api.orm, c.id, 'succeeded');
    expect(await ledgerOf(api.orm, c.id)).toMatchObject({ captures: 1, captured: 8_000, refunds: 0 });
    expect(await sales(c.id)).toEqual([{ status: 'paid', amount: 8_000 }]);
    const transactions = await sql('select status, gateway_transaction_id from transactions where checkout_id = ?', [
      c.id,
    ]);
    expect(transactions).toEqual([{ status: 'succeeded', gateway_transaction_id: id }]);
  });

  it('declined when its review ends: open again with the reason, nothing captured', async () => {
    const c = await newCheckout();
    const res = await confirm(c.clientSecret, { payment_method: 'credit_card', card: card(REVIEW_THEN_DECLINE) });
    const id = await pendingAnswer(res, c.id);
    await sim.endReview(id);
    await sim.settleCallbacks();
    const reopened = await waitForCheckoutStatus(api.orm, c.id, 'open');
    expect(reopened.decline_reason).toBe('fraud_suspected');
    expect(await ledgerOf(api.orm, c.id)).toMatchObject({ captures: 0 });
    expect(await sales(c.id)).toEqual([]);
    // Another card pays it.
    const again = await confirm(c.clientSecret, { payment_method: 'credit_card', card: card(APPROVE) });
    expect([again.status, again.body.status]).toEqual([200, 'succeeded']);
  });

  it('still under review at its deadline: cancelled at the gateway, the checkout open again', async () => {
    const c = await newCheckout();
    const id = await underReview(c.clientSecret, c.id);
    const reopened = await waitForCheckoutStatus(api.orm, c.id, 'open', (REVIEW_WAIT_SECONDS + 20) * 1000);
    expect(reopened.decline_reason).toBe('review_expired');
    expect(await gatewayStatus(id)).toBe('canceled');
    expect(await ledgerOf(api.orm, c.id)).toMatchObject({ captures: 0 });
    await sim.settleCallbacks();
  }, 60_000);

  it('another card while under review: the first is cancelled at the gateway before the second is charged', async () => {
    const c = await newCheckout();
    const first = await underReview(c.clientSecret, c.id);
    const second = await confirm(c.clientSecret, { payment_method: 'credit_card', card: card(APPROVE) });
    expect([second.status, second.body.status]).toEqual([200, 'succeeded']);
    expect(await gatewayStatus(first)).toBe('canceled');
    expect(second.body.gateway_payment_data.transaction_id).not.toBe(first);
    expect(await ledgerOf(api.orm, c.id)).toMatchObject({ captures: 1, captured: 8_000 });
    expect(await sales(c.id)).toEqual([{ status: 'paid', amount: 8_000 }]);
    await sim.settleCallbacks();
  });

  it('a pix instead while under review: the card is cancelled first, the pix issued', async () => {
    const c = await newCheckout();
    const first = await underReview(c.clientSecret, c.id);
    const pix = await confirm(c.clientSecret, { payment_method: 'pix' });
    expect(pix.status).toBe(200);
    expect(pix.body).toMatchObject({ status: 'confirmed', payment_method: 'pix', gateway_payment_data: { pix: {} } });
    expect(await gatewayStatus(first)).toBe('canceled');
    await sim.settleCallbacks();
  });

  it('approved before the other card reached the workflow: that approval is the sale, the other card is refused', async () => {
    const c = await newCheckout();
    const first = await underReview(c.clientSecret, c.id);
    // The review ends approved, its notice lost: only the cancellation before the new try finds it.
    const callbackUrl = sim.callbacks.callbackUrl;
    sim.callbacks.callbackUrl = undefined;
    try {
      await sim.endReview(first);
    } finally {
      sim.callbacks.callbackUrl = callbackUrl;
    }
    const second = await confirm(c.clientSecret, { payment_method: 'credit_card', card: card(APPROVE) });
    expect(second.status).toBe(409);
    const paid = await waitForCheckoutStatus(api.orm, c.id, 'succeeded');
    expect(paid.gateway_payment_data).toMatchObject({ transaction_id: first, status: 'succeeded' });
    expect(await ledgerOf(api.orm, c.id)).toMatchObject({ captures: 1, captured: 8_000 });
    expect(await sales(c.id)).toHaveLength(1);
  });

  it('an approval that crosses the cancellation of a card given up is refunded and recorded', async () => {
    const c = await newCheckout();
    const first = await underReview(c.clientSecret, c.id);
    const second = await confirm(c.clientSecret, { payment_method: 'credit_card', card: card(APPROVE) });
    expect(second.body.status).toBe('succeeded');
    expect(await gatewayStatus(first)).toBe('canceled');
    // The issuer's approval was already on its way: the gateway captures the cancelled card after all.
    await sim.endReview(first);
    await sim.settleCallbacks();
    await waitFor(async () => (await ledgerOf(api.orm, c.id)).refunds === 1, {
      what: 'the crossing approval to be refunded',
      timeoutMs: 20_000,
    });
    expect(await ledgerOf(api.orm, c.id)).toMatchObject({ captures: 2, captured: 16_000, refunds: 1, refunded: 8_000 });
    expect(await gatewayStatus(first)).toBe('refunded');
    await waitFor(
      async () =>
        (await sql('select status from transactions where gateway_transaction_id = ?', [first]))[0]?.status ===
        'refunded',
      { what: 'our record of the refunded card', timeoutMs: 10_000 },
    );
    expect(await sales(c.id)).toEqual([{ status: 'paid', amount: 8_000 }]);
    // Refunded once, by the checkout's aftermath or by the payment-notice workflow (decision 0071): both
    // use the checkout's compensation key, so whichever comes second finds it refunded (the ledger above).
    await sim.settleCallbacks();
  });
});
