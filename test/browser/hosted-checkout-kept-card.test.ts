import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { MERCADOPAGO_JS } from '../../api/browser-card-tokenizer.ts';
import { REPO_ROOT } from '../../scripts/tool-paths.ts';
import { launchBrowser, newContext, pageChecked } from '../helpers/browser.ts';
import { makeCheckout, waitForCheckoutStatus } from '../helpers/checkouts.ts';
import { makeOat } from '../helpers/fixtures.ts';
import { mercadoPagoTestbed } from '../helpers/mercadopago-testbed.ts';

/**
 * A manual renewal's checkout page paid with the card the subscription keeps, the buyer typing its
 * security code again (decision 0078), on GATEWAY=mercadopago: the API and a worker in this process,
 * Mercado Pago answered by the stateful fake. MercadoPago.js cannot load offline, so its URL is answered
 * by the sandbox's look-alike (pages/assets/sandbox-gateway.js, the same calls: `fields.create`,
 * `fields.createCardToken({ cardId })`), whose `POST …/card_tokens` (card_id, security_code) the test
 * answers with the fake's token of that card, minted with the code it carries, as Mercado Pago's is.
 */
const QUEUE = 'billing-test-mercadopago-kept-card-page';
const PUBLIC_KEY = 'TEST-0f1e2d3c-public-key';
const { mp, stack, sql } = mercadoPagoTestbed(QUEUE, 'mp-webhook-secret-kept-card', {
  MERCADOPAGO_PUBLIC_KEY: PUBLIC_KEY,
});
let browser: Browser;
let lookAlike: string;

beforeAll(async () => {
  browser = await launchBrowser();
  lookAlike = await readFile(path.join(REPO_ROOT, 'pages/assets/sandbox-gateway.js'), 'utf8');
});
afterAll(async () => {
  await browser?.close();
});

/** A manually billed subscription whose first payment kept its card, and its next period's open checkout. */
async function renewalCheckout() {
  const c = await makeCheckout(stack.api.orm, stack.temporal, {
    recurring: 'month',
    recurrenceBilling: 'manual',
    amount: 4_990,
    taskQueue: QUEUE,
  });
  const first = await stack.api.call('POST', `/api/v1/checkouts/client/${c.clientSecret}/confirm-sdk`, {
    body: { payment_method: 'credit_card', card_token: mp.cardToken() },
  });
  expect(first.body).toMatchObject({ status: 'succeeded' });
  const [s] = await sql('select id, card_token_id from subscriptions where checkout_id = ?', [c.id]);
  expect(s.card_token_id).toMatch(/^mpcard:[^:]+:card\d+:master:24$/);
  const oat = await makeOat(stack.api.orm, c.organizationId);
  const res = await stack.api.call('POST', `/api/v1/checkouts/${c.id}/manual-renewal-checkout`, { token: oat });
  expect(res.status).toBe(201);
  const [, customerId, cardId] = (s.card_token_id as string).split(':');
  return {
    id: res.body.id as string,
    path: `/checkout/c/${res.body.client_secret}`,
    subscription: s as { id: string; card_token_id: string },
    customerId: customerId!,
    cardId: cardId!,
  };
}

/**
 * MercadoPago.js answered by the look-alike; its card token call by the fake (the security code it
 * carries minted into the token, as Mercado Pago mints it); every other request off this machine fails.
 */
async function mercadoPagoPage(context: BrowserContext): Promise<{ page: Page; minted: unknown[] }> {
  const minted: unknown[] = [];
  await context.route(/^https?:\/\/(?!127\.0\.0\.1[:/])/, (route) => route.abort('internetdisconnected'));
  await context.route(MERCADOPAGO_JS, (route) =>
    route.fulfill({ status: 200, contentType: 'text/javascript; charset=utf-8', body: lookAlike }),
  );
  await context.route('**/sandbox-gateway/v1/card_tokens?*', async (route) => {
    const body = route.request().postDataJSON() as { card_id: string; security_code: string };
    minted.push(body);
    const id = mp.keptCardToken(body.card_id, body.security_code || undefined);
    await route.fulfill({
      status: 201,
      contentType: 'application/json',
      body: JSON.stringify({ id, status: 'active' }),
    });
  });
  return { page: await context.newPage(), minted };
}

const codeInput = (page: Page) => page.frameLocator('#kept_card_csc_field iframe').locator('input');

describe('a renewal paid with the kept card (Mercado Pago)', () => {
  it("asks the card's security code again and pays with the token minted from the card and that code", async () => {
    const renewal = await renewalCheckout();
    const context = await newContext(browser);
    const { page, minted } = await mercadoPagoPage(context);
    await page.goto(`${stack.api.baseUrl}${renewal.path}`);

    const kept = page.getByRole('radio', { name: 'Cartão Mastercard final 6351' });
    await expect(kept.isChecked()).resolves.toBe(true);
    await codeInput(page).waitFor();
    await pageChecked(page, 'checkout-kept-card');

    // Pressed without the code: the page says what is missing, and nothing is minted or posted.
    await page
      .getByRole('button', { name: /^Pagar/ })
      .first()
      .click();
    const alert = page.locator('[data-kept-card-fields] [data-card-error]');
    await expect(alert.textContent()).resolves.toBe('Digite o código de segurança do cartão.');
    expect(minted).toEqual([]);
    expect(mp.requests.filter((r) => r.body?.metadata?.reference === renewal.id)).toEqual([]);

    await codeInput(page).fill('123');
    await Promise.all([
      page.waitForURL(`${stack.api.baseUrl}${renewal.path}`),
      page
        .getByRole('button', { name: /^Pagar/ })
        .first()
        .click(),
    ]);
    await waitForCheckoutStatus(stack.api.orm, renewal.id, 'succeeded');
    await page.getByText('Pagamento confirmado').first().waitFor();

    // MercadoPago.js' saved-card call: the card's id and the code typed into its Secure Field.
    expect(minted).toEqual([{ card_id: renewal.cardId, security_code: '123' }]);
    const paid = mp.requests.filter(
      (r) => r.method === 'POST' && r.path === '/v1/payments' && r.body?.metadata?.reference === renewal.id,
    );
    expect(paid).toHaveLength(1);
    // The browser's token as it is (no token of ours), the card's customer paying with the buyer present.
    expect(paid[0]!.body).toMatchObject({
      payer: { type: 'customer', id: renewal.customerId },
      payment_method_id: 'master',
      issuer_id: 24,
      three_d_secure_mode: 'optional',
    });
    expect(paid[0]!.body).not.toHaveProperty('point_of_interaction');
    expect([...mp.payments.values()].find((p) => p.metadata?.reference === renewal.id)).toMatchObject({
      status: 'approved',
      transaction_amount: 49.9,
    });
    // No card minted by our server, none kept again; the subscription keeps its card and pays its period.
    const ours = mp.requests.filter((r) => r.path === '/v1/card_tokens' || /\/cards$/.test(r.path));
    expect(ours.filter((r) => r.key?.startsWith(`checkout:${renewal.id}`))).toEqual([]);
    const [s] = await sql('select card_token_id, period_number from subscriptions where id = ?', [
      renewal.subscription.id,
    ]);
    expect(s).toEqual({ card_token_id: renewal.subscription.card_token_id, period_number: 2 });
    await context.close();
  });

  it('is 422 no_kept_card over the API for a checkout whose subscription keeps no card', async () => {
    const c = await makeCheckout(stack.api.orm, stack.temporal, { amount: 1_000, taskQueue: QUEUE });
    const res = await stack.api.call('POST', `/api/v1/checkouts/client/${c.clientSecret}/confirm-sdk`, {
      body: { payment_method: 'credit_card', card_token: { token: mp.browserToken(), kept_card: true } },
    });
    expect([res.status, res.body.code]).toEqual([422, 'no_kept_card']);
    expect(mp.requests.filter((r) => r.body?.metadata?.reference === c.id)).toEqual([]);
  });
});
