import { describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import { createCheckoutPaymentActivities, summarize } from '../../activities/checkout-payments.ts';
import { useApi, type TestApi } from '../helpers/api.ts';
import { ledgerOf, makeCheckout, waitForCheckoutStatus } from '../helpers/checkouts.ts';
import { makeOat } from '../helpers/fixtures.ts';
import { waitFor } from '../helpers/processes.ts';

/**
 * A pix a bank pays after the buyer paid the checkout by card is given back automatically, and the
 * merchant sees it (issue 34 §2, decision 0089): a refund of the checkout's sale, reason `duplicate`,
 * its `refund.created` event, the pix's transaction refunded; the gateway refunds it once, however
 * often the refund is asked for again. A pix paid after its checkout expired without a sale is a refund
 * too, of the payment alone (decision 0095).
 */
let api: TestApi;
let temporal: Client;
useApi((started) => ({ api, temporal } = started), { callbacksHere: true });

const sql = (q: string, params: unknown[] = []): Promise<any[]> => api.orm.em.getConnection().execute(q, params);
const confirm = (secret: string, body: Record<string, unknown>) =>
  api.call('POST', `/api/v1/checkouts/client/${secret}/confirm-sdk`, { body });
const card = { number: '4111111111111111', holder_name: 'ANA SOUZA', expiration_month: '12', expiration_year: '2030' };

describe('a pix paid after the card', () => {
  it('is recorded as a duplicate refund of the sale, shown on its transaction, refunded at the gateway once', async () => {
    const c = await makeCheckout(api.orm, temporal, { amount: 7_500, email: 'ana@example.com' });
    const pix = await confirm(c.clientSecret, { payment_method: 'pix' });
    const pixId = pix.body.gateway_payment_data.transaction_id as string;
    const paid = await confirm(c.clientSecret, {
      payment_method: 'credit_card',
      card: { ...card, cvv: '123', installments: 1 },
    });
    expect([paid.status, paid.body.status]).toEqual([200, 'succeeded']);
    const [sale] = await sql('select id, status, refunded_amount::int from sales where checkout_id = ?', [c.id]);

    // The bank pays the cancelled pix anyway.
    const late = await api.call('POST', `/api/v1/sandbox/transactions/${pixId}/pay`);
    expect(late.body.status).toBe('succeeded');
    const pixRow = async () =>
      (
        await sql('select id, status, refunded_amount::int from transactions where gateway_transaction_id = ?', [pixId])
      )[0];
    await waitFor(async () => (await pixRow()).status === 'refunded', { what: 'the pix refunded', timeoutMs: 30_000 });
    const rows = async () =>
      sql('select sale_id, amount::int, reason, status from refunds where transaction_id = ?', [(await pixRow()).id]);
    expect(await rows()).toEqual([
      { sale_id: sale.id, amount: 7_500, reason: expect.stringMatching(/^duplicate\b/), status: 'succeeded' },
    ]);
    // The sale is still paid: its own payment, the card, was not refunded.
    expect(await sql('select status, refunded_amount::int from sales where id = ?', [sale.id])).toEqual([
      { status: 'paid', refunded_amount: 0 },
    ]);

    // What the merchant reads: the refund listed on the sale, its event, the pix's transaction refunded.
    const oat = await makeOat(api.orm, c.organizationId, ['refunds:read', 'events:read']);
    const listed = await api.call('GET', `/api/v1/refunds?sale_id=${sale.id}`, { token: oat });
    expect(listed.status).toBe(200);
    expect(listed.body.items).toEqual([
      expect.objectContaining({ sale_id: sale.id, amount: 7_500, currency: 'BRL', status: 'succeeded' }),
    ]);
    const events = await sql(`select type from events where organization_id = ? and type like 'refund.%'`, [
      c.organizationId,
    ]);
    expect(events).toEqual([{ type: 'refund.created' }]);
    const read = await api.call('GET', `/api/v1/transactions/${pixId}`);
    expect([read.status, read.body.status, read.body.amount]).toEqual([200, 'refunded', 7_500]);

    // Asked again (an activity retried after a crash between the gateway's answer and our record): the
    // same key gets the gateway's first refund, and nothing more is recorded.
    const books = (await api.gateway.getTransaction(pixId))!;
    const paidPix = { ...summarize(books), status: 'succeeded', refundedAmount: 0 };
    const activities = createCheckoutPaymentActivities({ orm: api.orm, gateway: api.gateway });
    await activities.refundUnrecordedCapture(c.id, paidPix);
    expect(await ledgerOf(api.orm, c.id)).toEqual({ captures: 2, captured: 15_000, refunds: 1, refunded: 7_500 });
    expect(await rows()).toHaveLength(1);
  });
});

describe('a pix paid for a checkout that expired without a sale', () => {
  it('is recorded as a refund without a sale, with its event, refunded at the gateway once', async () => {
    // Open for 25 seconds: the buyer asks for a pix, then tries a card that is declined, and leaves.
    const c = await makeCheckout(api.orm, temporal, { amount: 6_400, expiresInMs: 25_000 });
    const pix = await confirm(c.clientSecret, { payment_method: 'pix' });
    const pixId = pix.body.gateway_payment_data.transaction_id as string;
    const declined = await confirm(c.clientSecret, {
      payment_method: 'credit_card',
      card: { ...card, number: '4000000000000002', cvv: '123', installments: 1 },
    });
    expect([declined.status, declined.body.code]).toEqual([422, 'payment_declined']);

    // A bank pays the pix the buyer gave up (the simulator's pix lapses with its checkout, so it is paid
    // in the checkout's last seconds); the checkout expires without a sale, and the pix is given back.
    const late = await api.call('POST', `/api/v1/sandbox/transactions/${pixId}/pay`);
    expect(late.body.status).toBe('succeeded');
    await waitForCheckoutStatus(api.orm, c.id, 'expired', 40_000);
    const pixRow = async () =>
      (await sql('select id, status from transactions where gateway_transaction_id = ?', [pixId]))[0];
    await waitFor(async () => (await pixRow()).status === 'refunded', { what: 'the pix refunded', timeoutMs: 30_000 });
    const { id: transactionId } = await pixRow();
    const rows = async () =>
      sql('select id, sale_id, amount::int, reason, status from refunds where transaction_id = ?', [transactionId]);
    const [row] = await rows();
    expect(row).toEqual({
      id: expect.any(String),
      sale_id: null,
      amount: 6_400,
      reason: expect.stringMatching(/^late_payment: checkout expired\b/),
      status: 'succeeded',
    });
    expect(await sql('select count(*)::int as n from sales where checkout_id = ?', [c.id])).toEqual([{ n: 0 }]);

    // What the merchant reads: the refund, in the list and by its id, its event, the pix refunded.
    const oat = await makeOat(api.orm, c.organizationId, ['refunds:read', 'events:read']);
    const expected = {
      id: row.id,
      sale_id: null,
      transaction_id: transactionId,
      amount: 6_400,
      currency: 'BRL',
      reason: row.reason,
      status: 'succeeded',
    };
    const one = await api.call('GET', `/api/v1/refunds/${row.id}`, { token: oat });
    expect([one.status, one.body]).toEqual([200, expect.objectContaining(expected)]);
    const listed = await api.call('GET', '/api/v1/refunds', { token: oat });
    expect([listed.status, listed.body.items]).toEqual([200, [expect.objectContaining(expected)]]);
    const events = await api.call('GET', '/api/v1/events/?type=refund.created', { token: oat });
    expect(events.body.items.map((e: any) => e.data)).toEqual([expect.objectContaining(expected)]);
    const read = await api.call('GET', `/api/v1/transactions/${pixId}`);
    expect([read.status, read.body.status]).toEqual([200, 'refunded']);

    // Asked again (the activity retried after a crash between the gateway's answer and our record): the
    // same key gets the gateway's first refund, and nothing more is recorded.
    const books = (await api.gateway.getTransaction(pixId))!;
    const paidPix = { ...summarize(books), status: 'succeeded', refundedAmount: 0 };
    const activities = createCheckoutPaymentActivities({ orm: api.orm, gateway: api.gateway });
    await activities.refundUnrecordedCapture(c.id, paidPix);
    await activities.refundUnrecordedCapture(c.id, paidPix);
    expect(await ledgerOf(api.orm, c.id)).toEqual({ captures: 1, captured: 6_400, refunds: 1, refunded: 6_400 });
    expect(await rows()).toHaveLength(1);
    expect(
      await sql(`select count(*)::int as n from events where type = 'refund.created' and organization_id = ?`, [
        c.organizationId,
      ]),
    ).toEqual([{ n: 1 }]);
  });
});
