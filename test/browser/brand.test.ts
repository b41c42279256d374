import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import type { Browser, Page } from 'playwright-core';
import type { SimulatedGateway } from '@billing/simulated-gateway';
import { startApi, type TestApi } from '../helpers/api.ts';
import { expectAccessibleAtBothSizes, launchBrowser, newContext } from '../helpers/browser.ts';
import { makeTenant, unique } from '../helpers/fixtures.ts';
import type { Tenant } from '../helpers/tenant-records.ts';
import { freePort } from '../helpers/processes.ts';
import { paidSubscription } from '../helpers/subscriptions.ts';
import { multipart, png } from '../helpers/uploads.ts';
import { createTemporalClient } from '../../temporal/client.ts';

/**
 * The merchant's brand (decision 0091) on the buyer's and the customer's pages, in Chromium: its logo
 * and name in the header, its colour on the buttons (with the text colour that reads on it), the
 * product's images on the checkout, all under the pages' CSP, and axe still finding nothing.
 */
let api: TestApi;
let temporal: Client;
let browser: Browser;
let tenant: Tenant;
beforeAll(async () => {
  // The file URLs are absolute (PUBLIC_BASE_URL): the API's address must be the one the browser reaches.
  const port = await freePort();
  api = await startApi({ PORT: String(port), PUBLIC_BASE_URL: `https://127.0.0.1:${port}` });
  temporal = createTemporalClient(api.config);
  browser = await launchBrowser();
  tenant = await makeTenant(api.orm);
});
afterAll(async () => {
  await browser?.close();
  await (api?.gateway as SimulatedGateway | undefined)?.settleCallbacks();
  await api?.close();
});

const NAVY = '#1a237e';

async function uploadImage(name: string, width: number): Promise<string> {
  const body = multipart({ filename: name, type: 'image/png', data: png(width, 24) });
  const res = await api.call('POST', '/api/v1/files/?purpose=product_media', {
    token: tenant.oat,
    raw: body.raw,
    headers: body.headers,
  });
  expect(res.status).toBe(201);
  return res.body.id;
}

/** Every CSP violation the page reports, as it reports them. */
async function watchCsp(page: Page): Promise<string[]> {
  const violations: string[] = [];
  await page.exposeFunction('reportViolation', (v: string) => violations.push(v));
  await page.addInitScript(() =>
    document.addEventListener('securitypolicyviolation', (e) =>
      (window as unknown as { reportViolation(v: string): void }).reportViolation(
        `${e.violatedDirective} ${e.blockedURI}`,
      ),
    ),
  );
  return violations;
}

const loaded = (page: Page, selector: string) =>
  page.locator(selector).evaluateAll((images) => images.map((i) => (i as HTMLImageElement).naturalWidth > 0));

describe('the merchant’s brand', () => {
  beforeAll(async () => {
    const logo = await uploadImage('logo.png', 64);
    const res = await api.call('PATCH', `/api/v1/organizations/${tenant.org.id}`, {
      token: tenant.oat,
      body: { name: 'Cerâmica Aurora', profile_settings: { brand_color: NAVY, logo_file_id: logo } },
    });
    expect(res.status).toBe(200);
  });

  it('shows the logo, the colour and the product’s images on the checkout', async () => {
    const image = await uploadImage('vaso.png', 48);
    const product = await api.call('POST', '/api/v1/products/', {
      token: tenant.oat,
      body: {
        organization_id: tenant.org.id,
        name: unique('Vaso'),
        prices: [{ type: 'one_time', currency: 'brl', unit_amount: 12_000 }],
        medias: [image],
      },
    });
    expect(product.status).toBe(201);
    const created = await api.call('POST', '/api/v1/checkouts/', {
      token: tenant.oat,
      body: { product_id: product.body.id },
    });
    expect(created.status).toBe(201);
    const context = await newContext(browser);
    const page = await context.newPage();
    const violations = await watchCsp(page);
    await page.goto(`${api.baseUrl}/checkout/c/${created.body.client_secret}`);
    await expect(page.locator('.merchant').innerText()).resolves.toBe('Cerâmica Aurora');
    await expect(loaded(page, '.brand-logo')).resolves.toEqual([true]);
    await expect(loaded(page, '.product-images img')).resolves.toEqual([true]);
    await page.getByLabel('Pix', { exact: true }).check();
    const button = page.getByRole('button', { name: 'Gerar código pix' });
    const colours = await button.evaluate((b) => {
      const style = getComputedStyle(b);
      return [style.backgroundColor, style.color];
    });
    // #1a237e is dark: white text (contrast 14.4:1, WebAIM's checker).
    expect(colours).toEqual(['rgb(26, 35, 126)', 'rgb(255, 255, 255)']);
    await expectAccessibleAtBothSizes(page, 'checkout-branded');
    expect(violations).toEqual([]);
    await context.close();
  });

  it('shows the logo and the colour in the customer portal', async () => {
    const { row } = await paidSubscription(api, temporal, {
      organizationId: tenant.org.id,
      recurrenceBilling: 'manual',
    });
    const session = await api.call('POST', '/api/v1/customer-portal/sessions/', {
      token: tenant.oat,
      body: { customer_id: row.customer_id },
    });
    expect(session.status).toBe(201);
    const context = await newContext(browser);
    const page = await context.newPage();
    const violations = await watchCsp(page);
    await page.goto(session.body.customer_portal_url as string);
    await expect(page.locator('.portal-merchant').innerText()).resolves.toBe('Cerâmica Aurora');
    await expect(loaded(page, '.brand-logo')).resolves.toEqual([true]);
    const brand = await page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--brand'));
    expect(brand.trim()).toBe(NAVY);
    await expectAccessibleAtBothSizes(page, 'portal-branded');
    expect(violations).toEqual([]);
    await context.close();
  });
});
