import { cardPaymentsOf } from '../../gateway/capabilities.ts';
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import { uuidv7 } from 'uuidv7';
import { sellerIdOf } from '../../api/seller-ids.ts';
import { checkoutWorkflowId } from '../../contracts/checkout.ts';
import { keptCardWorkflowId } from '../../contracts/kept-card.ts';
import { paymentNoticeWorkflowId } from '../../contracts/payment-notice.ts';
import { checkoutKeys } from '../../domain/checkout.ts';
import type { TestApi } from '../helpers/api.ts';
import { makeCheckout } from '../helpers/checkouts.ts';
import { makeOrganization } from '../helpers/fixtures.ts';
import { recordHistory } from '../helpers/histories.ts';
import { cardUpdatedNotice } from '../helpers/mercadopago-fake.ts';
import { mercadoPagoTestbed } from '../helpers/mercadopago-testbed.ts';

/**
 * Every payment notice reaches its owner, also after the owner's workflow has ended (issue 33 §3,
 * decision 0071): Mercado Pago's signed `payment` notice, through the real route, with the API and a
 * worker of this file's own task queue on the Mercado Pago adapter over the stateful fake.
 */
const QUEUE = 'billing-test-mercadopago-payment-notices';
const WEBHOOK_SECRET = 'mp-webhook-secret-of-the-payment-notices-test';
const { mp, stack, sql, notifyPayment: notify } = mercadoPagoTestbed(QUEUE, WEBHOOK_SECRET);
let api: TestApi;
let temporal: Client;
beforeAll(() => {
  ({ api, temporal } = stack);
});

/** The run the notice of the payment in `status` started, once it has ended. */
const noticeRun = (paymentId: string, status: string) =>
  temporal.workflow.getHandle(paymentNoticeWorkflowId(paymentId, status)).result();

const transactionOf = async (paymentId: string) =>
  (
    await sql(
      `select checkout_id, status, captured_amount::int, refunded_amount::int, confirmed_at is not null as confirmed
         from transactions where gateway_transaction_id = ?`,
      [paymentId],
    )
  )[0];
const refundCallsOf = (paymentId: string) =>
  mp.requests.filter((r) => r.method === 'POST' && r.path === `/v1/payments/${paymentId}/refunds`);

describe('Mercado Pago: a payment notice after its owner’s workflow ended', () => {
  it('a payment approved for a checkout that ended without a sale is refunded and recorded; repeated, once', async () => {
    const c = await makeCheckout(api.orm, temporal, { amount: 8_000, taskQueue: QUEUE, expiresInMs: 1_000 });
    expect(await temporal.workflow.getHandle(checkoutWorkflowId(c.id)).result()).toEqual({ status: 'expired' });
    // A card payment made for the checkout (its reference) whose answer never reached the engine.
    const payment = await cardPaymentsOf(api.gateway).chargeCard(
      {
        reference: c.id,
        amount: 8_000,
        currency: 'BRL',
        installments: 1,
        noFeesInstallments: true,
        card: { token: mp.browserToken() },
        cardMethod: { paymentMethodId: 'master', issuerId: '24' },
        payer: { email: 'ana@example.com', name: 'Ana Souza' },
        capture: true,
      },
      checkoutKeys.charge(c.id, 1),
    );
    expect(payment.status).toBe('succeeded');

    await notify(payment.id);
    expect(await noticeRun(payment.id, 'succeeded')).toEqual({ owner: 'checkout', synced: true, refunded: 8_000 });
    await recordHistory(temporal, 'payment-notice-refunded', paymentNoticeWorkflowId(payment.id, 'succeeded'));
    // Given back in full at Mercado Pago, under the key the checkout's own workflow gives such money back with.
    expect(refundCallsOf(payment.id).map((r) => [r.key, r.body?.amount])).toEqual([
      [checkoutKeys.compensation(c.id, payment.id), 80],
    ]);
    expect(mp.payments.get(payment.id)).toMatchObject({ status: 'refunded', transaction_amount_refunded: 80 });
    expect(await transactionOf(payment.id)).toEqual({
      checkout_id: c.id,
      status: 'refunded',
      captured_amount: 8_000,
      refunded_amount: 8_000,
      confirmed: true,
    });
    expect(await sql('select id from sales where checkout_id = ?', [c.id])).toEqual([]);

    // Mercado Pago notifies the refund, and repeats itself: nothing is refunded or changed twice.
    await notify(payment.id);
    await notify(payment.id);
    expect(await noticeRun(payment.id, 'refunded')).toEqual({ owner: 'checkout', synced: false, refunded: 0 });
    expect(refundCallsOf(payment.id)).toHaveLength(1);
    expect(await transactionOf(payment.id)).toMatchObject({ status: 'refunded', refunded_amount: 8_000 });
  });

  it('a direct transaction’s pix paid after its workflow ended: the record says paid; repeated, unchanged', async () => {
    const org = await makeOrganization(api.orm);
    const res = await api.call('POST', '/api/v1/transactions/direct', {
      body: { seller_id: sellerIdOf(org.id), amount: 4_200, payment_type: 'pix', customer_email: 'ana@example.com' },
      headers: { 'idempotency-key': uuidv7() },
    });
    expect([res.status, res.body.status]).toEqual([201, 'pending']);
    const paymentId = res.body.transaction_id as string;

    mp.pay(paymentId);
    await notify(paymentId);
    expect(await noticeRun(paymentId, 'succeeded')).toEqual({ owner: 'direct', synced: true, refunded: 0 });
    expect(await transactionOf(paymentId)).toEqual({
      checkout_id: null,
      status: 'succeeded',
      captured_amount: 4_200,
      refunded_amount: 0,
      confirmed: true,
    });

    await notify(paymentId);
    expect(await noticeRun(paymentId, 'succeeded')).toEqual({ owner: 'direct', synced: false, refunded: 0 });
    expect(refundCallsOf(paymentId)).toEqual([]);
  });
});

describe('Mercado Pago: Card Updater', () => {
  it('a kept card replaced by its issuer: the subscription charges the new card; repeated, once', async () => {
    const org = await makeOrganization(api.orm);
    const c = await makeCheckout(api.orm, temporal, {
      organizationId: org.id,
      recurring: 'month',
      recurrenceBilling: 'manual',
      amount: 4_990,
      taskQueue: QUEUE,
    });
    const paid = await api.call('POST', `/api/v1/checkouts/client/${c.clientSecret}/confirm-sdk`, {
      body: { payment_method: 'credit_card', card_token: mp.cardToken() },
    });
    expect(paid.status).toBe(200);
    const [s] = await sql('select id, card_token_id from subscriptions where checkout_id = ?', [c.id]);
    // The kept card's id: its customer and card, then its payment method and issuer (decision 0074).
    const [, customerId, oldCardId] = /^mpcard:([^:]+):([^:]+):master:24$/.exec(s.card_token_id)!;

    const newCardId = mp.replaceCard(customerId!, oldCardId!);
    const updated = cardUpdatedNotice(customerId!, oldCardId!, newCardId, WEBHOOK_SECRET);
    const post = () => api.call('POST', updated.path, { body: updated.body, headers: updated.headers });
    expect([(await post()).status]).toEqual([200]);
    const run = temporal.workflow.getHandle(
      keptCardWorkflowId(`mpcard:${customerId}:${oldCardId}`, `mpcard:${customerId}:${newCardId}`),
    );
    expect(await run.result()).toEqual({ replacedOn: [s.id] });
    await recordHistory(temporal, 'kept-card-replaced', run.workflowId);
    const [after] = await sql('select card_token_id from subscriptions where id = ?', [s.id]);
    expect(after.card_token_id).toBe(`mpcard:${customerId}:${newCardId}:master:24`);
    const events = () =>
      sql(`select data from events where organization_id = ? and type = 'subscription.updated'`, [org.id]);
    expect(await events()).toHaveLength(1);

    // Mercado Pago sends it again: nothing changes twice.
    const again = cardUpdatedNotice(customerId!, oldCardId!, newCardId, WEBHOOK_SECRET);
    expect((await api.call('POST', again.path, { body: again.body, headers: again.headers })).status).toBe(200);
    expect(await temporal.workflow.getHandle(run.workflowId).result()).toEqual({ replacedOn: [] });
    expect(await events()).toHaveLength(1);
  });

  it('a replacement Mercado Pago does not answer as a kept card changes nothing', async () => {
    const forged = cardUpdatedNotice('000-nobody', 'card1', 'card2', WEBHOOK_SECRET);
    expect((await api.call('POST', forged.path, { body: forged.body, headers: forged.headers })).status).toBe(200);
    const run = temporal.workflow.getHandle(keptCardWorkflowId('mpcard:000-nobody:card1', 'mpcard:000-nobody:card2'));
    expect(await run.result()).toEqual({ replacedOn: [], reason: 'unknown_card' });
  });
});
