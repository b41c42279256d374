import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser } from 'playwright-core';
import { useApi, type TestApi } from '../helpers/api.ts';
import { expectAccessibleAtBothSizes, launchBrowser, newContext, screenshot } from '../helpers/browser.ts';
import { makeTenant, unique } from '../helpers/fixtures.ts';

/**
 * The buyer's choice of Pix Automático on the hosted page, in Chromium (decision 0096's opt-in): a
 * checkout of a monthly price the merchant left to manual renewals offers "Pix Automático" beside pix,
 * states its terms before payment, asks for the payer's name and CPF once it is chosen, and shows the
 * mandate's QR code; the sandbox's payer answers it by the checkout, and the page turns to success.
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
const LABEL = 'Pix Automático: pagar todo mês automaticamente';

async function manualCheckout() {
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
    body: { product_id: product.body.id, customer_email: 'ana@example.com', recurrence_billing: 'manual' },
  });
  expect(created.status).toBe(201);
  return { tenant, id: created.body.id as string, url: `${api.baseUrl}/checkout/c/${created.body.client_secret}` };
}

describe("the hosted page's choice of Pix Automático", () => {
  it('is offered beside pix, states its terms, wants name and CPF, and pays and authorizes with one QR code', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    const c = await manualCheckout();
    await page.goto(c.url);
    const choice = page.getByLabel(LABEL);
    await choice.waitFor();
    // Every method stays: the card, pix, Pix Automático and boleto.
    expect(await page.locator('input[name="payment_method"]').count()).toBe(4);
    // A monthly price is charged whole each period: its total, and no instalment line ("À vista") under it.
    expect(await page.getByTestId('total').textContent()).toBe(brl(3_990));
    expect(await page.getByTestId('plan').count()).toBe(0);
    const terms = page.getByTestId('mandate-terms');
    // Plain pix wants no name: Pix Automático's terms and its payer's fields wait for its choice.
    await page.getByLabel('Pix', { exact: true }).check();
    expect(await terms.isVisible()).toBe(false);
    expect(await page.getByLabel('Nome completo').evaluate((i: HTMLInputElement) => i.required)).toBe(false);

    await choice.check();
    await terms.waitFor();
    expect(await terms.getByTestId('mandate-amount').textContent()).toBe(`${brl(3_990)} cobrados todo mês.`);
    await terms.getByText('O primeiro período é pago agora, com o QR code do pix.').waitFor();
    expect(await terms.getByTestId('mandate-next').textContent()).toMatch(
      /^Próxima cobrança estimada em \d{2}\/\d{2}\/\d{4}\.$/,
    );
    await terms.getByText(/no app do seu banco ou no portal do cliente/).waitFor();
    await screenshot(page, 'checkout-pix-automatico-opt-in');
    await expectAccessibleAtBothSizes(page);

    const button = page.getByRole('button', { name: 'Gerar QR code do Pix Automático' });
    await button.click();
    expect(await page.getByLabel('Nome completo').evaluate((i: HTMLInputElement) => i.validity.valueMissing)).toBe(
      true,
    );
    expect((await sql('select status from checkouts where id = ?', [c.id]))[0].status).toBe('open');

    await page.getByLabel('Nome completo').fill('Ana Souza');
    await page.getByLabel('CPF ou CNPJ').fill('529.982.247-25');
    await button.click();
    await page.getByRole('heading', { name: 'Autorize o Pix Automático' }).waitFor();
    const [row] = await sql('select recurrence_billing, gateway_payment_data from checkouts where id = ?', [c.id]);
    expect(row.recurrence_billing).toBe('manual');
    const data = row.gateway_payment_data;
    expect(await page.getByLabel('Código pix copia e cola').inputValue()).toBe(data.pix.qr_code);
    expect(await page.getByTestId('mandate-amount').textContent()).toBe(`${brl(3_990)} cobrados todo mês.`);
    await screenshot(page, 'checkout-pix-automatico-opt-in-qr');
    await expectAccessibleAtBothSizes(page);

    // The sandbox's payer reads the QR code in their bank's app: the first period paid, the mandate approved.
    const answered = await api.call('POST', `/api/v1/sandbox/checkouts/${c.id}/mandate/authorize`, {
      token: c.tenant.oat,
      body: { persona: 'approves' },
    });
    expect([answered.status, answered.body.status]).toEqual([200, 'approved']);
    await page.getByRole('heading', { name: 'Pagamento confirmado' }).waitFor({ timeout: 30_000 });
    const [subscription] = await sql('select recurrence_billing from subscriptions where checkout_id = ?', [c.id]);
    expect(subscription.recurrence_billing).toBe('pix_automatico');
    await context.close();
  });

  it('is not offered for a price Pix Automático cannot bill', async () => {
    const tenant = await makeTenant(api.orm);
    const product = await api.call('POST', '/api/v1/products/', {
      token: tenant.oat,
      body: {
        organization_id: tenant.org.id,
        name: unique('Diária'),
        prices: [{ type: 'recurring', interval: 'day', currency: 'brl', unit_amount: 990 }],
      },
    });
    const created = await api.call('POST', '/api/v1/checkouts/', {
      token: tenant.oat,
      body: { product_id: product.body.id, customer_email: 'ana@example.com' },
    });
    const context = await newContext(browser);
    const page = await context.newPage();
    await page.goto(`${api.baseUrl}/checkout/c/${created.body.client_secret}`);
    await page.getByLabel('Pix', { exact: true }).waitFor();
    expect(await page.getByText(/Pix Automático/).count()).toBe(0);
    await context.close();
  });
});
