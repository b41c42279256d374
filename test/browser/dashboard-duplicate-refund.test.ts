import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import type { Browser } from 'playwright-core';
import { useApi, type TestApi } from '../helpers/api.ts';
import { launchBrowser, newContext, pageChecked } from '../helpers/browser.ts';
import { makeCheckout } from '../helpers/checkouts.ts';
import { makeTenant } from '../helpers/fixtures.ts';
import { waitFor } from '../helpers/processes.ts';

/**
 * The merchant sees the pix a bank paid after the card (issue 34 §2, decision 0089): the sale's
 * dashboard page lists its refund, reason `duplicate`, while the sale itself stays paid.
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
});
