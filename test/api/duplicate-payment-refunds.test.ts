import { describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import { createCheckoutPaymentActivities, summarize } from '../../activities/checkout-payments.ts';
import { useApi, type TestApi } from '../helpers/api.ts';
import { ledgerOf, makeCheckout } from '../helpers/checkouts.ts';
import { makeOat } from '../helpers/fixtures.ts';
import { waitFor } from '../helpers/processes.ts';

/**
 * A pix a bank pays after the buyer paid the checkout by card is given back automatically, and the
 * merchant sees it (issue 34 §2, decision 0089): a refund of the checkout's sale, reason `duplicate`,
 * its `refund.created` event, the pix's transaction refunded; the gateway refunds it once, however
 * often the refund is asked for again.
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
