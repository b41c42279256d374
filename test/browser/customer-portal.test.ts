import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { uuidv7 } from 'uuidv7';
import { useApi, type TestApi } from '../helpers/api.ts';
import { expectAccessibleAtBothSizes, launchBrowser, newContext, screenshot } from '../helpers/browser.ts';
import { makeTenant } from '../helpers/fixtures.ts';
import { waitFor } from '../helpers/processes.ts';
import { advancePastPeriodEnd, paidSubscription } from '../helpers/subscriptions.ts';

/**
 * The customer portal in Chromium: the merchant's link signs the customer in, the pages show its
 * subscriptions, purchases and charges, and the customer's changes (cancel, uncancel, plan, billing
 * details) are seen by the API. Each page is screenshot and checked by axe-core.
 */
let api: TestApi;
let temporal: Client;
let browser: Browser;
useApi((started) => ({ api, temporal } = started));
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

const sql = <T = any>(text: string, params: unknown[] = []) => api.orm.em.getConnection().execute<T[]>(text, params);
const brl = (cents: number) => `R$\u00a0${(cents / 100).toFixed(2).replace('.', ',')}`;
const dateBR = (at: string | Date) =>
  new Intl.DateTimeFormat('pt-BR', { timeZone: 'America/Sao_Paulo' }).format(new Date(at));

/** A paid monthly subscription of R$ 99,90 of a new organization, and the merchant's portal link for its customer. */
async function subscribed() {
  const t = await makeTenant(api.orm);
  const { row } = await paidSubscription(api, temporal, {
    organizationId: t.org.id,
    recurrenceBilling: 'manual',
    amount: 9_990,
  });
  const session = await api.call('POST', '/api/v1/customer-portal/sessions/', {
    token: t.oat,
    body: { customer_id: row.customer_id },
  });
  expect(session.status).toBe(201);
  const url = (session.body.customer_portal_url as string).replace(api.config.publicBaseUrl, api.baseUrl);
  return { t, row, id: row.id as string, url, token: session.body.token as string };
}

/** Opens the portal link in a fresh browser profile; the token is gone from the address bar. */
async function signIn(url: string, locale?: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await newContext(browser, { locale });
  const page = await context.newPage();
  await page.goto(url);
  expect(page.url()).toBe(`${api.baseUrl}/portal`);
  return { context, page };
}

async function pageChecked(page: Page, name: string) {
  await screenshot(page, `portal-${name}`);
  await expectAccessibleAtBothSizes(page, `portal-${name}`);
}

/** The subscription page's timeline, row by row, each row its cells' texts. */
const timelineRows = (page: Page) =>
  page
    .getByTestId('timeline')
    .locator('tbody tr')
    .evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent!.trim())));

const apiSubscription = async (s: { id: string; t: { oat: string } }) => {
  const res = await api.call('GET', `/api/v1/subscriptions/${s.id}`, { token: s.t.oat });
  expect(res.status).toBe(200);
  return res.body;
};

describe('customer portal', () => {
  it('signs in by the link, shows the subscription, cancels after a confirmation, and uncancels', async () => {
    const s = await subscribed();
    // A refused renewal try and an extra charge, as the workflows would have written them.
    await sql(
      `insert into subscription_charges (id, organization_id, subscription_id, period_number, try_number, amount,
         currency, outcome, decline_reason, attempted_at)
       values (?, ?, ?, 2, 1, 9990, 'brl', 'failed', 'insufficient_funds', now())`,
      [uuidv7(), s.t.org.id, s.id],
    );
    await sql(
      `insert into subscription_invoices (id, organization_id, subscription_id, number, gateway_invoice_id, amount,
         currency, description, due_date, status, no_fees_installments, workflow_id, created_at, modified_at)
       values (?, ?, ?, 'INV-1', ?, 2500, 'brl', 'Taxa de instalação', '2026-12-10', 'pending', false, 'invoice:x',
         now(), now())`,
      [uuidv7(), s.t.org.id, s.id, `gw_inv_${uuidv7()}`],
    );
    const { context, page } = await signIn(s.url);
    const [cookie] = (await context.cookies()).filter((c) => c.name === 'portal_session');
    expect(cookie).toMatchObject({ value: s.token, httpOnly: true, secure: true, sameSite: 'Lax', path: '/portal' });

    const row = page.locator(`tr[data-subscription="${s.id}"]`);
    expect(await row.getByTestId('amount').textContent()).toBe(brl(9_990));
    expect(await row.getByTestId('status').textContent()).toBe('Ativa');
    expect(await row.getByTestId('next-charge').textContent()).toBe(dateBR(s.row.current_period_end));
    expect(await page.getByTestId('sales').textContent()).toContain(brl(9_990));
    expect(await page.getByTestId('invoices').textContent()).toContain('Taxa de instalação');
    await pageChecked(page, 'overview');

    await row.getByRole('link').click();
    await page.waitForURL(`${api.baseUrl}/portal/subscriptions/${s.id}`);
    expect(await page.getByTestId('timeline').textContent()).toContain('Saldo ou limite insuficiente.');
    await pageChecked(page, 'subscription');

    await page.getByRole('link', { name: 'Cancelar ao fim do período' }).click();
    await page.waitForURL(/\/cancel$/);
    expect((await apiSubscription(s)).cancel_at_period_end).toBe(false);
    await pageChecked(page, 'cancel-confirm');
    // By keyboard: the confirmation is a focusable button that Enter presses.
    await page.getByRole('button', { name: 'Confirmar o cancelamento' }).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(`${api.baseUrl}/portal/subscriptions/${s.id}?done=canceled`);
    expect(await page.getByRole('status').textContent()).toContain('Cancelamento agendado');
    expect((await apiSubscription(s)).cancel_at_period_end).toBe(true);
    expect(await page.getByTestId('next-charge').textContent()).toBe(`Termina em ${dateBR(s.row.current_period_end)}`);
    await pageChecked(page, 'canceled');

    await page.getByRole('button', { name: 'Manter a assinatura' }).click();
    await page.waitForURL(/done=uncanceled/);
    expect((await apiSubscription(s)).cancel_at_period_end).toBe(false);
    await context.close();
  });

  it('lists every charge of the subscription: its first sale, a renewal and an extra charge', async () => {
    const s = await subscribed();
    await advancePastPeriodEnd(api, { id: s.id, oat: s.t.oat }, s.row.current_period_end);
    await waitFor(
      async () => (await sql('select period_number from subscriptions where id = ?', [s.id]))[0].period_number === 2,
      { what: 'the renewal of period 2', timeoutMs: 30_000 },
    );
    const { context, page } = await signIn(s.url);
    await page.goto(`${api.baseUrl}/portal/subscriptions/${s.id}`);
    const paid = brl(9_990);
    expect(await timelineRows(page)).toEqual([
      [dateBR(s.row.created_at), '1', '1', paid, 'Paga', ''],
      [expect.any(String), '2', '1', paid, 'Paga', ''],
    ]);
    await pageChecked(page, 'subscription-charges');
    await context.close();
  });

  it("offers only its product's other prices, and shows a plan change's prorated amount before the customer confirms it", async () => {
    const s = await subscribed();
    const premium = uuidv7();
    await sql(
      `insert into prices (id, product_id, organization_id, type, currency, unit_amount, tax_behavior, interval,
         interval_count, created_at)
       values (?, ?, ?, 'recurring', 'brl', 14990, 'unspecified', 'month', 1, now())`,
      [premium, s.row.product_id, s.t.org.id],
    );
    // Another product's monthly price of the same organization: not the customer's to move to.
    const [otherProduct, otherPrice] = [uuidv7(), uuidv7()];
    await sql(`insert into products (id, organization_id, name, created_at) values (?, ?, 'Outro curso', now())`, [
      otherProduct,
      s.t.org.id,
    ]);
    await sql(
      `insert into prices (id, product_id, organization_id, type, currency, unit_amount, tax_behavior, interval,
         interval_count, created_at)
       values (?, ?, ?, 'recurring', 'brl', 12990, 'unspecified', 'month', 1, now())`,
      [otherPrice, otherProduct, s.t.org.id],
    );
    const { context, page } = await signIn(s.url);
    await page.goto(`${api.baseUrl}/portal/subscriptions/${s.id}`);
    const offered = await page
      .getByLabel('Novo plano')
      .locator('option')
      .evaluateAll((os) => os.map((o) => o.getAttribute('value')));
    expect(offered).toEqual([premium]);
    // Nor is its preview shown when asked for by address: back to the subscription's page.
    await page.goto(`${api.baseUrl}/portal/subscriptions/${s.id}/plan?price_id=${otherPrice}`);
    expect(page.url()).toBe(`${api.baseUrl}/portal/subscriptions/${s.id}`);
    await page.getByLabel('Novo plano').selectOption(premium);
    await page.getByRole('button', { name: 'Ver o valor da troca' }).click();
    await page.waitForURL(/\/plan\?price_id=/);
    // Right after the checkout the whole period is left: the difference, R$ 50,00, is charged now.
    expect(await page.getByTestId('proration').textContent()).toBe(`Cobrado agora no cartão salvo: ${brl(5_000)}`);
    expect((await apiSubscription(s)).price_id).toBe(s.row.price_id);
    await pageChecked(page, 'plan-preview');

    await page.getByRole('button', { name: 'Confirmar a troca' }).click();
    await page.waitForURL(/done=plan/);
    expect(await apiSubscription(s)).toMatchObject({ price_id: premium, amount: 14_990 });
    const [charge] = await sql(
      'select amount::int as amount from sales where subscription_id = ? order by created_at desc',
      [s.id],
    );
    expect(charge).toEqual({ amount: 5_000 });
    // The change's charge is in the subscription's list, after the first sale.
    expect((await timelineRows(page)).map((cells) => cells.slice(1))).toEqual([
      ['1', '1', brl(9_990), 'Paga', ''],
      ['Avulsa', '', brl(5_000), 'Paga', ''],
    ]);
    await context.close();
  });

  it("links the next period's open checkout, whose page the customer pays it on", async () => {
    const s = await subscribed();
    const { context, page } = await signIn(s.url);
    await page.goto(`${api.baseUrl}/portal/subscriptions/${s.id}`);
    // Nothing to pay before the merchant (or the dunning) opens the next period's checkout.
    expect(await page.getByRole('link', { name: 'Pagar agora' }).count()).toBe(0);

    const renewal = await api.call('POST', `/api/v1/checkouts/${s.row.checkout_id}/manual-renewal-checkout`, {
      token: s.t.oat,
    });
    expect(renewal.status).toBe(201);
    await page.reload();
    await expect(page.getByRole('heading', { name: 'Próximo período' }).isVisible()).resolves.toBe(true);
    expect(await page.getByText('O próximo período está aberto para pagamento').textContent()).toContain(brl(9_990));
    const pay = page.getByRole('link', { name: 'Pagar agora' });
    expect(await pay.getAttribute('href')).toBe(`/checkout/c/${renewal.body.client_secret}`);
    await pageChecked(page, 'subscription-renewal');
    await Promise.all([page.waitForURL(`${api.baseUrl}/checkout/c/${renewal.body.client_secret}`), pay.click()]);
    expect(await page.getByRole('button', { name: /^Pagar/ }).count()).toBeGreaterThan(0);
    await context.close();
  });

  it('updates the billing details through the customer update, refusing an invalid tax id', async () => {
    const s = await subscribed();
    const { context, page } = await signIn(s.url);
    await page.getByRole('link', { name: 'Dados de cobrança' }).click();
    await page.getByLabel('Nome para cobrança').fill('Ana Souza ME');
    await page.getByLabel('Logradouro e número').fill('Rua das Flores, 10');
    await page.getByLabel('Cidade').fill('São Paulo');
    await page.getByLabel('Estado').fill('SP');
    await page.getByLabel('CEP').fill('01000-000');
    await page.getByLabel('País (código de duas letras)').fill('br');
    await page.getByLabel('CPF ou CNPJ').fill('123.456.789-00');
    await page.getByRole('button', { name: 'Salvar' }).click();
    expect(await page.getByRole('alert').textContent()).toContain('Confira os dados');
    expect(await page.getByLabel('CPF ou CNPJ').getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByLabel('Cidade').inputValue()).toBe('São Paulo');
    await pageChecked(page, 'billing-invalid');

    await page.getByLabel('CPF ou CNPJ').fill('529.982.247-25');
    await page.getByRole('button', { name: 'Salvar' }).click();
    await page.waitForURL(/done=billing/);
    expect(await page.getByRole('status').textContent()).toContain('Dados de cobrança salvos.');
    await pageChecked(page, 'billing');
    const customer = await api.call('GET', `/api/v1/customers/${s.row.customer_id}`, { token: s.t.oat });
    expect(customer.body).toMatchObject({
      billing_name: 'Ana Souza ME',
      billing_address: {
        line1: 'Rua das Flores, 10',
        city: 'São Paulo',
        state: 'SP',
        postal_code: '01000-000',
        country: 'BR',
      },
      tax_id: { type: 'cpf', number: '52998224725' },
    });
    // Recorded as the customer's own change, as the portal API records it.
    const [event] = await sql(
      `select actor from events where organization_id = ? and type = 'customer.updated' order by created_at desc limit 1`,
      [s.t.org.id],
    );
    expect(event.actor).toEqual({ type: 'customer', id: s.row.customer_id });
    await context.close();
  });

  it('refuses a form post without the session\u2019s anti-CSRF token, and changes nothing', async () => {
    const s = await subscribed();
    const { context, page } = await signIn(s.url);
    const cancel = `${api.baseUrl}/portal/subscriptions/${s.id}/cancel`;
    // The browser's own cookie goes with these posts: only the hidden field is missing or wrong.
    const missing = await page.request.post(cancel, { form: {}, maxRedirects: 0 });
    expect(missing.status()).toBe(403);
    const wrong = await page.request.post(cancel, { form: { csrf: 'x'.repeat(43) }, maxRedirects: 0 });
    expect(wrong.status()).toBe(403);
    const billing = await page.request.post(`${api.baseUrl}/portal/billing`, {
      form: { billing_name: 'Mallory' },
      maxRedirects: 0,
    });
    expect(billing.status()).toBe(403);
    expect((await apiSubscription(s)).cancel_at_period_end).toBe(false);
    const [customer] = await sql('select billing_name from customers where id = ?', [s.row.customer_id]);
    expect(customer.billing_name).toBeNull();
    // The browser's own form, its hidden field taken out: the refusal is a page of its own.
    await page.goto(cancel);
    await page.locator('input[name="csrf"]').evaluate((input) => input.remove());
    const [refused] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      page.getByRole('button', { name: 'Confirmar o cancelamento' }).click(),
    ]);
    expect(refused.status()).toBe(403);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Não foi possível concluir');
    await pageChecked(page, 'refused');
    expect((await apiSubscription(s)).cancel_at_period_end).toBe(false);
    await context.close();
  });

  it('speaks English to a browser that asks for it', async () => {
    const s = await subscribed();
    const { context, page } = await signIn(s.url, 'en-US');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Subscriptions and purchases');
    const row = page.locator(`tr[data-subscription="${s.id}"]`);
    expect(await row.getByTestId('amount').textContent()).toBe('R$99.90');
    expect(await row.getByTestId('status').textContent()).toBe('Active');
    await row.getByRole('link').click();
    await page.getByRole('link', { name: 'Cancel at the end of the period' }).click();
    await page.getByRole('button', { name: 'Confirm the cancellation' }).waitFor();
    await pageChecked(page, 'cancel-confirm-en');
    await context.close();
  });

  it('says the link has expired, in Portuguese or in English, without a valid session', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    const bogus = await page.goto(`${api.baseUrl}/portal?token=svc_cst_${'a'.repeat(43)}`);
    expect(bogus?.status()).toBe(401);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Este link expirou');
    expect((await context.cookies()).filter((c) => c.name === 'portal_session')).toEqual([]);
    await pageChecked(page, 'expired');
    expect((await page.goto(`${api.baseUrl}/portal/billing`))?.status()).toBe(401);
    await context.close();

    const s = await subscribed();
    await sql(`update customer_sessions set expires_at = now() - interval '1 minute' where customer_id = ?`, [
      s.row.customer_id,
    ]);
    const english = await newContext(browser, { locale: 'en-US' });
    const page2 = await english.newPage();
    expect((await page2.goto(s.url))?.status()).toBe(401);
    expect(await page2.getByRole('heading', { level: 1 }).textContent()).toBe('This link has expired');
    await english.close();
  });
});

describe('a refused change', () => {
  it("says why in the customer's language, by the refusal's code, never the API's English detail", async () => {
    const s = await subscribed();
    const { context, page } = await signIn(s.url);
    await page.goto(`${api.baseUrl}/portal/subscriptions/${s.id}/cancel`);
    // The merchant turns customer changes off while the page is open.
    await sql(
      `update organizations set subscription_settings =
         coalesce(subscription_settings, '{}'::jsonb) || '{"allow_customer_updates": false}' where id = ?`,
      [s.t.org.id],
    );
    const [refused] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      page.getByRole('button', { name: 'Confirmar o cancelamento' }).click(),
    ]);
    expect(refused.status()).toBe(403);
    const alert = (await page.getByRole('alert').textContent()) ?? '';
    expect(alert).toBe('Não foi possível concluir A loja não permite mudar a assinatura por aqui. Fale com a loja.');
    expect(alert).not.toMatch(/organization|merchant|customers/);
    await pageChecked(page, 'refused-change');
    expect((await apiSubscription(s)).cancel_at_period_end).toBe(false);
    await context.close();
  });
});
