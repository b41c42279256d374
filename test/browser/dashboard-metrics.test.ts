import { asset } from '../../pages/render.ts';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { useApi, type TestApi } from '../helpers/api.ts';
import { launchBrowser, newContext, pageChecked as checkedPage } from '../helpers/browser.ts';
import { makeTenant } from '../helpers/fixtures.ts';
import { metricsSeed } from '../helpers/metrics-seed.ts';
import { until } from '../helpers/processes.ts';

/**
 * The dashboard's metrics in Chromium: the page an organization opens on, its charts drawn by uPlot
 * under the pages' strict CSP, money in reais on the charts' axes and in the tables, and the figures
 * following the range, interval and time zone picked in the form. Seeded figures (America/Sao_Paulo is
 * UTC−3): 100.00 on 1 March at 09:00, 49.99 on 1 March at 23:30 (2 March in UTC), 88.88 on 10 March;
 * a monthly 59.90 subscription since February and another from 5 March.
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

const pageChecked = (page: Page, name: string) => checkedPage(page, `dashboard-${name}`);

/** What the page's canvases had written on them, and the CSP violations it reported. */
const WATCH = `
  window.__drawn = [];
  window.__violations = [];
  const fillText = CanvasRenderingContext2D.prototype.fillText;
  CanvasRenderingContext2D.prototype.fillText = function (text, ...rest) {
    window.__drawn.push(String(text));
    return fillText.call(this, text, ...rest);
  };
  document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));
`;

async function signedIn(jwt: string): Promise<{ context: BrowserContext; page: Page; console: string[] }> {
  const context = await newContext(browser, { locale: 'en-US' });
  await context.addInitScript(WATCH);
  const page = await context.newPage();
  const console: string[] = [];
  page.on('console', (m) => console.push(`${m.type()}: ${m.text()}`));
  page.on('pageerror', (e) => console.push(`pageerror: ${e.message}`));
  page.on('response', (r) => r.status() >= 400 && console.push(`${r.status()} ${new URL(r.url()).pathname}`));
  await page.goto(`${api.baseUrl}/dashboard/sign-in?token=${jwt}`);
  return { context, page, console };
}

/** The charts' canvases, each drawn (some pixel not transparent), with their accessible names. */
async function drawnCharts(page: Page): Promise<{ label: string; painted: boolean; url: string }[]> {
  await until(async () => (await page.locator('.chart canvas').count()) === 4, 10_000, 'four charts');
  return page.evaluate(() =>
    [...document.querySelectorAll<HTMLCanvasElement>('.chart canvas')].map((canvas) => {
      const pixels = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
      let painted = false;
      for (let i = 3; i < pixels.length && !painted; i += 4) painted = pixels[i]! > 0;
      return {
        label: `${canvas.getAttribute('role')}: ${canvas.getAttribute('aria-label')}`,
        painted,
        url: canvas.toDataURL(),
      };
    }),
  );
}

const cellOf = async (page: Page, table: string, row: string | RegExp, column: number) =>
  (await page
    .getByRole('table', { name: table })
    .getByRole('row', { name: row })
    .getByRole('cell')
    .nth(column)
    .textContent())!.trim();

async function choose(page: Page, choice: { from: string; to: string; interval: string; zone: string }) {
  await page.getByLabel('From', { exact: true }).fill(choice.from);
  await page.getByLabel('To', { exact: true }).fill(choice.to);
  await page.getByLabel('Interval', { exact: true }).selectOption(choice.interval);
  await page.getByLabel('Time zone', { exact: true }).selectOption(choice.zone);
  await page.getByRole('button', { name: 'Show' }).click();
  await page.waitForURL(/metrics\?start_date=/);
}

describe('merchant dashboard: metrics', () => {
  it('charts revenue, MRR, sales and active subscriptions in reais, following the range, interval and time zone', async () => {
    const t = await makeTenant(api.orm);
    const seed = metricsSeed(api.orm);
    const org = t.org.id;
    await seed.product(org, 'course', { type: 'one_time', amount: 10_000 });
    await seed.product(org, 'monthly', { type: 'recurring', amount: 5990, interval: 'month' });
    await seed.customer(org, 'ana');
    await seed.sale(org, 'course', 'ana', 10_000, '2025-03-01T12:00:00Z');
    await seed.sale(org, 'course', 'ana', 4999, '2025-03-02T02:30:00Z');
    await seed.sale(org, 'course', 'ana', 8888, '2025-03-10T15:00:00Z');
    await seed.subscription(org, 'A', { p: 'monthly', c: 'ana', amount: 5990, created: '2025-02-10T12:00:00Z' });
    await seed.subscription(org, 'B', { p: 'monthly', c: 'ana', amount: 5990, created: '2025-03-05T12:00:00Z' });

    const { context, page, console } = await signedIn(t.ownerJwt);
    try {
      // The organization opens on its metrics: the last 30 days by day, in Brasília time.
      await page.getByRole('link', { name: t.org.slug, exact: true }).click();
      await page.waitForURL(`**/dashboard/${org}/metrics`);
      await expect(page.getByRole('heading', { name: 'Metrics', level: 1 }).isVisible()).resolves.toBe(true);
      await expect(page.getByLabel('Time zone', { exact: true }).inputValue()).resolves.toBe('America/Sao_Paulo');
      await expect(page.getByLabel('Interval', { exact: true }).inputValue()).resolves.toBe('day');
      expect(await drawnCharts(page)).toHaveLength(4);
      await pageChecked(page, 'metrics-default');

      await choose(page, { from: '2025-03-01', to: '2025-03-31', interval: 'day', zone: 'America/Sao_Paulo' });
      const march = await drawnCharts(page);
      expect(march.map((c) => c.painted)).toEqual([true, true, true, true]);
      expect(march.map((c) => c.label)).toEqual([
        expect.stringMatching(/^img: Revenue per day, 3\/1\/2025 to 3\/31\/2025: R\$238\.87 in total\.$/),
        expect.stringMatching(/^img: MRR .*: R\$119\.80 at the end of the range\.$/),
        expect.stringMatching(/^img: Sales per day, .*: 3 in total\.$/),
        expect.stringMatching(/^img: Active subscriptions per day, .*: 2 at the end of the range\.$/),
      ]);
      // The money axes' ticks, as uPlot wrote them on the canvas: Brazilian reais.
      const drawn = await page.evaluate(() => (window as unknown as { __drawn: string[] }).__drawn);
      expect(drawn).toEqual(expect.arrayContaining([expect.stringMatching(/^R\$\s\d{1,3}(\.\d{3})*,\d{2}$/)]));
      expect(drawn).toContain('03/01');
      await expect(cellOf(page, 'Over the range, in BRL', /^Revenue/, 1)).resolves.toBe('R$238.87');
      await expect(cellOf(page, 'Over the range, in BRL', /^MRR/, 1)).resolves.toBe('R$119.80');
      await expect(cellOf(page, "The charts' figures", /^3\/1\/2025 /, 1)).resolves.toBe('R$149.99');
      await pageChecked(page, 'metrics-march-by-day');

      // In UTC the sale of 23:30 in Brasília falls on 2 March.
      await choose(page, { from: '2025-03-01', to: '2025-03-31', interval: 'day', zone: 'UTC' });
      await expect(cellOf(page, "The charts' figures", /^3\/1\/2025 /, 1)).resolves.toBe('R$100.00');
      await expect(cellOf(page, "The charts' figures", /^3\/2\/2025 /, 1)).resolves.toBe('R$49.99');

      // By month from January: three periods, and other charts.
      await choose(page, { from: '2025-01-01', to: '2025-03-31', interval: 'month', zone: 'America/Sao_Paulo' });
      await expect(page.getByRole('table', { name: "The charts' figures" }).getByRole('row').count()).resolves.toBe(4);
      await expect(cellOf(page, "The charts' figures", /^2\/1\/2025 /, 2)).resolves.toBe('R$59.90');
      await expect(cellOf(page, "The charts' figures", /^3\/1\/2025 /, 1)).resolves.toBe('R$238.87');
      const byMonth = await drawnCharts(page);
      expect(byMonth[0]!.url).not.toBe(march[0]!.url);
      await pageChecked(page, 'metrics-by-month');

      const violations = await page.evaluate(() => (window as unknown as { __violations: string[] }).__violations);
      expect(violations).toEqual([]);
      // Nothing refused by the CSP, no script error, no asset missing (a browser's own favicon.ico aside).
      expect(console.filter((line) => !/favicon\.ico|status of 404/.test(line))).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("shows the API's refusal of a range, and serves uPlot from the installed package", async () => {
    const t = await makeTenant(api.orm);
    const { context, page } = await signedIn(t.ownerJwt);
    try {
      const res = await page.goto(
        `${api.baseUrl}/dashboard/${t.org.id}/metrics?start_date=2025-03-31&end_date=2025-03-01&interval=day`,
      );
      expect(res!.status()).toBe(422);
      await expect(page.getByRole('alert').textContent()).resolves.toContain('end_date is before start_date');
      await expect(page.getByLabel('From', { exact: true }).inputValue()).resolves.toBe('2025-03-31');
      await expect(page.locator('.chart').count()).resolves.toBe(0);
      await pageChecked(page, 'metrics-refused');

      const script = await api.call('GET', asset('uplot.js'));
      expect(script.status).toBe(200);
      expect(script.headers['content-type']).toContain('text/javascript');
      expect(String(script.body)).toContain('uPlot');
      const style = await api.call('GET', asset('uplot.css'));
      expect(style.headers['content-type']).toContain('text/css');
      expect(String(style.body)).toContain('.uplot');
    } finally {
      await context.close();
    }
  });
});
