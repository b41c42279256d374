import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { SimulatedGateway } from '@billing/simulated-gateway';
import type { Browser } from 'playwright-core';
import { uuidv7 } from 'uuidv7';
import { useApi, type TestApi } from '../helpers/api.ts';
import { dashboardSignedIn, launchBrowser, pageChecked } from '../helpers/browser.ts';
import { makeTenant } from '../helpers/fixtures.ts';
import { paidSale } from '../helpers/reconciliation-books.ts';

/**
 * The dashboard's Reconciliation page in Chromium (decision 0076), over the real worker and the simulated
 * gateway: "Reconcile now" runs today's books against the simulator's ledger, where a refund was made
 * only at the gateway; the report shows its drift, its reasons counted, its lines, and its CSV
 * downloads; the list shows it at a glance; a day to come is refused with the API's words.
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

const utcDay = (offsetDays = 0) => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);

describe('merchant dashboard: reconciliation', () => {
  it('reconciles now, shows the drift and its lines, downloads the CSV, and refuses a day to come', async () => {
    const t = await makeTenant(api.orm);
    const refundedThere = await paidSale(api, t.org.id, 5_000);
    await paidSale(api, t.org.id, 10_000);
    await (api.gateway as SimulatedGateway).refund(refundedThere.gatewayId, 2_000, `panel:${uuidv7()}`);
    const { context, page } = await dashboardSignedIn(browser, api.baseUrl, t.ownerJwt);
    try {
      await page.goto(`${api.baseUrl}/dashboard/${t.org.id}/reconciliations`);
      await expect(page.getByRole('link', { name: 'Reconciliation' }).getAttribute('aria-current')).resolves.toBe(
        'page',
      );
      await expect(page.getByText('No reports yet.').isVisible()).resolves.toBe(true);
      // The day picker starts on yesterday (UTC), the day the daily run reconciles.
      const dayField = page.getByLabel('Day (UTC)');
      await expect(dayField.inputValue()).resolves.toBe(utcDay(-1));
      await pageChecked(page, 'dashboard-reconciliations-empty');

      await dayField.fill(utcDay());
      await page.getByRole('button', { name: 'Reconcile now' }).click();
      await page.waitForURL(/\/reconciliations\/[0-9a-f-]{36}$/);
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(
        `Reconciliation of ${utcDay()}`,
      );
      const facts = page.getByRole('definition');
      await expect(facts.allTextContents()).resolves.toEqual(
        expect.arrayContaining([
          'Drift',
          'R$150.00',
          // 150,00 less the refund of 20,00 and fees of 2,00 and 3,99.
          'R$124.01',
          'R$25.99',
          expect.stringMatching(/Gateway fee \(expected\): 2\s*Missing in our books: 1/),
        ]),
      );
      const refundRow = page
        .getByRole('row', { name: new RegExp(refundedThere.gatewayId) })
        .filter({ hasText: 'refund' });
      await expect(refundRow.textContent()).resolves.toMatch(
        /refund.*R\$0\.00.*-R\$20\.00.*R\$20\.00.*Missing in our books.*Refund recorded/,
      );
      await pageChecked(page, 'dashboard-reconciliation-report');

      // The link's file, fetched with the page's own session (a browser download can be cancelled by
      // a loaded machine's Chromium; what it carries is what this checks): its name and its lines.
      const link = page.getByRole('link', { name: 'Download the lines (CSV)' });
      const file = await page.request.get(new URL((await link.getAttribute('href'))!, page.url()).toString());
      expect(file.status()).toBe(200);
      expect(file.headers()['content-disposition']).toMatch(
        new RegExp(`^attachment; filename="reconciliation-${utcDay()}-[0-9a-f-]{36}\\.csv"$`),
      );
      const rows = (await file.text()).split('\r\n');
      expect(rows[0]).toBe('kind,gateway_id,reference,ours,theirs,difference,reason,repair');
      expect(rows.find((r) => r.startsWith(`refund,${refundedThere.gatewayId},`))).toMatch(
        /,0,-2000,2000,missing_in_books,gateway_refunds$/,
      );

      await page.getByRole('link', { name: 'All reports' }).click();
      const listed = page.getByRole('row', { name: new RegExp(utcDay()) });
      await expect(listed.textContent()).resolves.toMatch(
        /Drift.*R\$25\.99.*3 of 5.*Gateway fee \(expected\): 2.*Missing in our books: 1/,
      );
      await pageChecked(page, 'dashboard-reconciliations');

      await page.getByLabel('Day (UTC)').fill(utcDay(1));
      await page.getByRole('button', { name: 'Reconcile now' }).click();
      await expect(page.getByRole('alert').textContent()).resolves.toContain('The day has not come yet');
      const reports = await api.call('GET', '/api/v1/reconciliations', { token: t.oat });
      expect(reports.body.pagination.total_count).toBe(1);
    } finally {
      await context.close();
    }
  });
});
