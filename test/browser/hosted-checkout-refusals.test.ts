import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { startApi, type TestApi } from '../helpers/api.ts';
import { hostedCheckoutBed, type HostedCheckoutBed } from '../helpers/hosted-checkout-bed.ts';
import { newContext, pageChecked } from '../helpers/browser.ts';
import { unique } from '../helpers/fixtures.ts';
import type { ShopSite } from '../helpers/shop-site.ts';
import { openCheckout } from '../helpers/checkout-page.ts';

/**
 * A buyer whose payment is refused reads why in the page's language, by the refusal's code, never the
 * API's English words (issue 34 §1); a page past the rate limit is a page in pt-BR that says how long to
 * wait, never the API's JSON.
 */
const bed = hostedCheckoutBed();
let api: TestApi;
let browser: Browser;
let shop: ShopSite;
let tenant: HostedCheckoutBed['tenant'];
beforeAll(() => {
  ({ api, browser, shop, tenant } = bed);
});

/** A checkout made by the merchant's server (discount codes allowed, as by default); its page's path. */
const checkoutPath = async (): Promise<string> =>
  (await openCheckout(api, tenant.oat, tenant.org.id, { amount: 12_990, successUrl: `${shop.origin}/obrigado` })).path;

/** The buyer fills the form for `method` and presses its button; the page's alert after the refusal. */
async function refusedAlert(
  method: 'Pix' | 'Boleto',
  fields: Record<string, string>,
  phone: boolean,
): Promise<{ page: Page; alert: string; close: () => Promise<void> }> {
  const context = await newContext(browser, { phone });
  const page = await context.newPage();
  await page.goto(api.baseUrl + (await checkoutPath()));
  await page.getByLabel(method, { exact: true }).check();
  for (const [label, value] of Object.entries(fields)) await page.getByLabel(label, { exact: true }).fill(value);
  const [response] = await Promise.all([
    page.waitForResponse((r) => r.request().method() === 'POST'),
    page.getByRole('button', { name: method === 'Pix' ? 'Gerar código pix' : 'Gerar boleto' }).click(),
  ]);
  expect(response.status()).toBe(422);
  await page.waitForLoadState();
  const alert = (await page.getByRole('alert').textContent()) ?? '';
  return { page, alert, close: () => context.close() };
}

/** No word of the API's own refusal reaches the buyer. */
function expectNoApiText(text: string) {
  expect(text).not.toMatch(/customer_|discount code|CPF or CNPJ|required|Unknown|\{|"code"/);
}

describe('refusals in the buyer\u2019s language', () => {
  it('says an invalid CPF is not valid, in pt-BR (phone)', async () => {
    const { page, alert, close } = await refusedAlert(
      'Boleto',
      { 'E-mail': 'ana@example.com', 'Nome completo': 'Ana Souza', 'CPF ou CNPJ': '123.456.789-00' },
      true,
    );
    expect(alert).toBe('Confira os dados O CPF ou CNPJ informado não é válido. Confira os números.');
    expectNoApiText(alert);
    // What the buyer typed stays, to be corrected.
    expect(await page.getByLabel('CPF ou CNPJ', { exact: true }).inputValue()).toBe('123.456.789-00');
    await pageChecked(page, 'checkout-refused-tax-id');
    await close();
  });

  it('asks for the name a boleto needs, in pt-BR (desktop)', async () => {
    const { page, alert, close } = await refusedAlert(
      'Boleto',
      { 'E-mail': 'bruno@example.com', 'CPF ou CNPJ': '529.982.247-25' },
      false,
    );
    expect(alert).toBe('Confira os dados Para pagar com boleto ou Pix Automático, informe o seu nome completo.');
    expectNoApiText(alert);
    await pageChecked(page, 'checkout-refused-boleto-name');
    await close();
  });

  it('says an unknown discount code was not found, in pt-BR', async () => {
    const { page, alert, close } = await refusedAlert(
      'Pix',
      { 'E-mail': 'carla@example.com', 'Cupom de desconto': unique('NAOEXISTE') },
      true,
    );
    expect(alert).toBe('Confira os dados Cupom de desconto não encontrado. Confira o código digitado.');
    expectNoApiText(alert);
    await pageChecked(page, 'checkout-refused-discount-code');
    await close();
  });
});

describe('a form post the page cannot take', () => {
  it('is a page in pt-BR, not the API\u2019s JSON validation body', async () => {
    const path = await checkoutPath();
    // A field past the form's limits (a hand-made post: the page's own fields never send it).
    const posted = await api.call('POST', path, {
      // As a browser posts a form: it asks for HTML.
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
        'accept-language': 'pt-BR,pt;q=0.9',
      },
      raw: `email=ana%40example.com&payment_method=pix&name=${'a'.repeat(300)}`,
    });
    expect(posted.status).toBe(400);
    expect(posted.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(posted.body).toContain('<h1>Não foi possível enviar</h1>');
    expect(posted.body).toContain('Volte à página, confira os dados e tente de novo.');
    expect(posted.body).not.toMatch(/validation_error|Invalid request|body\.name/);
  });
});

describe('a page past the rate limit', () => {
  // Its own API process, with a limit a few page loads reach; the counts are the database's, shared.
  let limited: TestApi;
  beforeAll(async () => {
    limited = await startApi({ RATE_LIMIT_MAX: '3' });
  });
  afterAll(async () => {
    await limited?.close();
  });

  /** Loads `path` until the limit answers (or gives up): the 429's response and page. */
  async function untilLimited(page: Page, path: string) {
    for (let i = 0; i < 10; i++) {
      const response = await page.goto(limited.baseUrl + path);
      if (response?.status() === 429) return response;
    }
    throw new Error(`${path} never answered 429`);
  }

  it('is a page in pt-BR that says how long to wait, not JSON (checkout and portal)', async () => {
    const path = await checkoutPath();
    const context = await newContext(browser, { phone: true });
    const page = await context.newPage();
    const response = await untilLimited(page, path);
    expect(response.headers()['content-type']).toMatch(/^text\/html/);
    const wait = Number(response.headers()['retry-after']);
    expect(wait).toBeGreaterThan(0);
    expect(await page.locator('html').getAttribute('lang')).toBe('pt-BR');
    await page.getByRole('heading', { level: 1, name: 'Muitas tentativas em pouco tempo' }).waitFor();
    const text = (await page.locator('main').textContent()) ?? '';
    expect(text).toContain(`Aguarde ${wait} segundo`);
    expect(text).not.toMatch(/rate_limited|Rate limit|\{/);
    await pageChecked(page, 'checkout-rate-limited');

    const portal = await untilLimited(page, '/portal');
    expect(portal.headers()['content-type']).toMatch(/^text\/html/);
    await page.getByRole('heading', { level: 1, name: 'Muitas tentativas em pouco tempo' }).waitFor();
    expect(await page.getByText(`Aguarde ${portal.headers()['retry-after']} segundo`).count()).toBe(1);
    await pageChecked(page, 'portal-rate-limited');
    await context.close();

    // A checkout link asked for JSON is the API: its 429 is the spec's body.
    const json = await limited.call('GET', '/checkout/00000000-0000-0000-0000-000000000000', {
      headers: { accept: 'application/json' },
    });
    expect(json.status).toBe(429);
    expect(json.body).toMatchObject({ code: 'rate_limited', error: 'Rate limit exceeded' });
  });
});
