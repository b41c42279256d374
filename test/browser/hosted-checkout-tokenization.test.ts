import { beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser } from 'playwright-core';
import { SANDBOX_PUBLIC_KEY } from '../../api/browser-card-tokenizer.ts';
import { DEFAULT_MONTHLY_RATE_BASIS_POINTS, installmentOptions } from '../../domain/installments.ts';
import { formatAmount } from '../../domain/money.ts';
import type { TestApi } from '../helpers/api.ts';
import { hostedCheckoutBed, type HostedCheckoutBed } from '../helpers/hosted-checkout-bed.ts';
import { newContext, pageChecked } from '../helpers/browser.ts';
import {
  cspDirectives,
  fillBuyer,
  fillCard,
  fillPlainCard,
  openCheckout,
  recordPosts,
  secureInput,
} from '../helpers/checkout-page.ts';
import type { ShopSite } from '../helpers/shop-site.ts';

/**
 * The sandbox's hosted checkout tokenizes the card in the browser with sandbox-gateway.js (the
 * simulated gateway's MercadoPago.js look-alike): every request the page makes is recorded, and the
 * card number travels only to the tokenization endpoint, never with the form post.
 */
const bed = hostedCheckoutBed();
let api: TestApi;
let browser: Browser;
let shop: ShopSite;
let tenant: HostedCheckoutBed['tenant'];
beforeAll(() => {
  ({ api, browser, shop, tenant } = bed);
});

const sql = <T = any>(text: string, params: unknown[] = []) => api.orm.em.getConnection().execute<T[]>(text, params);
const TOKENIZER = '/sandbox-gateway/v1/card_tokens';
const CARD_FIELDS = ['card_number', 'card_name', 'card_exp_month', 'card_exp_year', 'card_csc'];

describe('the hosted checkout tokenizes the card in the browser (sandbox)', () => {
  it('pays by card: the card goes to the tokenizer, the form post carries only its token', async () => {
    const checkout = await openCheckout(api, tenant.oat, tenant.org.id, { successUrl: `${shop.origin}/obrigado` });
    const context = await newContext(browser);
    const page = await context.newPage();
    const posts = recordPosts(page);
    const response = await page.goto(api.baseUrl + checkout.path);
    // The sandbox's script is ours: the CSP stays 'self' only.
    const csp = cspDirectives(response!.headers()['content-security-policy']);
    expect({ script: csp['script-src'], connect: csp['connect-src'] }).toEqual({ script: "'self'", connect: "'self'" });
    expect(await page.locator('script[src$="/sandbox-gateway.js"]').count()).toBe(1);
    await fillBuyer(page);
    await fillCard(page, '4111 1111 1111 1111');
    await page.getByLabel('Parcelas').selectOption('3');
    await pageChecked(page, 'checkout-tokenized-card');
    await page.getByRole('button', { name: /^Pagar R\$/ }).click();
    await page.waitForURL(`${shop.origin}/obrigado`);

    const ours = posts.filter((p) => p.url.origin === api.baseUrl);
    expect(ours).toHaveLength(posts.length);
    expect(ours.map((p) => p.url.pathname)).toEqual([TOKENIZER, checkout.path]);
    const [tokenization, formPost] = ours as [(typeof ours)[number], (typeof ours)[number]];
    // The number does travel, to the tokenizer only (so the recording does see it when it is sent)…
    expect(tokenization.url.searchParams.get('public_key')).toBe(SANDBOX_PUBLIC_KEY);
    expect(JSON.parse(tokenization.body)).toMatchObject({
      card_number: '4111111111111111',
      expiration_month: 11,
      expiration_year: 2030,
      security_code: '123',
      cardholder: { name: 'ANA SOUZA', identification: { type: 'CPF', number: '52998224725' } },
    });
    // …and the form post carries the token, no card field and no card digits.
    const token = formPost.fields.card_token;
    expect(token).toMatch(/^card_/);
    expect(Object.keys(formPost.fields).sort()).toEqual(
      [
        'card_token',
        'discount_code',
        'email',
        'installments',
        'issuer_id',
        'name',
        'payment_method',
        'payment_method_id',
        'tax_id',
      ].sort(),
    );
    expect(formPost.fields).toMatchObject({
      payment_method: 'credit_card',
      installments: '3',
      payment_method_id: 'visa',
      issuer_id: '9001',
    });
    for (const post of ours.filter((p) => p.url.pathname !== TOKENIZER)) {
      expect(post.body.replace(/\D/g, '')).not.toContain('4111111111111111');
      for (const field of CARD_FIELDS) expect(post.fields).not.toHaveProperty(field);
    }

    const [row] = await sql('select status from checkouts where id = ?', [checkout.id]);
    expect(row).toEqual({ status: 'succeeded' });
    const [transaction] = await sql('select card, installments from transactions where checkout_id = ?', [checkout.id]);
    expect(transaction).toMatchObject({
      installments: 3,
      card: { brand: 'visa', last4: '1111', holder_name: 'ANA SOUZA' },
    });
    await context.close();
  });

  it('shows a declined test card as before, after tokenizing it', async () => {
    const checkout = await openCheckout(api, tenant.oat, tenant.org.id);
    const context = await newContext(browser);
    const page = await context.newPage();
    const posts = recordPosts(page);
    await page.goto(api.baseUrl + checkout.path);
    await fillBuyer(page);
    await fillCard(page, '4000000000000002');
    await page.getByRole('button', { name: /^Pagar R\$/ }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('Pagamento recusado');
    expect(await alert.textContent()).toContain('O cartão foi recusado pelo emissor.');
    expect(await secureInput(page, 'card_number_field').inputValue()).toBe('');
    const formPost = posts.find((p) => p.url.pathname === checkout.path)!;
    expect(formPost.fields.card_token).toMatch(/^card_/);
    expect(formPost.body.replace(/\D/g, '')).not.toContain('4000000000000002');
    await pageChecked(page, 'checkout-tokenized-declined');
    await context.close();
  });

  it('says why the card could not be tokenized, beside the form, and lets the buyer try again', async () => {
    const checkout = await openCheckout(api, tenant.oat, tenant.org.id);
    const context = await newContext(browser);
    const page = await context.newPage();
    const posts = recordPosts(page);
    await page.goto(api.baseUrl + checkout.path);
    await fillBuyer(page);
    const pay = page.getByRole('button', { name: /^Pagar R\$/ });

    // A field left blank: the script names it, and nothing is sent anywhere.
    await secureInput(page, 'card_number_field').fill('4111111111111111');
    await pay.click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toBe(
      'Preencha os dados do cartão: Nome impresso no cartão, Validade (MM/AA), Código de segurança (CVV).',
    );
    expect(posts).toEqual([]);

    // A card the tokenizer refuses (month 13): its message, and no post to the page.
    await fillCard(page, '4111111111111111', { month: '13' });
    await pay.click();
    await alert.filter({ hasText: 'Não foi possível validar o cartão' }).waitFor();
    expect(await alert.textContent()).toBe('Não foi possível validar o cartão. Confira os dados ou use outro cartão.');
    expect(posts.map((p) => p.url.pathname)).toEqual([TOKENIZER]);
    expect(await pay.getAttribute('aria-busy')).toBeNull();
    await pageChecked(page, 'checkout-tokenization-refused');

    // Corrected, it goes through.
    await secureInput(page, 'card_expiration_field').fill('12/30');
    await pay.click();
    await page.waitForURL(/\/checkout\/c\/cs_/);
    await page.getByText('Pagamento confirmado').waitFor();
    expect(posts.map((p) => p.url.pathname)).toEqual([TOKENIZER, TOKENIZER, checkout.path]);
    await context.close();
  });

  it("looks the card up by its BIN: only its issuer's instalments (a debit card: one), posted with its method and issuer", async () => {
    const checkout = await openCheckout(api, tenant.oat, tenant.org.id, { amount: 20_000 });
    const context = await newContext(browser);
    const page = await context.newPage();
    const posts = recordPosts(page);
    await page.goto(api.baseUrl + checkout.path);
    const options = () => page.locator('#installments option').allTextContents();
    const optionCount = (n: number) =>
      page.waitForFunction((n) => document.querySelectorAll('#installments option').length === n, n);
    // Before a card is typed: the checkout's own plans (up to 12).
    expect(await options()).toHaveLength(12);

    // A Mastercard whose issuer offers up to 6: six options, each with what the buyer pays in all.
    await secureInput(page, 'card_number_field').fill('5555 5555 5555 4444');
    await optionCount(6);
    const brl = (cents: number) => formatAmount(cents, 'brl', 'pt-BR');
    const plans = installmentOptions(
      20_000,
      { noFees: false, monthlyRateBasisPoints: DEFAULT_MONTHLY_RATE_BASIS_POINTS },
      6,
    );
    expect(await options()).toEqual(
      plans.map((p) =>
        p.installments === 1
          ? `1x de ${brl(20_000)} (à vista)`
          : `${p.installments}x de ${brl(p.installmentAmounts[0]!)} (total ${brl(p.total)})`,
      ),
    );

    // Fewer than 8 digits: no BIN, the checkout's plans again; a debit card: one instalment.
    await secureInput(page, 'card_number_field').fill('4000 05');
    await optionCount(12);
    await secureInput(page, 'card_number_field').fill('4000 0566 5566 5556');
    await optionCount(1);
    expect(await options()).toEqual([`1x de ${brl(20_000)} (à vista)`]);

    // The card's inputs live in the gateway's frames: the page's document and its form hold none.
    expect(await page.locator('iframe[data-secure-field]').count()).toBe(3);
    const inPage = await page.evaluate(() => ({
      inputs: Array.from(document.querySelectorAll('input')).map((i) => i.autocomplete),
      values: Array.from(document.querySelectorAll('form input, form select')).map(
        (i) => (i as HTMLInputElement).value,
      ),
    }));
    expect(inPage.inputs).not.toEqual(expect.arrayContaining(['cc-number']));
    expect(inPage.inputs).not.toEqual(expect.arrayContaining(['cc-csc']));
    expect(inPage.values.join(' ').replace(/\D/g, '')).not.toContain('4000056655665556');

    await fillBuyer(page);
    await fillCard(page, '4000 0566 5566 5556');
    await page.getByRole('button', { name: /^Pagar R\$/ }).click();
    await page.getByText('Pagamento confirmado').waitFor();
    const formPost = posts.find((p) => p.url.pathname === checkout.path)!;
    expect(formPost.fields).toMatchObject({ payment_method_id: 'debvisa', issuer_id: '9002', installments: '1' });
    expect(formPost.body.replace(/\D/g, '')).not.toContain('4000056655665556');
    const [transaction] = await sql('select installments, amount from transactions where checkout_id = ?', [
      checkout.id,
    ]);
    expect(transaction).toMatchObject({ installments: 1 });
    await context.close();
  });

  it('without JavaScript, the sandbox (which takes card data) still pays from the plain form post', async () => {
    const checkout = await openCheckout(api, tenant.oat, tenant.org.id);
    const context = await browser.newContext({ ignoreHTTPSErrors: true, locale: 'pt-BR', javaScriptEnabled: false });
    const page = await context.newPage();
    const posts = recordPosts(page);
    await page.goto(api.baseUrl + checkout.path);
    await fillBuyer(page);
    await fillPlainCard(page, '4111111111111111');
    await page.getByRole('button', { name: /^Pagar R\$/ }).click();
    await page.getByText('Pagamento confirmado').waitFor();
    expect(posts.map((p) => [p.url.pathname, p.fields.card_number, p.fields.card_token])).toEqual([
      [checkout.path, '4111111111111111', ''],
    ]);
    await context.close();
  });
});
