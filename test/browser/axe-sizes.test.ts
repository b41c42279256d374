import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { renderToString } from 'preact-render-to-string';
import { Table, type Column } from '../../pages/dashboard/components.ts';
import { launchBrowser, newContext, violationsAtBothSizes } from '../helpers/browser.ts';

/**
 * The check every page test runs (violationsAtBothSizes) goes red on a wide table a phone cannot show:
 * a table planted in a scroll region a keyboard cannot reach fails at 390×844 and passes at 1280×800,
 * and the dashboard's own Table, whose scroll region takes focus, passes at both.
 */
let browser: Browser;
let page: Page;

beforeAll(async () => {
  browser = await launchBrowser();
  page = await (await newContext(browser, { locale: 'en-US' })).newPage();
});
afterAll(async () => browser?.close());

interface Sale {
  id: string;
  customer: string;
  product: string;
  amount: string;
  status: string;
}
const SALES: Sale[] = Array.from({ length: 5 }, (_, i) => ({
  id: `sale_0000000000000${i}`,
  customer: `customer-number-${i}@example.com.br`,
  product: 'Assinatura anual do plano profissional',
  amount: 'R$ 1.234,56',
  status: 'paid',
}));
const COLUMNS: Column<Sale>[] = (['id', 'customer', 'product', 'amount', 'status'] as const).map((key) => ({
  label: key,
  cell: (sale) => sale[key],
}));

/** A document with the dashboard's stylesheet inline (setContent has no server to fetch it from). */
async function show(body: string): Promise<void> {
  const css = await readFile(new URL('../../pages/assets/dashboard.css', import.meta.url), 'utf8');
  await page.setContent(
    `<!doctype html><html lang="en"><head><title>Sales</title><style>${css}</style></head><body><main><h1>Sales</h1>${body}</main></body></html>`,
  );
}

describe('axe at a phone and a laptop size', () => {
  it('goes red at 390×844 on a planted wide table whose scroll region takes no focus, and only there', async () => {
    const wide = renderToString(Table({ caption: 'Sales', columns: COLUMNS, rows: SALES, empty: '' }));
    // The same table in the scroll region the pages had before: overflow, no tabindex, no name.
    await show(wide.replace(/<div[^>]*class="table-wrap"[^>]*>/, '<div class="table-wrap">'));
    const violations = await violationsAtBothSizes(page);
    expect(violations).toEqual([expect.stringMatching(/^phone 390x844: serious scrollable-region-focusable/)]);
  });

  it("passes at both sizes on the dashboard's Table, whose scroll region takes focus", async () => {
    await show(renderToString(Table({ caption: 'Sales', columns: COLUMNS, rows: SALES, empty: '' })));
    expect(await page.locator('.table-wrap').evaluate((e) => e.scrollWidth > e.clientWidth)).toBe(false);
    expect(await violationsAtBothSizes(page)).toEqual([]);
    await page.setViewportSize({ width: 390, height: 844 });
    // It still scrolls on a phone: the test above is not green for want of a wide table.
    expect(await page.locator('.table-wrap').evaluate((e) => e.scrollWidth > e.clientWidth)).toBe(true);
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.getAttribute("aria-label")')).toBe('Sales');
  });
});
