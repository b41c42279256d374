import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { uuidv7 } from 'uuidv7';
import { useApi, type TestApi } from '../helpers/api.ts';
import { accessibilityViolations, launchBrowser, newContext, screenshot } from '../helpers/browser.ts';
import { makeTenant } from '../helpers/fixtures.ts';
import { paidSubscription } from '../helpers/subscriptions.ts';

/**
 * The dashboard's commerce sections in Chromium, on a subscription sold by a paid card checkout whose
 * workflow runs on the real worker: its list and page (the renewal and dunning timeline with a refused
 * try's reason, the link to its workflow in the Temporal UI, cancel at period end, uncancel and revoke
 * behind confirmations, an extra charge), its sale refunded in part, customers created and searched, and
 * the portal link that signs the customer in. What the pages do is read back from the API.
 */
let api: TestApi;
let temporal: Client;
let browser: Browser;
useApi((started) => ({ api, temporal } = started));

type Tenant = Awaited<ReturnType<typeof makeTenant>>;
let t: Tenant;
let sub: Record<string, any>;
let email: string;

beforeAll(async () => {
  browser = await launchBrowser();
  t = await makeTenant(api.orm);
  // Billed by the gateway, so that it can take an extra charge.
  ({ row: sub } = await paidSubscription(api, temporal, {
    organizationId: t.org.id,
    recurrenceBilling: 'gateway',
    amount: 9_990,
  }));
  email = (await api.call('GET', `/api/v1/customers/${sub.customer_id}`, { token: t.oat })).body.email;
  // A refused renewal try, as the subscription's workflow would have written it.
  await sql(
    `insert into subscription_charges (id, organization_id, subscription_id, period_number, try_number, amount,
       currency, outcome, decline_reason, attempted_at)
     values (?, ?, ?, 2, 1, 9990, 'brl', 'failed', 'insufficient_funds', now())`,
    [uuidv7(), t.org.id, sub.id],
  );
});
afterAll(async () => {
  await browser?.close();
});

const sql = <T = any>(text: string, params: unknown[] = []) => api.orm.em.getConnection().execute<T[]>(text, params);
const section = (name: string) => `${api.baseUrl}/dashboard/${t.org.id}/${name}`;

async function pageChecked(page: Page, name: string) {
  await screenshot(page, `dashboard-${name}`);
  expect(await accessibilityViolations(page)).toEqual([]);
}

async function signedIn(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await newContext(browser, { locale: 'en-US' });
  const page = await context.newPage();
  await page.goto(`${api.baseUrl}/dashboard/sign-in?token=${t.ownerJwt}`);
  return { context, page };
}

const apiGet = async (url: string) => {
  const res = await api.call('GET', url, { token: t.oat });
  expect(res.status).toBe(200);
  return res.body;
};

describe('merchant dashboard: sales and refunds', () => {
  it('refunds part of a sale from its page after a confirmation showing the amount', async () => {
    const { context, page } = await signedIn();
    try {
      await page.goto(section('sales'));
      const row = page.getByRole('row', { name: new RegExp(email) });
      await expect(row.textContent()).resolves.toMatch(/Course.*R\$99\.90.*Card.*1.*Paid/);
      await pageChecked(page, 'sales');
      await row.getByRole('link').first().click();
      await page.waitForURL(/\/sales\/[0-9a-f-]{36}$/);
      const saleId = page.url().split('/').pop()!;

      await page.getByLabel('Amount (R$, optional)').fill('10,00');
      await page.getByLabel('Reason (optional)').fill('Damaged');
      await page.getByRole('button', { name: 'Review the refund' }).click();
      await expect(page.getByTestId('refund-amount').textContent()).resolves.toBe('R$10.00');
      expect((await apiGet(`/api/v1/refunds/?sale_id=${saleId}`)).items).toEqual([]);
      await pageChecked(page, 'refund-confirm');

      await page.getByRole('button', { name: 'Refund', exact: true }).click();
      await page.waitForURL(/done=(succeeded|pending)$/);
      const refunds = await apiGet(`/api/v1/refunds/?sale_id=${saleId}`);
      expect(refunds.items).toEqual([expect.objectContaining({ amount: 1_000, reason: 'Damaged' })]);
      const refundRow = page.getByRole('region', { name: 'Refunds' }).getByRole('row', { name: /Damaged/ });
      await expect(refundRow.textContent()).resolves.toContain('R$10.00');
      await pageChecked(page, 'sale');

      await page.getByRole('link', { name: 'Refunds', exact: true }).click();
      await expect(page.getByRole('row', { name: /Damaged/ }).textContent()).resolves.toContain('R$10.00');
      await pageChecked(page, 'refunds');
    } finally {
      await context.close();
    }
  });
});
