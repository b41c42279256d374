import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { renderBuyerMail } from '../../domain/buyer-mails.ts';
import { brandOf } from '../../domain/branding.ts';
import { brandedMailHtml } from '../../mailer/html-layout.ts';
import { expectAccessibleAtBothSizes, launchBrowser, newContext, screenshot } from '../helpers/browser.ts';
import { png } from '../helpers/uploads.ts';

/**
 * The buyer mails' HTML part (decision 0094) as a browser shows it (a webmail shows it much the same
 * way): the logo loaded, the brand's colours, readable with images blocked, and axe finding nothing at
 * a phone's size or a desktop's. The logo's URL is answered here: the mail's route is tested end to end
 * in test/e2e/buyer-mails.test.ts.
 */
let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

const LOGO = 'https://mail.example/brand/logos/0190c0de-0000-7000-8000-000000000000';
const sale = {
  id: '0190c0de-0000-7000-8000-00000000000a',
  amount: 89_900,
  installments: 12,
  installment_amount: 9_026,
  total_amount: 108_312,
  currency: 'BRL',
  payment_method: 'credit_card',
  product: { name: '<b>Curso de violão</b>' },
  created_at: '2026-03-02T12:00:00.000Z',
};
const boleto = {
  status: 'confirmed',
  amount: 89_900,
  currency: 'BRL',
  gateway_payment_data: {
    status: 'pending',
    boleto: {
      digitable_line: '23790.12345 60000.000003 00000.000000 1 99990000089900',
      barcode: '23791999900000899001234500000000000000000000',
      due_date: '2026-03-05',
      url: 'https://boleto.example/1',
    },
  },
};

async function opened(html: string, options: { images: boolean; phone?: boolean }): Promise<Page> {
  const page = await (await newContext(browser, { phone: options.phone })).newPage();
  await page.route(`${LOGO}`, (route) =>
    options.images ? route.fulfill({ contentType: 'image/png', body: png(120, 40) }) : route.abort(),
  );
  await page.setContent(html, { waitUntil: 'load' });
  return page;
}

const styleOf = (page: Page, selector: string) =>
  page.locator(selector).evaluate((e) => {
    const s = getComputedStyle(e);
    return { color: s.color, background: getComputedStyle(e.closest('td[bgcolor]')!).backgroundColor };
  });

describe('the HTML part of a buyer mail', () => {
  it('shows a navy receipt with its logo and white on navy, accessible at both sizes', async () => {
    const mail = renderBuyerMail({
      kind: 'receipt',
      organizationName: 'Cerâmica Aurora',
      data: sale,
      productName: null,
      customerName: 'Ana',
    });
    const brand = { name: 'Cerâmica Aurora', ...brandOf({ brand_color: '#1a237e' }), logoUrl: LOGO };
    const page = await opened(brandedMailHtml({ ...mail, brand }), { images: true });
    expect(await page.locator('img').evaluate((i) => (i as HTMLImageElement).naturalWidth)).toBe(120);
    expect(await styleOf(page, 'td:text-is("Cerâmica Aurora")')).toEqual({
      color: 'rgb(255, 255, 255)',
      background: 'rgb(26, 35, 126)',
    });
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Recibo da sua compra');
    // The product's name as its merchant wrote it, shown, not interpreted.
    await expect(page.getByText('<b>Curso de violão</b>').count()).resolves.toBe(1);
    await screenshot(page, 'buyer-mail-receipt');
    await expectAccessibleAtBothSizes(page, 'buyer-mail-receipt');
    await page.context().close();
  });

  it('shows a boleto on a light colour, black on it, and reads the same with images blocked', async () => {
    const mail = renderBuyerMail({
      kind: 'payment_instructions',
      organizationName: 'Sol',
      data: boleto,
      productName: 'Aula',
      customerName: null,
    });
    const brand = { name: 'Sol', ...brandOf({ brand_color: '#ffeb3b' }), logoUrl: LOGO };
    const page = await opened(brandedMailHtml({ ...mail, brand }), { images: false, phone: true });
    expect(await page.locator('img').evaluate((i) => (i as HTMLImageElement).naturalWidth)).toBe(0);
    await expect(page.getByText('Sol', { exact: true }).isVisible()).resolves.toBe(true);
    const button = page.getByRole('link', { name: 'Abrir o boleto' });
    await expect(button.getAttribute('href')).resolves.toBe('https://boleto.example/1');
    expect(await styleOf(page, 'a')).toEqual({ color: 'rgb(0, 0, 0)', background: 'rgb(255, 235, 59)' });
    await expect(page.getByText(boleto.gateway_payment_data.boleto.digitable_line).isVisible()).resolves.toBe(true);
    // Nothing wider than a phone's screen: the long codes wrap.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await screenshot(page, 'buyer-mail-boleto-no-images');
    await expectAccessibleAtBothSizes(page, 'buyer-mail-boleto-no-images');
    await page.context().close();
  });
});
