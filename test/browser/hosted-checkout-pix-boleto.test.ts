import { beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import type { TestApi } from '../helpers/api.ts';
import { hostedCheckoutBed, type HostedCheckoutBed } from '../helpers/hosted-checkout-bed.ts';
import type { SimulatedGateway } from '@billing/simulated-gateway';
import { expectAccessibleAtBothSizes, newContext, screenshot } from '../helpers/browser.ts';
import { fillCard } from '../helpers/checkout-page.ts';
import { unique } from '../helpers/fixtures.ts';
import { until } from '../helpers/processes.ts';
import { scanQrPng } from '../helpers/qr.ts';
import type { ShopSite } from '../helpers/shop-site.ts';

/** A buyer pays by pix (the page follows the payment by itself), takes a boleto, or pays inside a merchant's iframe. */
// The sandbox's callbacks (a pix paid) reach this API.
const bed = hostedCheckoutBed({
  setUp: ({ api }) => {
    (api.gateway as SimulatedGateway).callbacks.callbackUrl = `${api.baseUrl}/api/v1/gateway/callbacks`;
  },
  tearDown: ({ api }) => (api.gateway as SimulatedGateway).settleCallbacks(),
});
let api: TestApi;
let browser: Browser;
let shop: ShopSite;
let tenant: HostedCheckoutBed['tenant'];
beforeAll(() => {
  ({ api, browser, shop, tenant } = bed);
});

const sql = <T = any>(text: string, params: unknown[] = []) => api.orm.em.getConnection().execute<T[]>(text, params);

/** A checkout made by the merchant's server, and its page's address. */
async function checkout(body: Record<string, unknown> = {}) {
  const product = await api.call('POST', '/api/v1/products/', {
    token: tenant.oat,
    body: {
      organization_id: tenant.org.id,
      name: unique('Ebook'),
      prices: [{ type: 'one_time', currency: 'brl', unit_amount: 4990 }],
    },
  });
  expect(product.status).toBe(201);
  const created = await api.call('POST', '/api/v1/checkouts/', {
    token: tenant.oat,
    body: { product_id: product.body.id, success_url: `${shop.origin}/obrigado?c={CHECKOUT_ID}`, ...body },
  });
  expect(created.status).toBe(201);
  return { id: created.body.id as string, url: `${api.baseUrl}/checkout/c/${created.body.client_secret}` };
}

async function choose(page: Page, method: 'Pix' | 'Boleto', fields: Record<string, string>) {
  await page.getByLabel(method, { exact: true }).check();
  for (const [label, value] of Object.entries(fields)) await page.getByLabel(label, { exact: true }).fill(value);
  await page.getByRole('button', { name: method === 'Pix' ? 'Gerar código pix' : 'Gerar boleto' }).click();
}

/** What a phone's camera reads from the QR code on screen. */
async function scanQr(page: Page): Promise<string | undefined> {
  return scanQrPng(await page.getByRole('img', { name: 'QR code do pix' }).screenshot());
}

describe('hosted checkout by pix and boleto', () => {
  it('shows a scannable pix, counts it down, and moves to success_url by itself once paid', async () => {
    const c = await checkout();
    const context = await newContext(browser);
    const page = await context.newPage();
    await page.goto(c.url);
    await choose(page, 'Pix', { 'E-mail': 'bia@example.com' });
    const code = page.getByLabel('Código pix copia e cola');
    await code.waitFor();
    const pixCode = await code.inputValue();
    expect(pixCode.length).toBeGreaterThan(20);
    expect(await scanQr(page)).toBe(pixCode);
    expect(await page.locator('[data-countdown]').textContent()).toMatch(/^\d\d:\d\d$/);
    await screenshot(page, 'checkout-pix');
    await expectAccessibleAtBothSizes(page);

    const [row] = await sql('select gateway_payment_data from checkouts where id = ?', [c.id]);
    const paid = await api.call('POST', `/api/v1/sandbox/transactions/${row.gateway_payment_data.transaction_id}/pay`);
    expect(paid.status).toBe(200);
    await page.waitForURL(`${shop.origin}/obrigado?c=${c.id}`, { timeout: 30_000 });
    expect((await sql('select status from checkouts where id = ?', [c.id]))[0].status).toBe('succeeded');
    await context.close();
  });

  it('says so when the pix expires', async () => {
    const c = await checkout();
    const context = await newContext(browser);
    const page = await context.newPage();
    await page.goto(c.url);
    await choose(page, 'Pix', { 'E-mail': 'caio@example.com' });
    await page.getByLabel('Código pix copia e cola').waitFor();
    const [row] = await sql('select gateway_payment_data from checkouts where id = ?', [c.id]);
    const expired = await api.call(
      'POST',
      `/api/v1/sandbox/transactions/${row.gateway_payment_data.transaction_id}/expire`,
    );
    expect(expired.status).toBe(200);
    await page.getByRole('heading', { name: /expirou|não foi concluído/ }).waitFor({ timeout: 30_000 });
    await screenshot(page, 'checkout-pix-expired');
    await context.close();
  });

  it('shows a boleto with its digitable line, barcode, due date and PDF link', async () => {
    const c = await checkout();
    const context = await newContext(browser);
    const page = await context.newPage();
    await page.goto(c.url);
    await choose(page, 'Boleto', {
      'E-mail': 'duda@example.com',
      'Nome completo': 'Duda Lima',
      'CPF ou CNPJ': '529.982.247-25',
    });
    const line = page.getByLabel('Linha digitável');
    await line.waitFor();
    const [row] = await sql('select gateway_payment_data from checkouts where id = ?', [c.id]);
    const boleto = row.gateway_payment_data.boleto;
    expect(await line.inputValue()).toBe(boleto.digitable_line);
    expect(
      await page.getByRole('img', { name: 'Código de barras do boleto' }).locator('svg path').count(),
    ).toBeGreaterThan(0);
    const [y, m, d] = String(boleto.due_date).slice(0, 10).split('-');
    expect(await page.getByTestId('due-date').textContent()).toBe(`${d}/${m}/${y}`);
    expect(await page.getByRole('link', { name: 'Abrir o boleto (PDF)' }).getAttribute('href')).toBe(boleto.url);
    await screenshot(page, 'checkout-boleto');
    await expectAccessibleAtBothSizes(page);
    await context.close();
  });
});

describe('changing one\u2019s mind', () => {
  it('leaves a pending pix for a card: the pix is cancelled and the card pays', async () => {
    const c = await checkout();
    const context = await newContext(browser);
    const page = await context.newPage();
    await page.goto(c.url);
    await choose(page, 'Pix', { 'E-mail': 'fabio@example.com' });
    await page.getByLabel('Código pix copia e cola').waitFor();
    await page.getByText('Prefere pagar com cartão de crédito?').click();
    await fillCard(page, '4111111111111111');
    await screenshot(page, 'checkout-pix-to-card');
    await expectAccessibleAtBothSizes(page);
    const [row] = await sql('select gateway_payment_data from checkouts where id = ?', [c.id]);
    await page.getByRole('button', { name: /^Pagar R\$/ }).click();
    await page.waitForURL(`${shop.origin}/obrigado?c=${c.id}`);
    expect((await api.gateway.getTransaction(row.gateway_payment_data.transaction_id))?.status).toBe('canceled');
    const [paid] = await sql('select status, payment_method from checkouts where id = ?', [c.id]);
    expect(paid).toEqual({ status: 'succeeded', payment_method: 'credit_card' });
    await context.close();
  });
});

describe('embedded checkout', () => {
  it('pays inside the iframe of the embed_origin, and no other origin may frame it', async () => {
    const c = await checkout({ embed_origin: shop.origin });
    const context = await newContext(browser);
    const page = await context.newPage();
    await page.goto(`${shop.origin}/embed?frame=${encodeURIComponent(c.url)}`);
    const frame = page.frameLocator('iframe[title="Checkout"]');
    await frame.getByLabel('E-mail').fill('eva@example.com');
    await frame.frameLocator('#card_number_field iframe').locator('input').fill('4111111111111111');
    await frame.getByLabel('Nome impresso no cartão').fill('EVA');
    await frame.frameLocator('#card_expiration_field iframe').locator('input').fill('12/30');
    await frame.frameLocator('#card_csc_field iframe').locator('input').fill('123');
    await frame.getByRole('button', { name: /^Pagar R\$/ }).click();
    const paidFrame = `${shop.origin}/obrigado?c=${c.id}`;
    await until(() => page.frames().some((f) => f.url() === paidFrame), 20_000, 'the frame to reach success_url');
    await screenshot(page, 'checkout-embedded');

    // The same page on another origin (127.0.0.1 is not localhost): the browser refuses to show it.
    const other = await checkout({ embed_origin: shop.origin });
    const elsewhere = shop.origin.replace('localhost', '127.0.0.1');
    await page.goto(`${elsewhere}/embed?frame=${encodeURIComponent(other.url)}`);
    const framed = page.frames().find((f) => f !== page.mainFrame());
    await until(() => Boolean(framed?.url().startsWith('chrome-error:')), 20_000, 'the frame to be refused');
    await context.close();
  });
});
