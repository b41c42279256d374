import { beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser } from 'playwright-core';
import type { SimulatedGateway } from '@billing/simulated-gateway';
import type { TestApi } from '../helpers/api.ts';
import { dashboardSignedIn, expectAccessibleAtBothSizes, newContext, pageChecked } from '../helpers/browser.ts';
import { fillBuyer, fillPlainCard, openCheckout } from '../helpers/checkout-page.ts';
import { unique } from '../helpers/fixtures.ts';
import { hostedCheckoutBed, type HostedCheckoutBed } from '../helpers/hosted-checkout-bed.ts';
import { until } from '../helpers/processes.ts';
import type { ShopSite } from '../helpers/shop-site.ts';

/**
 * What a buyer meets around the payment form: the product's description as written (Markdown, safely),
 * a second submit of a paid checkout without JavaScript, a link whose product was archived (and the
 * dashboard that no longer counts that link in use), and a closed checkout with no shop to go back to.
 */
const bed = hostedCheckoutBed({
  // A pix's expiry reaches this API as the sandbox's callback.
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

async function product(extra: Record<string, unknown> = {}): Promise<string> {
  const created = await api.call('POST', '/api/v1/products/', {
    token: tenant.oat,
    body: {
      organization_id: tenant.org.id,
      name: unique('Curso de cerâmica'),
      prices: [{ type: 'one_time', currency: 'brl', unit_amount: 12_000 }],
      ...extra,
    },
  });
  expect(created.status).toBe(201);
  return created.body.id;
}

async function link(productId: string, label: string): Promise<string> {
  const created = await api.call('POST', '/api/v1/checkout-links/', {
    token: tenant.oat,
    body: { product_ids: [productId], label },
  });
  expect(created.status).toBe(201);
  return created.body.id;
}

const DESCRIPTION = [
  '# Sobre o curso',
  '',
  'Aprenda **cerâmica** em _quatro_ aulas.',
  '',
  '- Argila inclusa',
  '- [Programa](https://shop.example/programa)',
  '',
  '[Clique](javascript:alert) <script>alert(1)</script> <img src=x onerror="alert(2)">',
].join('\n');

describe('hosted checkout pages', () => {
  it("shows the product's Markdown description formatted, and nothing the merchant wrote runs", async () => {
    const productId = await product({ description: DESCRIPTION });
    const created = await api.call('POST', '/api/v1/checkouts/', {
      token: tenant.oat,
      body: { product_id: productId },
    });
    const context = await newContext(browser, { phone: true });
    const page = await context.newPage();
    const dialogs: string[] = [];
    const refused: string[] = [];
    page.on('dialog', (d) => void dialogs.push(d.message()));
    page.on('console', (m) => void (m.text().includes('Content Security Policy') && refused.push(m.text())));
    await page.goto(`${api.baseUrl}/checkout/c/${created.body.client_secret}`);
    const description = page.locator('.description');
    await expect(description.getByRole('heading', { level: 2 }).textContent()).resolves.toBe('Sobre o curso');
    await expect(description.locator('strong').textContent()).resolves.toBe('cerâmica');
    await expect(description.locator('em').textContent()).resolves.toBe('quatro');
    await expect(description.getByRole('listitem').count()).resolves.toBe(2);
    const programme = description.getByRole('link', { name: 'Programa' });
    await expect(programme.getAttribute('href')).resolves.toBe('https://shop.example/programa');
    await expect(programme.getAttribute('rel')).resolves.toBe('noopener noreferrer nofollow');
    // The javascript: link is its text only; the HTML is text the buyer reads, not elements.
    await expect(description.getByRole('link').count()).resolves.toBe(1);
    await expect(description.locator('script, img').count()).resolves.toBe(0);
    await expect(description.textContent()).resolves.toContain('<script>alert(1)</script>');
    await expectAccessibleAtBothSizes(page, 'checkout-markdown-description');
    expect(dialogs).toEqual([]);
    expect(refused).toEqual([]);
    await context.close();
  });

  it('without JavaScript, sends a second submit of a paid checkout where the first one went', async () => {
    const checkout = await openCheckout(api, tenant.oat, tenant.org.id, {
      successUrl: `${shop.origin}/obrigado?c={CHECKOUT_ID}`,
    });
    const context = await browser.newContext({ ignoreHTTPSErrors: true, locale: 'pt-BR', javaScriptEnabled: false });
    const first = await context.newPage();
    const again = await context.newPage();
    for (const page of [first, again]) await page.goto(api.baseUrl + checkout.path);
    await fillBuyer(first);
    await fillPlainCard(first, '4111111111111111');
    await first.getByRole('button', { name: /^Pagar R\$/ }).click();
    await first.waitForURL(`${shop.origin}/obrigado?c=${checkout.id}`);

    // The form still open in another tab (or come back to), sent again: no second charge, the same place.
    await fillBuyer(again);
    await fillPlainCard(again, '4111111111111111');
    const [answer] = await Promise.all([
      again.waitForResponse((r) => r.request().method() === 'POST'),
      again.getByRole('button', { name: /^Pagar R\$/ }).click(),
    ]);
    expect(answer.status()).toBe(303);
    await again.waitForURL(`${shop.origin}/obrigado?c=${checkout.id}`);
    const paid = await sql('select count(*)::int as n from transactions where checkout_id = ?', [checkout.id]);
    expect(paid).toEqual([{ n: 1 }]);
    await context.close();
  });

  it("says on a link's first page that its product is archived, and the dashboard stops listing it in use", async () => {
    const productId = await product();
    const label = unique('Vaso');
    const linkId = await link(productId, label);
    const archived = await api.call('PATCH', `/api/v1/products/${productId}`, {
      token: tenant.oat,
      body: { is_archived: true },
    });
    expect(archived.status).toBe(200);

    const context = await newContext(browser, { phone: true });
    const page = await context.newPage();
    await page.goto(`${api.baseUrl}/checkout/${linkId}`);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(
      'Este link de pagamento não está disponível',
    );
    await expect(page.getByText('Este produto não está mais à venda.').isVisible()).resolves.toBe(true);
    await expect(page.getByRole('button').count()).resolves.toBe(0);
    await pageChecked(page, 'checkout-link-archived-product');
    await context.close();

    const dashboard = await dashboardSignedIn(browser, api.baseUrl, tenant.ownerJwt);
    await dashboard.page.goto(`${api.baseUrl}/dashboard/${tenant.org.id}/checkout-links`);
    const inUse = dashboard.page.getByRole('table', { name: 'Links in use' });
    await expect(inUse.getByRole('row', { name: new RegExp(label) }).count()).resolves.toBe(0);
    const stalled = dashboard.page.getByRole('region', { name: 'Links of archived products' });
    await expect(stalled.getByRole('row', { name: new RegExp(label) }).count()).resolves.toBe(1);
    await pageChecked(dashboard.page, 'checkout-links-archived-product');
    await dashboard.context.close();
  });

  it('tells a buyer whose boleto expired, with no shop page to go back to, how to start again', async () => {
    const linkId = await link(await product(), unique('Caneca'));
    const context = await newContext(browser);
    const page = await context.newPage();
    await page.goto(`${api.baseUrl}/checkout/${linkId}`);
    await page.getByRole('button', { name: 'Continuar' }).click();
    // A boleto: an expired pix would reopen the checkout for a new code (decision 0089), a boleto closes it.
    await page.getByLabel('Boleto', { exact: true }).check();
    await page.getByLabel('E-mail', { exact: true }).fill('caio@example.com');
    await page.getByLabel('Nome completo').fill('Caio Prado');
    await page.getByLabel('CPF ou CNPJ').fill('529.982.247-25');
    await page.getByRole('button', { name: 'Gerar boleto' }).click();
    await page.getByLabel('Linha digitável').waitFor();
    // Without JavaScript nothing polls: the waiting page links to itself, to see the payment as it stands.
    const noScript = await browser.newContext({ ignoreHTTPSErrors: true, locale: 'pt-BR', javaScriptEnabled: false });
    const still = await noScript.newPage();
    await still.goto(page.url());
    const refresh = still.getByRole('link', { name: 'Atualizar a situação do pagamento' });
    await expect(refresh.getAttribute('href')).resolves.toBe(new URL(page.url()).pathname);
    await noScript.close();
    const [row] = await sql('select id, gateway_payment_data from checkouts where checkout_link_id = ?', [linkId]);
    const expired = await api.call(
      'POST',
      `/api/v1/sandbox/transactions/${row.gateway_payment_data.transaction_id}/expire`,
    );
    expect(expired.status).toBe(200);
    await until(
      async () => (await sql('select status from checkouts where id = ?', [row.id]))[0].status !== 'confirmed',
      30_000,
      'the checkout to close',
    );
    await page.reload();
    const restart = page.getByRole('link', { name: 'Começar de novo' });
    await expect(restart.getAttribute('href')).resolves.toBe(`/checkout/${linkId}`);
    await pageChecked(page, 'checkout-closed-restart');
    await restart.click();
    await page.getByRole('button', { name: 'Continuar' }).waitFor();
    await context.close();
  });
});
