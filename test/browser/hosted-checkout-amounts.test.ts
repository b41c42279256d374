import { beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import type { TestApi } from '../helpers/api.ts';
import { hostedCheckoutBed, type HostedCheckoutBed } from '../helpers/hosted-checkout-bed.ts';
import { expectAccessibleAtBothSizes, newContext, screenshot } from '../helpers/browser.ts';
import { fillBuyer, fillCard, fillPlainCard, openCheckout, secureInput } from '../helpers/checkout-page.ts';
import { oraclePlan } from '../helpers/exact-installments.ts';
import { unique } from '../helpers/fixtures.ts';

/**
 * What the buyer reads of what the card is charged (issue 34 §1): the button, the total and the plan
 * line follow the instalments chosen, interest included; a discount code is seen before paying; the
 * receipt says what the sale recorded; the CPF and the card number are formatted as typed, the brand shown.
 */
const bed = hostedCheckoutBed();
let api: TestApi;
let browser: Browser;
let tenant: HostedCheckoutBed['tenant'];
beforeAll(() => {
  ({ api, browser, tenant } = bed);
});

const sql = <T = any>(text: string, params: unknown[] = []) => api.orm.em.getConnection().execute<T[]>(text, params);
/** R$ as a buyer reads it, written out by hand (not the page's formatter): 108312 → "R$ 1.083,12". */
const reais = (cents: number) =>
  `R$\u00a0${Math.floor(cents / 100)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, '.')},${String(cents % 100).padStart(2, '0')}`;
const RATE = { noFees: false, monthlyRateBasisPoints: 299 };
const text = async (page: Page, testId: string) => (await page.getByTestId(testId).textContent())!.trim();
const payButton = (page: Page) => page.getByRole('button', { name: /^Pagar R\$/ });

async function discountCode(basisPoints: number): Promise<string> {
  const code = unique('BEMVINDO')
    .toUpperCase()
    .replace(/[^A-Z0-9]/g, '');
  const made = await api.call('POST', '/api/v1/discounts/', {
    token: tenant.oat,
    body: { name: 'Boas-vindas', type: 'percentage', basis_points: basisPoints, code },
  });
  expect(made.status).toBe(201);
  return code;
}

describe('hosted checkout amounts', () => {
  it('on a phone, 12 instalments show their total with interest on the button, the total and the receipt', async () => {
    const checkout = await openCheckout(api, tenant.oat, tenant.org.id, { amount: 89_900 });
    const twelve = oraclePlan(89_900, 12, RATE);
    // The issue's own observation of what the gateway charges for 12 × R$ 899,00.
    expect(reais(twelve.total)).toBe('R$\u00a01.083,12');
    const context = await newContext(browser, { phone: true });
    const page = await context.newPage();
    await page.goto(api.baseUrl + checkout.path);
    expect(await payButton(page).textContent()).toBe('Pagar R$\u00a0899,00');
    expect(await text(page, 'total')).toBe('R$\u00a0899,00');

    await fillBuyer(page);
    await page.getByLabel('CPF ou CNPJ').fill('');
    await page.getByLabel('CPF ou CNPJ').pressSequentially('52998224725');
    expect(await page.getByLabel('CPF ou CNPJ').inputValue()).toBe('529.982.247-25');
    await page.getByLabel('CPF ou CNPJ').fill('');
    await page.getByLabel('CPF ou CNPJ').pressSequentially('11222333000181');
    expect(await page.getByLabel('CPF ou CNPJ').inputValue()).toBe('11.222.333/0001-81');
    await fillCard(page, '');
    await secureInput(page, 'card_number_field').pressSequentially('5555555555554444');
    expect(await secureInput(page, 'card_number_field').inputValue()).toBe('5555 5555 5555 4444');
    await page.getByTestId('card-brand').filter({ hasText: 'Bandeira: Mastercard' }).waitFor();
    await secureInput(page, 'card_number_field').fill('');
    await secureInput(page, 'card_number_field').pressSequentially('4111111111111111');
    expect(await secureInput(page, 'card_number_field').inputValue()).toBe('4111 1111 1111 1111');
    await page.getByTestId('card-brand').filter({ hasText: 'Bandeira: Visa' }).waitFor();

    await page.getByLabel('Parcelas').selectOption('12');
    const pays = `Pagar ${reais(twelve.total)}`;
    await page.getByRole('button', { name: pays }).waitFor();
    expect(await text(page, 'total')).toBe(reais(twelve.total));
    expect(await text(page, 'plan')).toBe(
      `Em 12x de ${reais(twelve.installmentAmounts[0]!)}, com ${reais(twelve.total - 89_900)} de juros`,
    );
    // Every option's text fits its box at 390 px (the chosen one is what the closed select shows).
    const fit = await page.getByLabel('Parcelas').evaluate((select: HTMLSelectElement) => {
      const style = getComputedStyle(select);
      const context = document.createElement('canvas').getContext('2d')!;
      context.font = style.font;
      const widest = Math.max(...Array.from(select.options).map((o) => context.measureText(o.text.trim()).width));
      // The room left beside the padding and the arrow (about 20 px in Chromium).
      const room = select.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 20;
      return { widest, room };
    });
    expect(fit.widest).toBeLessThanOrEqual(fit.room);
    await screenshot(page, 'checkout-amounts-12x');
    await expectAccessibleAtBothSizes(page);

    await page.getByRole('button', { name: pays }).click();
    await page.getByRole('heading', { name: 'Pagamento confirmado' }).waitFor();
    // What the sale recorded as charged: its transaction's amount (the dashboard's sale shows the same).
    const [sale] = await sql<{ amount: string; installments: number }>(
      'select t.amount, s.installments from sales s join transactions t on t.id = s.transaction_id where s.checkout_id = ?',
      [checkout.id],
    );
    expect({ amount: Number(sale!.amount), installments: sale!.installments }).toEqual({
      amount: twelve.total,
      installments: 12,
    });
    expect(await text(page, 'receipt-amount')).toContain(
      `Recebemos ${reais(twelve.total)} (Cartão de crédito, em 12x de ${reais(twelve.installmentAmounts[0]!)}, ` +
        `com ${reais(twelve.total - 89_900)} de juros).`,
    );
    expect(await text(page, 'total')).toBe(reais(Number(sale!.amount)));
    await screenshot(page, 'checkout-amounts-receipt');
    await expectAccessibleAtBothSizes(page);
    await context.close();
  });

  it('a discount code is applied before paying: refused in Portuguese, then the new total and instalments', async () => {
    const code = await discountCode(1000);
    const checkout = await openCheckout(api, tenant.oat, tenant.org.id, { amount: 89_900 });
    const context = await newContext(browser);
    const page = await context.newPage();
    await page.goto(api.baseUrl + checkout.path);
    const apply = page.getByRole('button', { name: 'Aplicar cupom' });

    await page.getByLabel('Cupom de desconto').fill('NAOEXISTE');
    await apply.click();
    await page.getByTestId('discount-status').filter({ hasText: 'Cupom de desconto não encontrado' }).waitFor();
    expect(await page.content()).not.toMatch(/"code"|Unknown discount code/);
    expect(await text(page, 'total')).toBe('R$\u00a0899,00');

    await page.getByLabel('Cupom de desconto').fill(code.toLowerCase());
    await apply.click();
    await page
      .getByTestId('discount-status')
      .filter({ hasText: `Cupom ${code.toLowerCase()} aplicado.` })
      .waitFor();
    // 10% of R$ 899,00, and the instalments of what is left.
    expect(await text(page, 'total')).toBe('R$\u00a0809,10');
    expect(await payButton(page).textContent()).toBe('Pagar R$\u00a0809,10');
    const six = oraclePlan(80_910, 6, RATE);
    const options = await page.getByLabel('Parcelas').locator('option').allTextContents();
    expect(options[5]!.trim()).toBe(`6x de ${reais(six.installmentAmounts[0]!)} (total ${reais(six.total)})`);
    await page.getByLabel('Parcelas').selectOption('6');
    await page.getByRole('button', { name: `Pagar ${reais(six.total)}` }).waitFor();
    expect(await text(page, 'total')).toBe(reais(six.total));
    await screenshot(page, 'checkout-amounts-discount');
    await expectAccessibleAtBothSizes(page);
    // Nothing was written: the checkout keeps its amount until the payment applies the code.
    expect(await sql('select amount, discount_id from checkouts where id = ?', [checkout.id])).toEqual([
      { amount: '89900', discount_id: null },
    ]);
    await context.close();
  });

  it('without JavaScript, "apply" and "update amounts" price the page again, and the receipt says what was charged', async () => {
    const code = await discountCode(1000);
    const checkout = await openCheckout(api, tenant.oat, tenant.org.id, { amount: 89_900 });
    const context = await browser.newContext({ ignoreHTTPSErrors: true, locale: 'pt-BR', javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(api.baseUrl + checkout.path);
    await fillBuyer(page);
    await page.getByLabel('Cupom de desconto').fill(code);
    await page.getByRole('button', { name: 'Aplicar cupom' }).click();
    await page.getByTestId('discount-status').filter({ hasText: 'aplicado' }).waitFor();
    expect(await text(page, 'total')).toBe('R$\u00a0809,10');
    // What the buyer typed is kept.
    expect(await page.getByLabel('E-mail').inputValue()).toBe('ana@example.com');

    const three = oraclePlan(80_910, 3, RATE);
    await page.getByLabel('Parcelas').selectOption('3');
    await page.getByRole('button', { name: 'Atualizar valores' }).click();
    await page.getByRole('button', { name: `Pagar ${reais(three.total)}` }).waitFor();
    expect(await text(page, 'total')).toBe(reais(three.total));
    expect(await page.getByLabel('Parcelas').inputValue()).toBe('3');
    // (axe runs in the page's JavaScript: the scripted tests above check this same markup.)

    await fillPlainCard(page, '4111111111111111');
    await page.getByRole('button', { name: `Pagar ${reais(three.total)}` }).click();
    await page.getByRole('heading', { name: 'Pagamento confirmado' }).waitFor();
    const [sale] = await sql<{ amount: string; installments: number; discount_amount: string }>(
      'select t.amount, s.installments, s.discount_amount from sales s join transactions t on t.id = s.transaction_id where s.checkout_id = ?',
      [checkout.id],
    );
    expect(sale).toMatchObject({ installments: 3, discount_amount: '8990' });
    expect(Number(sale!.amount)).toBe(three.total);
    expect(await text(page, 'receipt-amount')).toContain(`Recebemos ${reais(three.total)} (Cartão de crédito, em 3x`);
    await context.close();
  });

  it('every page layout links the favicon, served as an asset', async () => {
    const checkout = await openCheckout(api, tenant.oat, tenant.org.id);
    const context = await newContext(browser);
    const page = await context.newPage();
    // The checkout, the dashboard's sign-in and the portal's page for a visitor without a link.
    for (const path of [checkout.path, '/dashboard', '/portal']) {
      await page.goto(api.baseUrl + path);
      const href = await page.locator('link[rel="icon"]').getAttribute('href');
      expect([path, href]).toEqual([path, expect.stringMatching(/^\/assets\/\w+\/favicon\.svg$/)]);
      const icon = await context.request.get(api.baseUrl + href!);
      expect([icon.status(), icon.headers()['content-type']]).toEqual([200, 'image/svg+xml']);
    }
    await context.close();
  });
});
