import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { useApi, type TestApi } from '../helpers/api.ts';
import {
  expectAccessibleAtBothSizes,
  dashboardSignedIn,
  launchBrowser,
  pageChecked as checkedPage,
} from '../helpers/browser.ts';
import { makeTenant, unique } from '../helpers/fixtures.ts';
import { until } from '../helpers/processes.ts';

/**
 * The dashboard's catalog in Chromium: products and their prices, checkout links, discounts. What the
 * merchant does in the pages is read back from the API; refused forms keep their values and change
 * nothing. Every page is screenshot and checked by axe.
 */
let api: TestApi;
let browser: Browser;
useApi((started) => ({ api } = started));
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

type Tenant = Awaited<ReturnType<typeof makeTenant>>;

const pageChecked = (page: Page, name: string) => checkedPage(page, `dashboard-${name}`);

const signedIn = (t: Tenant) => dashboardSignedIn(browser, api.baseUrl, t.ownerJwt);

const products = async (t: Tenant) =>
  (await api.call('GET', '/api/v1/products/', { token: t.oat, headers: {} })).body.items as any[];
const product = async (t: Tenant, id: string) =>
  (await api.call('GET', `/api/v1/products/${id}`, { token: t.oat })).body;

describe('merchant dashboard: products and prices', () => {
  it('creates a product with a R$ 99,90 monthly price, adds a yearly price, and archives after confirmations', async () => {
    const t = await makeTenant(api.orm);
    const { context, page } = await signedIn(t);
    try {
      await page.goto(`${api.baseUrl}/dashboard/${t.org.id}/products`);
      await expect(
        page.getByRole('link', { name: 'Products', exact: true }).getAttribute('aria-current'),
      ).resolves.toBe('page');
      await pageChecked(page, 'products-empty');

      const name = unique('Photography course');
      await page.getByLabel('Name', { exact: true }).fill(name);
      await page.getByLabel('Description (optional)').fill('Twelve recorded lessons');
      await page.getByLabel('Amount (R$)').fill('99,90');
      await page.getByLabel('Billing').selectOption('recurring');
      await page.getByLabel('Interval', { exact: true }).selectOption('month');
      await page.getByRole('button', { name: 'Create product' }).click();
      await page.waitForURL(/\/products\/[0-9a-f-]{36}\?done=created$/);
      await expect(page.getByRole('status').first().textContent()).resolves.toContain('Product created.');

      const [created] = await products(t);
      expect(created).toMatchObject({ name, description: 'Twelve recorded lessons', is_archived: false });
      expect(created.prices).toEqual([
        expect.objectContaining({ unit_amount: 9990, currency: 'brl', type: 'recurring', interval: 'month' }),
      ]);
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(name);
      const monthly = page.getByRole('row', { name: /R\$99\.90/ });
      await expect(monthly.textContent()).resolves.toContain('Every month');
      await pageChecked(page, 'product');

      // Details: a new name; a blank description clears it.
      const renamed = `${name} (2nd edition)`;
      await page.getByLabel('Name', { exact: true }).fill(renamed);
      await page.getByLabel('Description (optional)').fill('');
      await page.getByRole('button', { name: 'Save details' }).click();
      await page.waitForURL(/\?done=saved$/);
      expect(await product(t, created.id)).toMatchObject({ name: renamed, description: null });
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(renamed);

      // A second price, yearly, made the default; the monthly one archived after its confirmation.
      await page.getByLabel('Amount (R$)').fill('999');
      await page.getByLabel('Billing').selectOption('recurring');
      await page.getByLabel('Interval', { exact: true }).selectOption('year');
      await page.getByRole('button', { name: 'Add price' }).click();
      await page.waitForURL(/\?done=price-added$/);
      const yearly = (await product(t, created.id)).prices.find((p: any) => p.unit_amount === 99900);
      expect(yearly).toMatchObject({ type: 'recurring', interval: 'year', interval_count: 1, active: true });
      await page
        .getByRole('row', { name: /R\$999\.00/ })
        .getByRole('button', { name: 'Make default' })
        .click();
      await page.waitForURL(/\?done=default$/);
      expect((await product(t, created.id)).default_price_id).toBe(yearly.id);

      await page.getByRole('link', { name: 'Archive the price R$99.90, every month' }).click();
      await expect(page.getByRole('heading', { name: 'Archive this price?' }).isVisible()).resolves.toBe(true);
      await pageChecked(page, 'price-archive-confirm');
      await page.getByRole('button', { name: 'Archive price' }).click();
      await page.waitForURL(/\?done=price-archived$/);
      const prices = (await product(t, created.id)).prices;
      expect(prices.find((p: any) => p.unit_amount === 9990).active).toBe(false);

      // The product: nothing changes until the confirmation's button.
      await page.getByRole('link', { name: 'Archive product' }).click();
      await expect(page.getByRole('heading', { name: 'Archive this product?' }).isVisible()).resolves.toBe(true);
      await pageChecked(page, 'product-archive-confirm');
      expect((await product(t, created.id)).is_archived).toBe(false);
      await page.getByRole('button', { name: 'Archive product' }).click();
      await page.waitForURL(/\?done=archived$/);
      await expect(page.getByRole('status').first().textContent()).resolves.toContain('Product archived.');
      expect((await product(t, created.id)).is_archived).toBe(true);

      // Off the default list; on the archived one, from which it is restored.
      await page.getByRole('link', { name: 'All products' }).click();
      await expect(page.getByRole('link', { name: renamed }).count()).resolves.toBe(0);
      await page.getByLabel('Show').selectOption('archived');
      await page.getByRole('button', { name: 'Filter' }).click();
      await expect(
        page.getByRole('row', { name: new RegExp(renamed.replace(/[()]/g, '\\$&')) }).textContent(),
      ).resolves.toContain('Archived');
      await pageChecked(page, 'products-archived');
      await page.getByRole('link', { name: renamed }).click();
      await page.getByRole('button', { name: 'Restore product' }).click();
      await page.waitForURL(/\?done=restored$/);
      expect((await product(t, created.id)).is_archived).toBe(false);
    } finally {
      await context.close();
    }
  });

  it("shows the API's refusal of a blank name and the form's of an amount that is not reais, keeping the values", async () => {
    const t = await makeTenant(api.orm);
    const { context, page } = await signedIn(t);
    try {
      await page.goto(`${api.baseUrl}/dashboard/${t.org.id}/products`);
      // A name of spaces passes the browser's `required`; the API refuses it.
      await page.getByLabel('Name', { exact: true }).fill('   ');
      await page.getByLabel('Description (optional)').fill('Kept description');
      await page.getByLabel('Amount (R$)').fill('10,00');
      const [refused] = await Promise.all([
        page.waitForResponse((r) => r.request().method() === 'POST'),
        page.getByRole('button', { name: 'Create product' }).click(),
      ]);
      expect(refused.status()).toBe(400);
      const alert = page.getByRole('alert');
      await expect(alert.textContent()).resolves.toContain('Invalid request');
      await expect(alert.textContent()).resolves.toContain('body.name');
      await expect(page.getByLabel('Description (optional)').inputValue()).resolves.toBe('Kept description');
      await expect(page.getByLabel('Amount (R$)').inputValue()).resolves.toBe('10,00');
      await pageChecked(page, 'product-refused');

      await page.getByLabel('Name', { exact: true }).fill('Ebook');
      await page.getByLabel('Amount (R$)').fill('abc');
      await page.getByRole('button', { name: 'Create product' }).click();
      await expect(page.getByRole('alert').textContent()).resolves.toContain('“abc” is not an amount in reais');
      await expect(page.getByLabel('Amount (R$)').getAttribute('aria-invalid')).resolves.toBe('true');
      await expect(page.getByLabel('Name', { exact: true }).inputValue()).resolves.toBe('Ebook');
      await expect(page.getByLabel('Amount (R$)').inputValue()).resolves.toBe('abc');
      expect(await products(t)).toEqual([]);

      // Another organization's product, or none: the API's 404, in the frame.
      const other = await makeTenant(api.orm);
      const theirs = await apiProduct(other, 'Not yours', 1000);
      const res = await page.goto(`${api.baseUrl}/dashboard/${t.org.id}/products/${theirs.id}`);
      expect(res!.status()).toBe(404);
      await expect(page.getByRole('alert').textContent()).resolves.toContain('not found');
    } finally {
      await context.close();
    }
  });
});

async function apiProduct(t: Tenant, name: string, unitAmount: number) {
  const created = await api.call('POST', '/api/v1/products/', {
    token: t.oat,
    body: { organization_id: t.org.id, name, prices: [{ type: 'one_time', currency: 'brl', unit_amount: unitAmount }] },
  });
  expect(created.status).toBe(201);
  return created.body;
}

describe('merchant dashboard: checkout links', () => {
  it('creates a link whose copied URL opens the hosted checkout; archived after a confirmation, then restored', async () => {
    const t = await makeTenant(api.orm);
    const sold = await apiProduct(t, unique('Yoga class'), 4990);
    const discount = await api.call('POST', '/api/v1/discounts/', {
      token: t.oat,
      body: { name: 'Launch week', type: 'percentage', basis_points: 1000 },
    });
    expect(discount.status).toBe(201);
    const { context, page } = await signedIn(t);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: api.baseUrl });
    try {
      await page.goto(`${api.baseUrl}/dashboard/${t.org.id}/checkout-links`);
      await pageChecked(page, 'checkout-links-empty');

      // Without a product the API refuses; the form keeps what was typed.
      await page.getByLabel('Label (optional)').fill('Launch');
      const [refused] = await Promise.all([
        page.waitForResponse((r) => r.request().method() === 'POST'),
        page.getByRole('button', { name: 'Create link' }).click(),
      ]);
      expect(refused.status()).toBe(400);
      await expect(page.getByRole('alert').textContent()).resolves.toContain('Check at least one product.');
      await expect(page.getByLabel('Label (optional)').inputValue()).resolves.toBe('Launch');

      await page.getByRole('checkbox', { name: sold.name }).check();
      await page.getByLabel('Success URL (optional)').fill('https://shop.example/thanks?c={CHECKOUT_ID}');
      await page.getByLabel('Allow discount codes').uncheck();
      await page.getByLabel('Discount applied to every checkout (optional)').selectOption(discount.body.id);
      await page.getByRole('button', { name: 'Create link' }).click();
      await page.waitForURL(/\/checkout-links\?done=created$/);
      await expect(page.getByRole('status').first().textContent()).resolves.toContain('Link created.');

      const links = (await api.call('GET', '/api/v1/checkout-links/', { token: t.oat })).body.items;
      expect(links).toEqual([
        expect.objectContaining({
          label: 'Launch',
          product_ids: [sold.id],
          success_url: 'https://shop.example/thanks?c={CHECKOUT_ID}',
          allow_discount_codes: false,
          discount_id: discount.body.id,
        }),
      ]);
      const link = links[0];
      const row = page.getByRole('row', { name: /Launch/ });
      await expect(row.textContent()).resolves.toContain(sold.name);
      await expect(row.locator('code').textContent()).resolves.toBe(link.url);
      await pageChecked(page, 'checkout-link-created');
      const copy = row.getByRole('button', { name: 'Copy the URL of Launch' });
      await copy.click();
      const said = row.getByRole('status');
      await until(async () => (await said.textContent()) === 'Copied', 5000, 'the copy status to say Copied');
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(link.url);
      // The button keeps its name while the status speaks: axe finds no mismatch then either.
      await expect(copy.textContent()).resolves.toBe('Copy');
      await expectAccessibleAtBothSizes(page);

      const buyer = await context.newPage();
      await buyer.goto(link.url.replace(api.config.publicBaseUrl, api.baseUrl));
      await expect(buyer.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(sold.name);
      await buyer.close();

      await row.getByRole('link', { name: 'Archive Launch' }).click();
      await expect(page.getByRole('heading', { name: 'Archive this link?' }).isVisible()).resolves.toBe(true);
      await pageChecked(page, 'checkout-link-archive-confirm');
      expect((await api.call('GET', `/api/v1/checkout-links/${link.id}`, { token: t.oat })).body.is_archived).toBe(
        false,
      );
      await page.getByRole('button', { name: 'Archive link' }).click();
      await page.waitForURL(/\?done=archived$/);
      expect((await api.call('GET', `/api/v1/checkout-links/${link.id}`, { token: t.oat })).body.is_archived).toBe(
        true,
      );
      const archived = page.getByRole('region', { name: 'Archived links' });
      await expect(archived.getByRole('row', { name: /Launch/ }).count()).resolves.toBe(1);
      await pageChecked(page, 'checkout-links-archived');

      await archived.getByRole('button', { name: 'Restore' }).click();
      await page.waitForURL(/\?done=restored$/);
      expect((await api.call('GET', `/api/v1/checkout-links/${link.id}`, { token: t.oat })).body.is_archived).toBe(
        false,
      );
    } finally {
      await context.close();
    }
  });
});

describe('merchant dashboard: discounts', () => {
  it('creates percentage and fixed discounts as the API takes them, refuses a taken code, deletes after a confirmation', async () => {
    const t = await makeTenant(api.orm);
    const course = await apiProduct(t, unique('Guitar course'), 19900);
    const { context, page } = await signedIn(t);
    const discounts = async () => (await api.call('GET', '/api/v1/discounts/', { token: t.oat })).body.items as any[];
    try {
      await page.goto(`${api.baseUrl}/dashboard/${t.org.id}/discounts`);
      await pageChecked(page, 'discounts-empty');

      await page.getByLabel('Name', { exact: true }).fill('Black Friday');
      await page.getByLabel('Code (optional)').fill('BF10');
      await page.getByLabel('Percentage off (%)').fill('12,5');
      await page.getByLabel('Duration on subscriptions').selectOption('repeating');
      await page.getByLabel('Months').fill('3');
      await page.getByLabel('Maximum redemptions (optional)').fill('100');
      await page.getByLabel('Ends on (optional)').fill('2030-11-30');
      await page.getByLabel(course.name).check();
      await page.getByRole('button', { name: 'Create discount' }).click();
      await page.waitForURL(/\/discounts\?done=created$/);
      expect(await discounts()).toEqual([
        expect.objectContaining({
          name: 'Black Friday',
          code: 'BF10',
          type: 'percentage',
          basis_points: 1250,
          duration: 'repeating',
          duration_in_months: 3,
          max_redemptions: 100,
          ends_at: '2030-12-01T02:59:59.999Z',
          product_ids: [course.id],
        }),
      ]);
      const row = page.getByRole('row', { name: /Black Friday/ });
      for (const shown of ['12.5%', '3 months', '0 of 100', '11/30/2030', course.name]) {
        await expect(row.textContent()).resolves.toContain(shown);
      }

      await page.getByLabel('Name', { exact: true }).fill('Welcome');
      await page.getByLabel('Type').selectOption('fixed');
      await expect(page.getByLabel('Percentage off (%)').isVisible()).resolves.toBe(false);
      await page.getByLabel('Amount off (R$)').fill('20,00');
      await page.getByRole('button', { name: 'Create discount' }).click();
      await page.waitForURL(/\/discounts\?done=created$/);
      const welcome = (await discounts()).find((d) => d.name === 'Welcome');
      expect(welcome).toMatchObject({ type: 'fixed', amount: 2000, currency: 'brl', duration: 'once', code: null });
      await expect(page.getByRole('row', { name: /Welcome/ }).textContent()).resolves.toContain('R$20.00');
      await pageChecked(page, 'discounts');

      // The form's refusal of a percentage that is not one, then the API's of a code in use.
      await page.getByLabel('Name', { exact: true }).fill('Again');
      await page.getByLabel('Code (optional)').fill('bf10');
      await page.getByLabel('Percentage off (%)').fill('ten');
      await page.getByRole('button', { name: 'Create discount' }).click();
      await expect(page.getByRole('alert').textContent()).resolves.toContain('“ten” is not a percentage');
      await expect(page.getByLabel('Percentage off (%)').getAttribute('aria-invalid')).resolves.toBe('true');
      await page.getByLabel('Percentage off (%)').fill('10');
      const [refused] = await Promise.all([
        page.waitForResponse((r) => r.request().method() === 'POST'),
        page.getByRole('button', { name: 'Create discount' }).click(),
      ]);
      expect(refused.status()).toBe(422);
      await expect(page.getByRole('alert').textContent()).resolves.toContain('Code already in use');
      await expect(page.getByLabel('Code (optional)').inputValue()).resolves.toBe('bf10');
      await expect(page.getByLabel('Name', { exact: true }).inputValue()).resolves.toBe('Again');
      await pageChecked(page, 'discount-refused');
      expect(await discounts()).toHaveLength(2);

      await page.getByRole('link', { name: 'Delete Black Friday' }).click();
      await expect(page.getByRole('heading', { name: 'Delete this discount?' }).isVisible()).resolves.toBe(true);
      await pageChecked(page, 'discount-delete-confirm');
      expect(await discounts()).toHaveLength(2);
      await page.getByRole('button', { name: 'Delete discount' }).click();
      await page.waitForURL(/\?done=deleted$/);
      await expect(page.getByRole('status').first().textContent()).resolves.toContain('The discount is deleted.');
      expect((await discounts()).map((d) => d.name)).toEqual(['Welcome']);
    } finally {
      await context.close();
    }
  });
});
