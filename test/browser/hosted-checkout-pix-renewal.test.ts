import { beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser } from 'playwright-core';
import type { TestApi } from '../helpers/api.ts';
import { hostedCheckoutBed, type HostedCheckoutBed } from '../helpers/hosted-checkout-bed.ts';
import type { SimulatedGateway } from '@billing/simulated-gateway';
import { newContext, pageChecked } from '../helpers/browser.ts';
import { unique } from '../helpers/fixtures.ts';
import type { ShopSite } from '../helpers/shop-site.ts';

/**
 * A buyer on a phone whose pix code expired while the checkout is still open asks for a new one
 * (issue 34 §1, decision 0089): the page moves by itself to "Gerar novo código", and the new code pays.
 */
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

async function checkout() {
  const product = await api.call('POST', '/api/v1/products/', {
    token: tenant.oat,
    body: {
      organization_id: tenant.org.id,
      name: unique('Ebook'),
      prices: [{ type: 'one_time', currency: 'brl', unit_amount: 4990 }],
    },
  });
  const created = await api.call('POST', '/api/v1/checkouts/', {
    token: tenant.oat,
    body: { product_id: product.body.id, success_url: `${shop.origin}/obrigado?c={CHECKOUT_ID}` },
  });
  expect(created.status).toBe(201);
  return { id: created.body.id as string, url: `${api.baseUrl}/checkout/c/${created.body.client_secret}` };
}

describe('hosted checkout: an expired pix', () => {
  it('offers a new code on the same checkout at 390 px, and the new code pays it', async () => {
    const c = await checkout();
    const page = await (await newContext(browser, { phone: true })).newPage();
    await page.goto(c.url);
    await page.getByLabel('Pix', { exact: true }).check();
    await page.getByLabel('E-mail', { exact: true }).fill('bia@example.com');
    await page.getByRole('button', { name: 'Gerar código pix' }).click();
    const code = page.getByLabel('Código pix copia e cola');
    const expiredCode = await code.inputValue();
    const expiredId = (await api.call('GET', `/api/v1/checkouts/client/${c.url.split('/').pop()}`)).body
      .gateway_payment_data.transaction_id as string;

    await api.call('POST', `/api/v1/sandbox/transactions/${expiredId}/expire`);
    // The page's poll sees the checkout open again and reloads it.
    const renew = page.getByRole('button', { name: 'Gerar novo código' });
    await renew.waitFor({ timeout: 30_000 });
    await expect(page.getByRole('heading', { name: 'O código pix expirou' }).isVisible()).resolves.toBe(true);
    // Not a refusal: no "Pagamento recusado" alert.
    expect(await page.locator('#payment-alert').count()).toBe(0);
    await pageChecked(page, 'checkout-pix-renewal');

    await renew.click();
    await code.waitFor();
    const newCode = await code.inputValue();
    expect(newCode).not.toBe(expiredCode);
    const newId = (await api.call('GET', `/api/v1/checkouts/client/${c.url.split('/').pop()}`)).body
      .gateway_payment_data.transaction_id as string;
    expect((await api.call('POST', `/api/v1/sandbox/transactions/${newId}/pay`)).status).toBe(200);
    await page.waitForURL(`${shop.origin}/obrigado?c=${c.id}`, { timeout: 30_000 });
  });
});
