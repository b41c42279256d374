import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import type { Browser, Page } from 'playwright-core';
import { startApi, useApi, type TestApi } from '../helpers/api.ts';
import { launchBrowser, newContext, pageChecked } from '../helpers/browser.ts';
import { makeTenant } from '../helpers/fixtures.ts';
import { paidSubscription } from '../helpers/subscriptions.ts';

/**
 * The dashboard in the merchant's language (decision 0090): the sign-in page in Portuguese for a pt-BR
 * browser, with no developer steps, and a refund taken in reais with the refundable balance shown, an
 * amount above it refused before any confirmation; English on request. Amounts are read back from the API.
 */
let api: TestApi;
let temporal: Client;
let browser: Browser;
useApi((started) => ({ api, temporal } = started));

let t: Awaited<ReturnType<typeof makeTenant>>;
let saleId: string;

beforeAll(async () => {
  browser = await launchBrowser();
  t = await makeTenant(api.orm);
  const { row } = await paidSubscription(api, temporal, {
    organizationId: t.org.id,
    recurrenceBilling: 'gateway',
    amount: 9_990,
  });
  const sales = await api.call('GET', `/api/v1/sales/?subscription_id=${row.id}`, { token: t.oat });
  saleId = sales.body.items[0].id;
});
afterAll(async () => {
  await browser?.close();
});

const salePath = () => `${api.baseUrl}/dashboard/${t.org.id}/sales/${saleId}`;
const refunds = async () => (await api.call('GET', `/api/v1/refunds/?sale_id=${saleId}`, { token: t.oat })).body.items;

async function signedIn(locale: string): Promise<{ page: Page; close: () => Promise<void> }> {
  const context = await newContext(browser, { locale });
  const page = await context.newPage();
  await page.goto(`${api.baseUrl}/dashboard/sign-in?token=${t.ownerJwt}`);
  return { page, close: () => context.close() };
}

describe('merchant dashboard in Portuguese: sign-in and a refund in reais', () => {
  it('speaks Portuguese on the sign-in page to a pt-BR browser, without developer steps', async () => {
    const context = await newContext(browser, { locale: 'pt-BR' });
    try {
      const page = await context.newPage();
      await page.goto(`${api.baseUrl}/dashboard/sign-in`);
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Entrar');
      await expect(page.getByLabel('Token de acesso', { exact: true }).isVisible()).resolves.toBe(true);
      expect(await page.locator('main').textContent()).not.toMatch(/npm|JWT/);
      await page.getByLabel('Token de acesso', { exact: true }).fill('not-a-jwt');
      await page.getByRole('button', { name: 'Entrar' }).click();
      await expect(page.getByRole('alert').textContent()).resolves.toContain('Este token não foi aceito.');
      await pageChecked(page, 'dashboard-sign-in-pt');
    } finally {
      await context.close();
    }
  });

  it('takes a refund in reais, shows the balance, and refuses more than it before confirming', async () => {
    const { page, close } = await signedIn('pt-BR');
    try {
      await page.goto(salePath());
      const nav = page.getByRole('navigation', { name: 'Seções' });
      await expect(nav.getByRole('link', { name: 'Vendas' }).getAttribute('aria-current')).resolves.toBe('page');
      await expect(page.getByRole('button', { name: 'Sair' }).isVisible()).resolves.toBe(true);
      await expect(page.getByTestId('refundable').textContent()).resolves.toMatch(/^Reembolsável: R\$\s99,90$/);
      await page.getByLabel('Valor (R$, opcional)').fill('R$ 12,34');
      await page.getByRole('button', { name: 'Revisar o reembolso' }).click();
      await expect(page.getByTestId('refund-amount').textContent()).resolves.toMatch(/^R\$\s12,34$/);
      await page.getByRole('button', { name: 'Reembolsar', exact: true }).click();
      await page.waitForURL(/done=(succeeded|pending)$/);
      expect(await refunds()).toEqual([expect.objectContaining({ amount: 1_234 })]);

      // 99,90 paid less 12,34 refunded.
      await expect(page.getByTestId('refundable').textContent()).resolves.toMatch(/^Reembolsável: R\$\s87,56$/);
      await page.getByLabel('Valor (R$, opcional)').fill('87,57');
      await page.getByRole('button', { name: 'Revisar o reembolso' }).click();
      await expect(page.getByRole('alert').textContent()).resolves.toMatch(
        /^O valor é maior que o reembolsável \(R\$\s87,56\)\.$/,
      );
      await expect(page.getByTestId('refund-amount').count()).resolves.toBe(0);
      await expect(page.getByLabel('Valor (R$, opcional)').inputValue()).resolves.toBe('87,57');
      await pageChecked(page, 'dashboard-refund-over-balance-pt');
      expect(await refunds()).toHaveLength(1);
    } finally {
      await close();
    }
  });

  it('shows the balance and the refusal in English on request', async () => {
    const { page, close } = await signedIn('en-US');
    try {
      await page.goto(salePath());
      const nav = page.getByRole('navigation', { name: 'Sections' });
      await expect(nav.getByRole('link', { name: 'Sales' }).getAttribute('aria-current')).resolves.toBe('page');
      await expect(page.getByTestId('refundable').textContent()).resolves.toBe('Refundable: R$87.56');
      await page.getByLabel('Amount (R$, optional)').fill('100');
      await page.getByRole('button', { name: 'Review the refund' }).click();
      await expect(page.getByRole('alert').textContent()).resolves.toBe(
        'That is more than the refundable balance (R$87.56).',
      );
      await pageChecked(page, 'dashboard-refund-over-balance-en');
      expect(await refunds()).toHaveLength(1);
    } finally {
      await close();
    }
  });
});

describe('a dashboard page past the rate limit', () => {
  // Its own API process, with a limit a few page loads reach.
  let limited: TestApi;
  beforeAll(async () => {
    limited = await startApi({ RATE_LIMIT_MAX: '3' });
  });
  afterAll(async () => {
    await limited?.close();
  });

  it('is a page in pt-BR that says how long to wait, not JSON', async () => {
    const context = await newContext(browser, { locale: 'pt-BR' });
    try {
      const page = await context.newPage();
      let response = null;
      for (let i = 0; i < 10 && response?.status() !== 429; i++) {
        response = await page.goto(`${limited.baseUrl}/dashboard/sign-in`);
      }
      expect(response?.status()).toBe(429);
      expect(response?.headers()['content-type']).toMatch(/^text\/html/);
      await page.getByRole('heading', { level: 1, name: 'Muitas tentativas em pouco tempo' }).waitFor();
      const text = (await page.locator('main').textContent()) ?? '';
      expect(text).toContain(`Aguarde ${response?.headers()['retry-after']} segundo`);
      expect(text).not.toMatch(/rate_limited|Rate limit|\{/);
      await pageChecked(page, 'dashboard-rate-limited');
    } finally {
      await context.close();
    }
  });
});
