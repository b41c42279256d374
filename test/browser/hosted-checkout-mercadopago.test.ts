import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { MERCADOPAGO_JS } from '../../api/browser-card-tokenizer.ts';
import { startApi, type TestApi } from '../helpers/api.ts';
import { launchBrowser, newContext, pageChecked, screenshot } from '../helpers/browser.ts';
import { cspDirectives, fillBuyer, fillCard, openCheckout, recordPosts } from '../helpers/checkout-page.ts';
import { makeTenant } from '../helpers/fixtures.ts';

/**
 * The hosted checkout with GATEWAY=mercadopago. MercadoPago.js cannot load offline, so the seam is
 * tested: https://sdk.mercadopago.com/js/v2 is answered by a stand-in that records how the page calls
 * it, and the form post to our server is caught before any Mercado Pago call (there is none here).
 * Checkouts are opened through the sandbox API; the Mercado Pago apps serve their pages (one database).
 */
const PUBLIC_KEY = 'TEST-0f1e2d3c-public-key';
const MERCADOPAGO = { GATEWAY: 'mercadopago', MERCADOPAGO_ACCESS_TOKEN: 'TEST-123' };
const LIVE = { DEPLOYMENT_ENV: 'live', GATEWAY_CALLBACK_SECRET: 'a-live-callback-secret-for-these-tests' };

let sandbox: TestApi;
/** Test deployment (card data accepted), live deployment (refused), and one without a public key. */
let mercadoPago: TestApi;
let live: TestApi;
let keyless: TestApi;
let browser: Browser;
let tenant: Awaited<ReturnType<typeof makeTenant>>;

beforeAll(async () => {
  [sandbox, mercadoPago, live, keyless, browser] = await Promise.all([
    startApi(),
    startApi({ ...MERCADOPAGO, MERCADOPAGO_PUBLIC_KEY: PUBLIC_KEY }),
    startApi({ ...MERCADOPAGO, ...LIVE, MERCADOPAGO_PUBLIC_KEY: PUBLIC_KEY }),
    startApi(MERCADOPAGO),
    launchBrowser(),
  ]);
  tenant = await makeTenant(sandbox.orm);
});
afterAll(async () => {
  await browser?.close();
  await Promise.all([sandbox, mercadoPago, live, keyless].map((api) => api?.close()));
});

/**
 * Stands in for MercadoPago.js v2's Secure Fields and BIN look-ups, reporting each call: each field a
 * frame whose input the test types into (as a buyer types into Mercado Pago's), its binChange once 8
 * digits are in, the issuer's plans for the BIN, and a token.
 */
const STAND_IN = `window.MercadoPago = class {
  constructor(publicKey, options) {
    window.reportMercadoPago('new', [publicKey, options]);
    const listeners = {};
    this.fields = {
      create(type, options) {
        window.reportMercadoPago('fields.create', [type]);
        const field = {
          on(event, callback) { (listeners[type + ':' + event] = listeners[type + ':' + event] || []).push(callback); return field; },
          mount(id) {
            window.reportMercadoPago('mount', [type, id]);
            const frame = document.createElement('iframe');
            frame.title = options.srLabel;
            frame.srcdoc = '<input aria-label="' + type + '">';
            frame.addEventListener('load', () => {
              const input = frame.contentDocument.querySelector('input');
              let bin = null;
              input.addEventListener('input', () => {
                (listeners[type + ':change'] || []).forEach((cb) => cb({ field: type }));
                const emit = (event, detail) => (listeners[type + ':' + event] || []).forEach((cb) => cb({ field: type, ...detail }));
                emit('validityChange', { errorMessages: input.value ? [] : [{ cause: 'empty' }] });
                const digits = input.value.replace(/\\D/g, '');
                const now = type === 'cardNumber' && digits.length >= 8 ? digits.slice(0, 8) : null;
                if (type === 'cardNumber' && now !== bin) { bin = now; emit('binChange', { bin }); }
              });
            });
            document.getElementById(id).replaceChildren(frame);
            return field;
          },
        };
        return field;
      },
      async createCardToken(data) {
        await window.reportMercadoPago('fields.createCardToken', [data]);
        return { id: 'mp-browser-token-0001', first_six_digits: '503143', last_four_digits: '6351' };
      },
    };
  }
  async getPaymentMethods(query) {
    await window.reportMercadoPago('getPaymentMethods', [query]);
    return { results: [{ id: 'master', payment_type_id: 'credit_card', issuer: { id: 24, name: 'Mastercard' } }] };
  }
  async getInstallments(query) {
    await window.reportMercadoPago('getInstallments', [query]);
    return [{ payment_method_id: 'master', issuer: { id: 24, name: 'Mastercard' }, payer_costs: [
      { installments: 1, installment_rate: 0, installment_amount: 99.9, total_amount: 99.9 },
      { installments: 2, installment_rate: 4.5, installment_amount: 52.2, total_amount: 104.4 },
    ] }];
  }
};`;

async function withStandIn(page: Page): Promise<{ calls: [string, unknown[]][]; origins: Set<string> }> {
  const calls: [string, unknown[]][] = [];
  const origins = new Set<string>();
  page.on('request', (request) => origins.add(new URL(request.url()).origin));
  await page.exposeFunction('reportMercadoPago', (name: string, args: unknown[]) => void calls.push([name, args]));
  await page.route(MERCADOPAGO_JS, (route) =>
    route.fulfill({ status: 200, contentType: 'text/javascript; charset=utf-8', body: STAND_IN }),
  );
  return { calls, origins };
}

/** The tests run offline: any request that leaves this machine fails at once (rather than hanging). */
const offline = (context: BrowserContext) =>
  context.route(/^https?:\/\/(?!127\.0\.0\.1[:/])/, (route) => route.abort('internetdisconnected'));

const csp = (headers: Record<string, string>) => cspDirectives(headers['content-security-policy']);

describe('the hosted checkout with Mercado Pago', () => {
  it("tokenizes with MercadoPago.js and the seller's public key; the post carries only the token", async () => {
    const checkout = await openCheckout(sandbox, tenant.oat, tenant.org.id);
    const context = await newContext(browser);
    await offline(context);
    const page = await context.newPage();
    const { calls, origins } = await withStandIn(page);
    const posts = recordPosts(page);
    // The form post stops here: what the browser sends is the seam under test.
    await page.route(mercadoPago.baseUrl + checkout.path, (route) =>
      route.request().method() === 'POST'
        ? route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>Sent</title>' })
        : route.continue(),
    );
    const response = await page.goto(mercadoPago.baseUrl + checkout.path);
    const directives = csp(response!.headers());
    expect(directives['script-src']).toBe("'self' https://sdk.mercadopago.com");
    expect(directives['connect-src']).toBe(
      "'self' https://api.mercadopago.com https://api-static.mercadopago.com https://secure-fields.mercadopago.com",
    );
    expect(directives['frame-src']).toBe('https://secure-fields.mercadopago.com');
    expect(directives['default-src']).toBe("'none'");
    await pageChecked(page, 'checkout-mercadopago');

    await fillBuyer(page);
    await fillCard(page, '5031 4332 1540 6351');
    // The issuer's plans replace the page's own: two, with the interest Mercado Pago quoted.
    await page.waitForFunction(() => document.querySelectorAll('#installments option').length === 2);
    expect(await page.locator('#installments option').allTextContents()).toEqual([
      '1x de R$\u00a099,90 (à vista)',
      '2x de R$\u00a052,20 (total R$\u00a0104,40)',
    ]);
    await page.getByLabel('Parcelas').selectOption('2');
    const sent = page.waitForRequest((r) => r.method() === 'POST' && r.url() === mercadoPago.baseUrl + checkout.path);
    // A script the CSP does not admit is blocked even though it is routed: the page then says so instead.
    const refused = page.locator('[data-card-error]:not([hidden])');
    await page.getByRole('button', { name: /^Pagar R\$/ }).click();
    await Promise.race([sent, refused.waitFor()]);
    expect((await refused.count()) > 0 ? await refused.textContent() : null).toBeNull();
    await sent;

    expect(calls).toEqual([
      ['new', [PUBLIC_KEY, { locale: 'pt-BR', trackingDisabled: true }]],
      ['fields.create', ['cardNumber']],
      ['mount', ['cardNumber', 'card_number_field']],
      ['fields.create', ['expirationDate']],
      ['mount', ['expirationDate', 'card_expiration_field']],
      ['fields.create', ['securityCode']],
      ['mount', ['securityCode', 'card_csc_field']],
      ['getPaymentMethods', [{ bin: '50314332' }]],
      ['getInstallments', [{ amount: '99.90', bin: '50314332', paymentTypeId: 'credit_card' }]],
      // No card number, expiry or code: only what is not card data, which the page does hold.
      [
        'fields.createCardToken',
        [{ cardholderName: 'ANA SOUZA', identificationType: 'CPF', identificationNumber: '52998224725' }],
      ],
    ]);
    expect(posts.map((p) => p.url.pathname)).toEqual([checkout.path]);
    expect(posts[0]!.fields).toMatchObject({
      payment_method: 'credit_card',
      card_token: 'mp-browser-token-0001',
      installments: '2',
      payment_method_id: 'master',
      issuer_id: '24',
    });
    expect(Object.keys(posts[0]!.fields).filter((f) => f.startsWith('card_'))).toEqual(['card_token']);
    expect(posts[0]!.body.replace(/\D/g, '')).not.toContain('5031433215406351');
    // The only origin besides ours: the gateway's script.
    expect([...origins].filter((o) => o !== mercadoPago.baseUrl)).toEqual(['https://sdk.mercadopago.com']);
    await context.close();
  });

  it('names the gateway in the CSP of the checkout page only', async () => {
    const link = await sandbox.call('POST', '/api/v1/checkout-links/', {
      token: tenant.oat,
      body: { product_ids: [(await openCheckoutProduct()).productId] },
    });
    for (const path of [`/checkout/${link.body.id}`, '/dashboard/sign-in', '/portal', '/checkout/c/cs_unknown']) {
      const res = await mercadoPago.call('GET', path);
      const directives = csp(res.headers as Record<string, string>);
      expect({ path, script: directives['script-src'], connect: directives['connect-src'] }).toEqual({
        path,
        script: "'self'",
        connect: "'self'",
      });
    }
  });

  it('in a live deployment, the card inputs have no name: without JavaScript no card is sent, and the page says why', async () => {
    const checkout = await openCheckout(sandbox, tenant.oat, tenant.org.id);
    const context = await browser.newContext({ ignoreHTTPSErrors: true, locale: 'pt-BR', javaScriptEnabled: false });
    await offline(context);
    const page = await context.newPage();
    const posts = recordPosts(page);
    await page.goto(live.baseUrl + checkout.path);
    // No card input with a name (the holder's name has none either), and no plain card input at all.
    expect(await page.locator('#card_name').getAttribute('name')).toBeNull();
    expect(await page.locator('input[autocomplete="cc-number"], input[autocomplete="cc-csc"]').count()).toBe(0);
    // Without JavaScript the browser shows the page's <noscript> note.
    expect(await page.locator('noscript').textContent()).toContain('Para pagar com cartão, ative o JavaScript');
    await fillBuyer(page);
    await page.getByLabel('Nome impresso no cartão').fill('ANA SOUZA');
    await page.getByRole('button', { name: /^Pagar R\$/ }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('Para pagar com cartão, ative o JavaScript');
    expect(Object.keys(posts[0]!.fields).filter((f) => f.startsWith('card_'))).toEqual(['card_token']);
    expect(posts[0]!.fields.card_token).toBe('');
    // axe runs as a script: not on a page without JavaScript.
    await screenshot(page, 'checkout-live-without-javascript');
    await context.close();

    // Card data posted anyway is the API's 422 card_data_refused, shown on the page in its language.
    const raw = new URLSearchParams({
      email: 'ana@example.com',
      payment_method: 'credit_card',
      card_number: '5031433215406351',
      card_name: 'ANA SOUZA',
      card_exp_month: '11',
      card_exp_year: '30',
      card_csc: '123',
    }).toString();
    const res = await live.call('POST', checkout.path, {
      raw,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(422);
    expect(res.body).toContain('O cartão não foi enviado pelo formulário seguro. Recarregue a página e tente de novo.');
    expect(res.body).not.toContain('5031433215406351');
    const [row] = await sandbox.orm.em
      .getConnection()
      .execute('select status from checkouts where id = ?', [checkout.id]);
    expect(row).toEqual({ status: 'open' });
  });

  it('without a public key, the page says the card cannot be taken and offers pix and boleto', async () => {
    const checkout = await openCheckout(sandbox, tenant.oat, tenant.org.id);
    const context = await newContext(browser);
    await offline(context);
    const page = await context.newPage();
    const response = await page.goto(keyless.baseUrl + checkout.path);
    expect(csp(response!.headers())['script-src']).toBe("'self'");
    expect(await page.getByTestId('card-unavailable').textContent()).toBe(
      'O pagamento com cartão não está disponível nesta loja no momento: pague com pix ou boleto.',
    );
    expect(await page.locator('[data-card-fields]').count()).toBe(0);
    expect(await page.locator('script[src*="mercadopago"]').count()).toBe(0);
    expect(await page.getByRole('radio', { name: 'Pix' }).isChecked()).toBe(true);
    expect(await page.getByRole('radio', { name: 'Cartão de crédito' }).count()).toBe(0);
    await pageChecked(page, 'checkout-card-unavailable');
    await context.close();
  });
});

/** A product of the tenant, for a checkout link. */
async function openCheckoutProduct(): Promise<{ productId: string }> {
  const product = await sandbox.call('POST', '/api/v1/products/', {
    token: tenant.oat,
    body: {
      organization_id: tenant.org.id,
      name: 'Oficina de cerâmica',
      prices: [{ type: 'one_time', currency: 'brl', unit_amount: 5_000 }],
    },
  });
  return { productId: product.body.id };
}
