import { describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import { useApi, type TestApi } from '../helpers/api.ts';
import { ledgerOf, makeCheckout, waitForCheckoutStatus } from '../helpers/checkouts.ts';

/**
 * A pix that expires unpaid while its checkout is still open gives way to a new code on the same
 * checkout (issue 34 §1, decision 0089): the checkout opens again, a new pix is a new charge, paying
 * it is the sale, and the expired one can no longer be paid.
 */
let api: TestApi;
let temporal: Client;
useApi((started) => ({ api, temporal } = started), { callbacksHere: true });

const confirm = (secret: string, body: Record<string, unknown>) =>
  api.call('POST', `/api/v1/checkouts/client/${secret}/confirm-sdk`, { body });
const sql = (q: string, params: unknown[] = []): Promise<any[]> => api.orm.em.getConnection().execute(q, params);

describe('an expired pix on an open checkout', () => {
  it('opens the checkout again for a new code; the new one pays it, the expired one cannot', async () => {
    // Open for two hours: its pix is valid for half an hour.
    const c = await makeCheckout(api.orm, temporal, { amount: 4_990, expiresInMs: 2 * 60 * 60 * 1000 });
    const first = await confirm(c.clientSecret, { payment_method: 'pix' });
    expect([first.status, first.body.status]).toEqual([200, 'confirmed']);
    const expiredId = first.body.gateway_payment_data.transaction_id as string;

    const expired = await api.call('POST', `/api/v1/sandbox/transactions/${expiredId}/expire`);
    expect(expired.body.status).toBe('failed');
    const reopened = await waitForCheckoutStatus(api.orm, c.id, 'open');
    expect(reopened.decline_reason).toBe('pix_expired');
    const page = await api.call('GET', `/api/v1/checkouts/client/${c.clientSecret}`);
    expect([page.body.status, page.body.decline_reason]).toEqual(['open', 'pix_expired']);

    const second = await confirm(c.clientSecret, { payment_method: 'pix' });
    expect([second.status, second.body.status]).toEqual([200, 'confirmed']);
    const newId = second.body.gateway_payment_data.transaction_id as string;
    expect(newId).not.toBe(expiredId);
    expect(second.body.gateway_payment_data.pix.qr_code).not.toBe(first.body.gateway_payment_data.pix.qr_code);

    // The expired code is refused by the bank; the new one is paid and is the sale.
    const late = await api.call('POST', `/api/v1/sandbox/transactions/${expiredId}/pay`);
    expect(late.status).toBeGreaterThanOrEqual(400);
    expect((await api.call('POST', `/api/v1/sandbox/transactions/${newId}/pay`)).body.status).toBe('succeeded');
    const paid = await waitForCheckoutStatus(api.orm, c.id, 'succeeded');
    expect(paid.payment_method).toBe('pix');
    expect(await sql('select amount::int from sales where checkout_id = ?', [c.id])).toEqual([{ amount: 4_990 }]);
    expect(await ledgerOf(api.orm, c.id)).toEqual({ captures: 1, captured: 4_990, refunds: 0, refunded: 0 });
  });

  it('fails the checkout as before when it has no time left for a new code', async () => {
    // Open for half a minute: the pix expires with it.
    const c = await makeCheckout(api.orm, temporal, { amount: 4_990, expiresInMs: 30_000 });
    const first = await confirm(c.clientSecret, { payment_method: 'pix' });
    await api.call('POST', `/api/v1/sandbox/transactions/${first.body.gateway_payment_data.transaction_id}/expire`);
    const failed = await waitForCheckoutStatus(api.orm, c.id, 'failed');
    expect(failed.decline_reason).toBe('expired');
  });
});
