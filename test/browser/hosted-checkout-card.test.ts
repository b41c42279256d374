import { beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser } from 'playwright-core';
import type { SimulatedGateway } from '@billing/simulated-gateway';
import type { TestApi } from '../helpers/api.ts';
import { hostedCheckoutBed, type HostedCheckoutBed } from '../helpers/hosted-checkout-bed.ts';
import { expectAccessibleAtBothSizes, firstPaintOnPhone, newContext, screenshot } from '../helpers/browser.ts';
import { fillCard, secureInput } from '../helpers/checkout-page.ts';
import { unique } from '../helpers/fixtures.ts';
import type { ShopSite } from '../helpers/shop-site.ts';

/** A buyer opens a checkout link in Chromium and pays by card: the page, a decline, and the success_url. */
const bed = hostedCheckoutBed();
let api: TestApi;
let browser: Browser;
let shop: ShopSite;
let tenant: HostedCheckoutBed['tenant'];
beforeAll(() => {
  ({ api, browser, shop, tenant } = bed);
});

const sql = <T = any>(text: string, params: unknown[] = []) => api.orm.em.getConnection().execute<T[]>(text, params);

async function productWithLink(unitAmount: number, extra: Record<string, unknown> = {}) {
  const product = await api.call('POST', '/api/v1/products/', {
    token: tenant.oat,
    body: {
      organization_id: tenant.org.id,
      name: unique('Curso de fotografia'),
      description: 'Doze aulas gravadas',
      prices: [{ type: 'one_time', currency: 'brl', unit_amount: unitAmount }],
    },
  });
  expect(product.status).toBe(201);
  const link = await api.call('POST', '/api/v1/checkout-links/', {
    token: tenant.oat,
    body: {
      product_ids: [product.body.id],
      success_url: `${shop.origin}/obrigado?checkout={CHECKOUT_ID}`,
      cancel_url: `${shop.origin}/loja`,
      ...extra,
    },
  });
  expect(link.status).toBe(201);
  return { product: product.body, link: link.body };
}

describe('hosted checkout by card', () => {
  it('shows the product in Portuguese, pays by card after a decline, and lands on success_url', async () => {
    const { product, link } = await productWithLink(9990);
    const context = await newContext(browser);
    const page = await context.newPage();
    await page.goto(link.url.replace(api.config.publicBaseUrl, api.baseUrl));
    // The link's page: what is sold, in pt-BR, and no checkout until the buyer goes on.
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(product.name);
    expect(await page.getByTestId('price').textContent()).toBe('R$\u00a099,90');
    expect(await sql('select id from checkouts where checkout_link_id = ?', [link.id])).toEqual([]);
    await screenshot(page, 'checkout-link');
    await expectAccessibleAtBothSizes(page);

    await page.getByRole('button', { name: 'Continuar para o pagamento' }).click();
    await page.waitForURL(/\/checkout\/c\/cs_/);
    const [checkout] = await sql<{ id: string }>('select id from checkouts where checkout_link_id = ?', [link.id]);
    expect(checkout).toBeDefined();

    // The card fields carry the autofill tokens and a phone's numeric keyboard.
    const number = secureInput(page, 'card_number_field');
    expect(await number.getAttribute('autocomplete')).toBe('cc-number');
    expect(await number.getAttribute('inputmode')).toBe('numeric');
    expect(await page.getByLabel('E-mail').getAttribute('autocomplete')).toBe('email');
    expect(await secureInput(page, 'card_csc_field').getAttribute('autocomplete')).toBe('cc-csc');
    // 12 installments of a one-time price, the first à vista; the interest shows in each total.
    const options = await page.getByLabel('Parcelas').locator('option').allTextContents();
    expect(options).toHaveLength(12);
    expect(options[0]!.trim()).toBe('1x de R$\u00a099,90 (à vista)');
    expect(options[2]!.trim()).toMatch(/^3x de R\$\u00a0\d+,\d\d \(total R\$\u00a0\d+,\d\d\)$/);
    await screenshot(page, 'checkout-card');
    await expectAccessibleAtBothSizes(page);

    await page.getByLabel('E-mail').fill('ana@example.com');
    await page.getByLabel('Nome completo').fill('Ana Souza');
    await fillCard(page, '4000000000000002');
    await page.getByRole('button', { name: /^Pagar R\$/ }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('Pagamento recusado');
    expect(await alert.textContent()).toContain('O cartão foi recusado pelo emissor.');
    // The buyer's details stay; the card does not.
    expect(await page.getByLabel('E-mail').inputValue()).toBe('ana@example.com');
    expect(await secureInput(page, 'card_number_field').inputValue()).toBe('');
    await screenshot(page, 'checkout-declined');

    await fillCard(page, '4111111111111111');
    await page.getByLabel('Parcelas').selectOption('3');
    await page.getByRole('button', { name: /^Pagar R\$/ }).click();
    await page.waitForURL(`${shop.origin}/obrigado?checkout=${checkout!.id}`);
    const [row] = await sql('select status, customer_email from checkouts where id = ?', [checkout!.id]);
    expect(row).toEqual({ status: 'succeeded', customer_email: 'ana@example.com' });
    const sales = await sql('select amount, installments from sales where checkout_id = ?', [checkout!.id]);
    expect(sales).toHaveLength(1);
    await context.close();
  });

  it('a card held for review: the page says it is under review (no second payment asked) and follows it to success_url', async () => {
    const { link } = await productWithLink(4_500);
    (api.gateway as SimulatedGateway).callbacks.callbackUrl = `${api.baseUrl}/api/v1/gateway/callbacks`;
    const context = await newContext(browser);
    const page = await context.newPage();
    await page.goto(link.url.replace(api.config.publicBaseUrl, api.baseUrl));
    await page.getByRole('button', { name: 'Continuar para o pagamento' }).click();
    await page.waitForURL(/\/checkout\/c\/cs_/);
    const [checkout] = await sql<{ id: string }>('select id from checkouts where checkout_link_id = ?', [link.id]);
    await page.getByLabel('E-mail').fill('rui@example.com');
    await fillCard(page, '4000000000001505'); // the simulator holds it for review
    await page.getByRole('button', { name: /^Pagar R\$/ }).click();
    await page.getByRole('heading', { name: 'Pagamento em análise' }).waitFor();
    expect(await page.getByText('Não pague de novo').count()).toBe(1);
    expect(await page.getByRole('alert').count()).toBe(0);
    expect(await page.getByLabel('Número do cartão').count()).toBe(0);
    await screenshot(page, 'checkout-card-under-review');
    await expectAccessibleAtBothSizes(page);

    const [row] = await sql('select gateway_payment_data from checkouts where id = ?', [checkout!.id]);
    const ended = await api.call(
      'POST',
      `/api/v1/sandbox/transactions/${row.gateway_payment_data.transaction_id}/end-review`,
    );
    expect(ended.status).toBe(200);
    await page.waitForURL(`${shop.origin}/obrigado?checkout=${checkout!.id}`, { timeout: 30_000 });
    expect(await sql('select status from sales where checkout_id = ?', [checkout!.id])).toEqual([{ status: 'paid' }]);
    await (api.gateway as SimulatedGateway).settleCallbacks();
    await context.close();
  });

  it('reuses the browser\u2019s checkout of a link, and the buyer who leaves goes to cancel_url', async () => {
    const { link } = await productWithLink(5000);
    const context = await newContext(browser);
    const page = await context.newPage();
    const url = link.url.replace(api.config.publicBaseUrl, api.baseUrl);
    await page.goto(url);
    await page.getByRole('button', { name: 'Continuar para o pagamento' }).click();
    await page.waitForURL(/\/checkout\/c\/cs_/);
    const first = page.url();
    await page.goto(url);
    expect(page.url()).toBe(first);
    expect(await sql('select id from checkouts where checkout_link_id = ?', [link.id])).toHaveLength(1);
    await page.getByRole('link', { name: 'Voltar à loja' }).click();
    await page.waitForURL(`${shop.origin}/loja`);
    await context.close();
  });

  it('asks for the billing address a checkout requires, with the browser\u2019s address autofill', async () => {
    const { product } = await productWithLink(3_000);
    const created = await api.call('POST', '/api/v1/checkouts/', {
      token: tenant.oat,
      body: { product_id: product.id, require_billing_address: true, success_url: `${shop.origin}/ok` },
    });
    const context = await newContext(browser);
    const page = await context.newPage();
    await page.goto(`${api.baseUrl}/checkout/c/${created.body.client_secret}`);
    const line1 = page.getByLabel('Endereço (rua, número, complemento)');
    expect(await line1.getAttribute('autocomplete')).toBe('address-line1');
    expect(await page.getByLabel('CEP').getAttribute('autocomplete')).toBe('postal-code');
    expect(await page.getByLabel('País (código de duas letras)').inputValue()).toBe('BR');
    await expectAccessibleAtBothSizes(page);
    await page.getByLabel('E-mail').fill('gil@example.com');
    await line1.fill('Av. Paulista, 1000');
    await page.getByLabel('Cidade').fill('São Paulo');
    await page.getByLabel('Estado (UF)').fill('SP');
    await page.getByLabel('CEP').fill('01310-100');
    await fillCard(page, '4111111111111111');
    await screenshot(page, 'checkout-billing-address');
    await page.getByRole('button', { name: /^Pagar R\$/ }).click();
    await page.waitForURL(`${shop.origin}/ok`);
    const [row] = await sql('select customer_billing_address from checkouts where id = ?', [created.body.id]);
    expect(row.customer_billing_address).toEqual({
      line1: 'Av. Paulista, 1000',
      city: 'São Paulo',
      state: 'SP',
      postal_code: '01310-100',
      country: 'BR',
    });
    await context.close();
  });

  it('speaks English to a browser that asks for it', async () => {
    const { link } = await productWithLink(12345);
    const context = await newContext(browser, { locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(link.url.replace(api.config.publicBaseUrl, api.baseUrl));
    expect(await page.getByTestId('price').textContent()).toBe('R$123.45');
    await page.getByRole('button', { name: 'Continue to payment' }).click();
    await page.getByText('Card number').waitFor();
    await context.close();
  });

  it('paints first well under a second on a throttled phone', async () => {
    const { link } = await productWithLink(9990);
    const url = link.url.replace(api.config.publicBaseUrl, api.baseUrl);
    const open = await api.call('GET', `/checkout/${link.id}`, { headers: { accept: 'application/json' } });
    const pageUrl = `${api.baseUrl}/checkout/c/${(await sql('select client_secret from checkouts where id = ?', [open.body.id]))[0].client_secret}`;
    const link_ms = await firstPaintOnPhone(browser, url);
    const checkout_ms = await firstPaintOnPhone(browser, pageUrl);
    console.log(
      `first contentful paint, throttled phone (4x CPU, fast 3G): link page ${link_ms.toFixed(0)} ms, checkout page ${checkout_ms.toFixed(0)} ms`,
    );
    expect(link_ms).toBeGreaterThan(0);
    expect(checkout_ms).toBeGreaterThan(0);
  });
});
