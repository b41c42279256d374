import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import type { Browser } from 'playwright-core';
import { useApi, type TestApi } from '../helpers/api.ts';
import { launchBrowser, newContext, pageChecked } from '../helpers/browser.ts';
import { makeCheckout, waitForCheckoutStatus } from '../helpers/checkouts.ts';
import { makeTenant } from '../helpers/fixtures.ts';
import { waitFor } from '../helpers/processes.ts';

/**
 * The merchant sees the pix a bank paid after the card (issue 34 §2, decision 0089): the sale's
 * dashboard page lists its refund, reason `duplicate`, while the sale itself stays paid. A pix paid after
 * its checkout expired without a sale is listed among the refunds, without a sale (decision 0095).
 */
let api: TestApi;
let temporal: Client;
let browser: Browser;
useApi((started) => ({ api, temporal } = started), { callbacksHere: true });
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

const sql = (q: string, params: unknown[] = []): Promise<any[]> => api.orm.em.getConnection().execute(q, params);
const confirm = (secret: string, body: Record<string, unknown>) =>
  api.call('POST', `/api/v1/checkouts/client/${secret}/confirm-sdk`, { body });

describe('merchant dashboard: a duplicate payment refunded', () => {
  it('lists the refund on the sale’s page', async () => {
    const t = await makeTenant(api.orm);
    const c = await makeCheckout(api.orm, temporal, {
      amount: 7_500,
      email: 'ana@example.com',
      organizationId: t.org.id,
    });
    const pix = await confirm(c.clientSecret, { payment_method: 'pix' });
    const pixId = pix.body.gateway_payment_data.transaction_id as string;
    const card = { number: '4111111111111111', holder_name: 'ANA SOUZA', expiration_month: '12' };
    const paid = await confirm(c.clientSecret, {
      payment_method: 'credit_card',
      card: { ...card, expiration_year: '2030', cvv: '123', installments: 1 },
    });
    expect(paid.body.status).toBe('succeeded');
    await api.call('POST', `/api/v1/sandbox/transactions/${pixId}/pay`);
    await waitFor(
      async () =>
        (
          await sql(
            'select 1 from refunds r join transactions t on t.id = r.transaction_id where t.gateway_transaction_id = ?',
            [pixId],
          )
        ).length === 1,
      { what: 'the duplicate refund recorded', timeoutMs: 30_000 },
    );
    const [sale] = await sql('select id from sales where checkout_id = ?', [c.id]);

    const context = await newContext(browser, { locale: 'en-US' });
    try {
      const page = await context.newPage();
      await page.goto(`${api.baseUrl}/dashboard/sign-in?token=${t.ownerJwt}`);
      await page.goto(`${api.baseUrl}/dashboard/${t.org.id}/sales/${sale.id}`);
      const row = page.getByRole('region', { name: 'Refunds' }).getByRole('row', { name: /duplicate/ });
      await expect(row.textContent()).resolves.toMatch(/R\$75\.00.*duplicate.*Succeeded/);
      await pageChecked(page, 'dashboard-duplicate-refund');
    } finally {
      await context.close();
    }
  });

  it('lists a refund without a sale on the refunds page', async () => {
    const t = await makeTenant(api.orm);
    const c = await makeCheckout(api.orm, temporal, { amount: 6_400, organizationId: t.org.id, expiresInMs: 25_000 });
    const pix = await confirm(c.clientSecret, { payment_method: 'pix' });
    const pixId = pix.body.gateway_payment_data.transaction_id as string;
    const card = { number: '4000000000000002', holder_name: 'ANA SOUZA', expiration_month: '12' };
    const declined = await confirm(c.clientSecret, {
      payment_method: 'credit_card',
      card: { ...card, expiration_year: '2030', cvv: '123', installments: 1 },
    });
    expect(declined.status).toBe(422);
    // A bank pays the pix the buyer gave up; the checkout expires without a sale, and the pix is given back.
    expect((await api.call('POST', `/api/v1/sandbox/transactions/${pixId}/pay`)).body.status).toBe('succeeded');
    await waitForCheckoutStatus(api.orm, c.id, 'expired', 40_000);
    await waitFor(async () => (await sql('select 1 from refunds where organization_id = ?', [t.org.id])).length === 1, {
      what: 'the late payment refund recorded',
      timeoutMs: 30_000,
    });

    const context = await newContext(browser, { locale: 'en-US' });
    try {
      const page = await context.newPage();
      await page.goto(`${api.baseUrl}/dashboard/sign-in?token=${t.ownerJwt}`);
      await page.goto(`${api.baseUrl}/dashboard/${t.org.id}/refunds`);
      const row = page.getByRole('row', { name: /late_payment/ });
      await expect(row.textContent()).resolves.toMatch(/No sale.*R\$64\.00.*late_payment: checkout expired.*Succeeded/);
      await expect(row.getByRole('link').count()).resolves.toBe(0);
      await pageChecked(page, 'dashboard-refund-without-sale');
    } finally {
      await context.close();
    }
  });
});
