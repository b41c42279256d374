import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { useApi, type TestApi } from '../helpers/api.ts';
import { expectAccessibleAtBothSizes, launchBrowser, newContext, screenshot } from '../helpers/browser.ts';
import { makeTenant, unique } from '../helpers/fixtures.ts';
import { waitFor } from '../helpers/processes.ts';
import { scanQrPng } from '../helpers/qr.ts';

/**
 * Pix Automático's pages in Chromium (decision 0096): the buyer pays a Pix Automático checkout's first
 * period with the mandate's QR code, its terms stated before and after; the customer portal then shows
 * the subscription's mandate, and revokes it after a confirmation (the receiver cancels it at the
 * gateway, through the subscription's workflow).
 */
let api: TestApi;
let browser: Browser;
useApi((started) => ({ api } = started), { callbacksHere: true });
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

const sql = <T = any>(text: string, params: unknown[] = []) => api.orm.em.getConnection().execute<T[]>(text, params);
const brl = (cents: number) => `R$\u00a0${(cents / 100).toFixed(2).replace('.', ',')}`;
/** A YYYY-MM-DD day as the pages write it in pt-BR. */
const dayBR = (day: string) => day.split('-').reverse().join('/');

/** One month from `now`, as the day it is in Brasília (UTC−3, no daylight saving), by the calendar, not by our rules. */
function monthLaterInBrasilia(now: Date): string {
  const brasilia = new Date(now.getTime() - 3 * 3_600_000);
  const y = brasilia.getUTCFullYear();
  const m = brasilia.getUTCMonth() + 1;
  const lastDay = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  const d = Math.min(brasilia.getUTCDate(), lastDay);
  return new Date(Date.UTC(y, m, d)).toISOString().slice(0, 10);
}

/** A monthly price of R$ 39,90 sold by a Pix Automático checkout; its page's address. */
async function pixAutomaticoCheckout() {
  const tenant = await makeTenant(api.orm);
  const product = await api.call('POST', '/api/v1/products/', {
    token: tenant.oat,
    body: {
      organization_id: tenant.org.id,
      name: unique('Clube do livro'),
      prices: [{ type: 'recurring', interval: 'month', currency: 'brl', unit_amount: 3_990 }],
    },
  });
  expect(product.status).toBe(201);
  const created = await api.call('POST', '/api/v1/checkouts/', {
    token: tenant.oat,
    body: { product_id: product.body.id, customer_email: 'ana@example.com', recurrence_billing: 'pix_automatico' },
  });
  expect(created.status).toBe(201);
  return { tenant, id: created.body.id as string, url: `${api.baseUrl}/checkout/c/${created.body.client_secret}` };
}

/** Pays the checkout's Pix Automático in the browser, up to its success; the sale's subscription. */
async function paidInBrowser(page: Page) {
  const c = await pixAutomaticoCheckout();
  await page.goto(c.url);
  await page.getByLabel('Pix Automático: pagar todo mês automaticamente').waitFor();
  return c;
}

describe('a Pix Automático checkout page', () => {
  it('offers pix only, states the mandate’s terms, shows its QR code, and turns to success once paid', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    const c = await paidInBrowser(page);
    // Pix only: no card, no boleto.
    const methods = page.locator('input[name="payment_method"]');
    expect(await methods.count()).toBe(1);
    expect(await page.getByLabel('Pix Automático: pagar todo mês automaticamente').isChecked()).toBe(true);
    const terms = page.getByTestId('mandate-terms');
    expect(await terms.getByTestId('mandate-amount').textContent()).toBe(`${brl(3_990)} cobrados todo mês.`);
    await terms.getByText('O primeiro período é pago agora, com o QR code do pix.').waitFor();
    expect(await terms.getByTestId('mandate-next').textContent()).toBe(
      `Próxima cobrança estimada em ${dayBR(monthLaterInBrasilia(new Date()))}.`,
    );
    await terms.getByText(/vai pedir que você autorize as cobranças recorrentes.*valor máximo/).waitFor();
    await terms.getByText(/no app do seu banco ou no portal do cliente/).waitFor();
    await screenshot(page, 'checkout-pix-automatico');
    await expectAccessibleAtBothSizes(page);

    // The mandate names its payer: the browser asks for name and CPF before anything is sent.
    const button = page.getByRole('button', { name: 'Gerar QR code do Pix Automático' });
    await button.click();
    expect(await page.getByLabel('Nome completo').evaluate((i: HTMLInputElement) => i.validity.valueMissing)).toBe(
      true,
    );
    expect((await sql('select status from checkouts where id = ?', [c.id]))[0].status).toBe('open');

    await page.getByLabel('Nome completo').fill('Ana Souza');
    await page.getByLabel('CPF ou CNPJ').fill('529.982.247-25');
    await button.click();
    const code = page.getByLabel('Código pix copia e cola');
    await code.waitFor();
    const [row] = await sql('select gateway_payment_data from checkouts where id = ?', [c.id]);
    const data = row.gateway_payment_data;
    expect(await code.inputValue()).toBe(data.pix.qr_code);
    expect(await scanQrPng(await page.getByRole('img', { name: 'QR code do pix' }).screenshot())).toBe(
      data.pix.qr_code,
    );
    await page.getByRole('heading', { name: 'Autorize o Pix Automático' }).waitFor();
    expect(await page.getByTestId('mandate-amount').textContent()).toBe(`${brl(3_990)} cobrados todo mês.`);
    expect(await page.getByTestId('mandate-next').textContent()).toBe(
      `Próxima cobrança estimada em ${dayBR(data.pix_automatico.start_date)}.`,
    );
    // No card instead: the mandate is the way this checkout is paid.
    expect(await page.getByText('Prefere pagar com cartão de crédito?').count()).toBe(0);
    await screenshot(page, 'checkout-pix-automatico-qr');
    await expectAccessibleAtBothSizes(page);

    const paid = await api.call('POST', `/api/v1/sandbox/transactions/${data.transaction_id}/pay`);
    expect(paid.status).toBe(200);
    await page.getByRole('heading', { name: 'Pagamento confirmado' }).waitFor({ timeout: 30_000 });
    expect((await sql('select status from checkouts where id = ?', [c.id]))[0].status).toBe('succeeded');
    await context.close();
  });

  it('speaks English to an English browser', async () => {
    const context = await newContext(browser, { locale: 'en-US' });
    const page = await context.newPage();
    const c = await pixAutomaticoCheckout();
    await page.goto(c.url);
    await page.getByLabel('Pix Automático: pay every month automatically').waitFor();
    expect(await page.getByTestId('mandate-amount').textContent()).toBe('R$39.90 charged every month.');
    await context.close();
  });
});

/** Pays a Pix Automático checkout through the API (as the page does); its subscription once it adopted the approved mandate. */
async function pixAutomaticoSubscription() {
  const c = await pixAutomaticoCheckout();
  const secret = c.url.split('/').pop();
  const confirmed = await api.call('POST', `/api/v1/checkouts/client/${secret}/confirm-sdk`, {
    body: { payment_method: 'pix', customer_name: 'Ana Souza', customer_tax_id: '529.982.247-25' },
  });
  expect(confirmed.status).toBe(200);
  const paid = await api.call(
    'POST',
    `/api/v1/sandbox/transactions/${confirmed.body.gateway_payment_data.transaction_id}/pay`,
  );
  expect(paid.status).toBe(200);
  const subscription = await waitFor(
    async () => {
      const [row] = await sql(
        `select s.id, s.customer_id, s.current_period_end, s.amount from subscriptions s
           join mandates m on m.subscription_id = s.id where s.checkout_id = ? and m.status = 'approved'`,
        [c.id],
      );
      return row ?? null;
    },
    { what: 'the subscription to adopt its approved mandate', timeoutMs: 30_000 },
  );
  const session = await api.call('POST', '/api/v1/customer-portal/sessions/', {
    token: c.tenant.oat,
    body: { customer_id: subscription.customer_id },
  });
  expect(session.status).toBe(201);
  const portalUrl = (session.body.customer_portal_url as string).replace(api.config.publicBaseUrl, api.baseUrl);
  return { ...c, subscription, portalUrl, portalToken: session.body.token as string };
}

describe('a Pix Automático subscription in the customer portal', () => {
  it('shows the mandate, and revokes it after a confirmation: cancelled by the receiver, with its event', async () => {
    const s = await pixAutomaticoSubscription();
    const context = await newContext(browser);
    const page = await context.newPage();
    await page.goto(s.portalUrl);
    await page.goto(`${api.baseUrl}/portal/subscriptions/${s.subscription.id}`);
    const mandate = page.getByTestId('mandate');
    expect(await mandate.getByTestId('mandate-status').textContent()).toBe(
      'Autorizada: as cobranças são feitas automaticamente',
    );
    expect(await mandate.getByTestId('mandate-journey').textContent()).toBe('Lendo o QR code do primeiro pagamento');
    expect(await mandate.getByTestId('mandate-periodicity').textContent()).toBe('Todo mês');
    // The next charge: the subscription's amount, due the day its period ends in Brasília (UTC−3).
    const periodEnd = new Date(new Date(s.subscription.current_period_end).getTime() - 3 * 3_600_000);
    expect((await mandate.getByTestId('mandate-next-charge').textContent())!.trim()).toBe(
      `${brl(Number(s.subscription.amount))} em ${dayBR(periodEnd.toISOString().slice(0, 10))}`,
    );
    await screenshot(page, 'portal-pix-automatico');
    await expectAccessibleAtBothSizes(page);

    await mandate.getByRole('link', { name: 'Cancelar autorização' }).click();
    await page.getByRole('button', { name: 'Confirmar o cancelamento da autorização' }).waitFor();
    // Nothing is cancelled by opening the confirmation.
    expect((await sql('select status from mandates where subscription_id = ?', [s.subscription.id]))[0].status).toBe(
      'approved',
    );
    await expectAccessibleAtBothSizes(page);
    await page.getByRole('button', { name: 'Confirmar o cancelamento da autorização' }).click();
    await page.getByText('Autorização do Pix Automático cancelada.', { exact: false }).waitFor();
    const [ended] = await sql('select id, status, cancelled_by from mandates where subscription_id = ?', [
      s.subscription.id,
    ]);
    expect([ended.status, ended.cancelled_by]).toEqual(['cancelled', 'receiver']);
    const events = await sql(`select data from events where type = 'mandate.cancelled' and data->>'id' = ?`, [
      ended.id,
    ]);
    expect(events).toHaveLength(1);
    expect(await page.getByTestId('mandate-status').textContent()).toMatch(/^Cancelada/);
    expect(await page.getByTestId('mandate-next-charge').textContent()).toContain('Nenhuma');
    expect(await page.getByRole('link', { name: 'Cancelar autorização' }).count()).toBe(0);

    // Revoked once: the portal's API refuses it again, in plain words.
    const again = await api.call('POST', `/api/v1/customer-portal/subscriptions/${s.subscription.id}/mandate/revoke`, {
      token: s.portalToken,
    });
    expect([again.status, again.body.code]).toEqual([422, 'mandate_ended']);
    await context.close();
  });
});
