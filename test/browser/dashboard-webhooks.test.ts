import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Locator, Page } from 'playwright-core';
import { useApi, type TestApi } from '../helpers/api.ts';
import { dashboardSignedIn, launchBrowser, pageChecked as checkedPage } from '../helpers/browser.ts';
import { makeTenant, unique } from '../helpers/fixtures.ts';
import { until } from '../helpers/processes.ts';
import { WebhookReceiver } from '../helpers/webhook-receiver.ts';

/**
 * Webhooks in the merchant dashboard, in Chromium, against the test run's worker (it delivers) and a
 * real local receiver that verifies every delivery with the secret the page showed. An endpoint added
 * in the page gets an event; its failed and successful attempts show; it is redelivered from the page,
 * disabled, and deleted after a confirmation. Every page is screenshot and checked by axe.
 */
let api: TestApi;
let browser: Browser;
const receivers: WebhookReceiver[] = [];
useApi((started) => ({ api } = started));
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await Promise.all(receivers.map((r) => r.stop()));
});

const pageChecked = (page: Page, name: string) => checkedPage(page, `dashboard-${name}`);

const signedIn = (jwt: string) => dashboardSignedIn(browser, api.baseUrl, jwt);

async function receiver(): Promise<{ receiver: WebhookReceiver; url: string }> {
  const r = new WebhookReceiver();
  receivers.push(r);
  return { receiver: r, url: await r.start() };
}

/** An event of the tenant: a product made through the API (product.created). */
async function newProduct(t: { oat: string; org: { id: string } }): Promise<void> {
  const res = await api.call('POST', '/api/v1/products/', {
    token: t.oat,
    body: { organization_id: t.org.id, name: unique('Course'), prices: [{ currency: 'brl', unit_amount: 4_900 }] },
  });
  expect(res.status).toBe(201);
}

/** The attempts table of a delivery as its rows' cells: [#, time, kind, result, HTTP status, duration, response]. */
async function attemptRows(delivery: Locator): Promise<string[][]> {
  const rows = await delivery.getByRole('row').all();
  const cells = await Promise.all(rows.slice(1).map((row) => row.getByRole('cell').allTextContents()));
  return cells.map((row) => row.map((cell) => cell.trim()));
}

/** Reloads the page, as a user waiting for a delivery would, until `check` holds. */
async function reloadUntil(page: Page, check: () => Promise<boolean>): Promise<void> {
  await until(async () => {
    await page.reload();
    return check();
  }, 30_000);
}

/**
 * Adds an endpoint for product.created in the list page: first refused by the API (an http URL that is
 * not loopback), then by keyboard with `url`. Its secret shows once; the list shows the endpoint.
 */
async function addEndpoint(page: Page, url: string): Promise<{ endpointId: string; secret: string }> {
  await page.getByLabel('URL', { exact: true }).fill('http://example.com/hooks');
  await page.getByLabel('product.created', { exact: true }).check();
  const refused = page.waitForResponse((res) => res.request().method() === 'POST');
  await page.getByRole('button', { name: 'Add endpoint' }).click();
  expect((await refused).status()).toBe(422);
  await expect(page.getByRole('alert').textContent()).resolves.toContain('Invalid webhook URL');
  await expect(page.getByLabel('product.created', { exact: true }).isChecked()).resolves.toBe(true);
  await expect(page.getByLabel('URL', { exact: true }).inputValue()).resolves.toBe('http://example.com/hooks');
  await pageChecked(page, 'webhook-refused');

  // By keyboard: the URL, then Enter submits the form.
  await page.getByLabel('URL', { exact: true }).fill(url);
  await page.getByLabel('URL', { exact: true }).press('Enter');
  await page.waitForURL(/\/webhooks\/[0-9a-f-]{36}\?done=created$/);
  const endpointId = new URL(page.url()).pathname.split('/').pop()!;
  await expect(page.getByRole('status').first().textContent()).resolves.toContain('Endpoint added.');
  const secret = (await page.locator('#signing-secret').textContent())!.trim();
  expect(secret).toMatch(/^whsec_/);
  await pageChecked(page, 'webhook-created');
  await page.reload();
  expect(await page.content()).not.toContain(secret);

  await page.getByRole('link', { name: 'All endpoints' }).click();
  const row = page.getByRole('row', { name: new RegExp(url) });
  const cells = (await row.getByRole('cell').allTextContents()).map((c) => c.trim());
  expect(cells.slice(0, 3)).toEqual([url, 'product.created', 'Enabled']);
  await pageChecked(page, 'webhooks-list');
  await row.getByRole('link', { name: url, exact: true }).click();
  await page.waitForURL(`**/webhooks/${endpointId}`);
  return { endpointId, secret };
}

/** Disables the endpoint in its edit page, then deletes it after the confirmation; the API shows it gone. */
async function disableThenDelete(page: Page, t: { oat: string }, endpointId: string, delivery: Locator) {
  const read = () => api.call('GET', `/api/v1/webhooks/${endpointId}`, { token: t.oat });
  await page.getByRole('link', { name: 'Edit endpoint' }).click();
  await pageChecked(page, 'webhook-edit');
  await page.getByLabel('Enabled', { exact: true }).uncheck();
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.waitForURL(/\?done=updated$/);
  await expect(page.getByRole('status').first().textContent()).resolves.toContain('Changes saved.');
  await expect(page.locator('dl').textContent()).resolves.toContain('Disabled');
  expect((await read()).body.enabled).toBe(false);

  // A disabled endpoint gets no redelivery: the API's refusal shows.
  await delivery.getByRole('button', { name: 'Redeliver' }).click();
  await expect(page.getByRole('alert').textContent()).resolves.toContain('The webhook endpoint is disabled');

  await page.getByRole('link', { name: 'Delete endpoint' }).click();
  await expect(page.getByRole('heading', { name: 'Delete this endpoint?' }).isVisible()).resolves.toBe(true);
  await pageChecked(page, 'webhook-delete-confirm');
  expect((await read()).status).toBe(200);
  await page.getByRole('button', { name: 'Delete endpoint' }).click();
  await page.waitForURL(/\/webhooks\?done=deleted$/);
  await expect(page.getByRole('status').first().textContent()).resolves.toContain('The endpoint is deleted.');
  await expect(page.getByText('No endpoints yet.').isVisible()).resolves.toBe(true);
  expect((await read()).status).toBe(404);
}

describe('merchant dashboard: webhooks', () => {
  it('adds an endpoint, shows its failed then successful attempt, redelivers, disables and deletes it', async () => {
    const t = await makeTenant(api.orm);
    const { receiver: r, url } = await receiver();
    let answered = 0;
    r.answer = () => (++answered === 1 ? 500 : 200);
    const { context, page } = await signedIn(t.ownerJwt);
    try {
      await page.goto(`${api.baseUrl}/dashboard/${t.org.id}/webhooks`);
      await expect(page.getByText('No endpoints yet.').isVisible()).resolves.toBe(true);
      await pageChecked(page, 'webhooks-empty');
      const { endpointId, secret } = await addEndpoint(page, url);
      r.secrets = [secret];
      const read = await api.call('GET', `/api/v1/webhooks/${endpointId}`, { token: t.oat });
      expect(read.body).toMatchObject({ url, event_types: ['product.created'], enabled: true });

      await newProduct(t);
      const [first] = await r.until((got) => got.length >= 2);
      const delivery = page.getByRole('article', { name: /product\.created/ });
      await reloadUntil(page, async () => (await delivery.getByRole('heading').textContent())!.includes('Succeeded'));
      const attempts = await attemptRows(delivery);
      expect(attempts.map((a) => [a[0], a[2], a[3], a[4], a[6]])).toEqual([
        ['1', 'Automatic', 'Failed', '500', 'not now'],
        ['2', 'Automatic', 'Succeeded', '200', 'ok'],
      ]);
      expect(attempts[0]![5]).toMatch(/^\d+ ms$/);
      await expect(delivery.textContent()).resolves.toContain(first!.id);
      await pageChecked(page, 'webhook-deliveries');

      await delivery.getByRole('button', { name: 'Redeliver' }).click();
      await page.waitForURL(/\?done=redelivered$/);
      await expect(page.getByRole('status').first().textContent()).resolves.toContain('Redelivery queued');
      const got = await r.until((all) => all.length >= 3);
      expect(got[2]!.id).toBe(first!.id);
      expect(got[2]!.signature).toMatch(/^v1,/);
      expect(got.map((d) => d.verified)).toEqual([[true], [true], [true]]);
      await reloadUntil(page, async () => (await attemptRows(delivery)).length === 3);
      expect((await attemptRows(delivery))[2]!.slice(2, 5)).toEqual(['Redelivery', 'Succeeded', '200']);

      await disableThenDelete(page, t, endpointId, delivery);
    } finally {
      await context.close();
    }
  });

  it('rotates the secret after a confirmation, sends a test event signed by both, keeps a refused edit, pages', async () => {
    const t = await makeTenant(api.orm);
    const { receiver: r, url } = await receiver();
    const made = await api.call('POST', '/api/v1/webhooks/', { token: t.oat, body: { url, event_types: [] } });
    expect(made.status).toBe(201);
    const path = `/dashboard/${t.org.id}/webhooks/${made.body.id}`;
    const { context, page } = await signedIn(t.ownerJwt);
    try {
      await page.goto(api.baseUrl + path);
      await page.getByRole('link', { name: 'Rotate the signing secret' }).click();
      await expect(page.getByRole('heading', { name: 'Rotate the signing secret?' }).isVisible()).resolves.toBe(true);
      await pageChecked(page, 'webhook-rotate-confirm');
      await page.getByRole('button', { name: 'Rotate secret' }).click();
      await page.waitForURL(/\?done=rotated$/);
      await expect(page.getByRole('status').first().textContent()).resolves.toContain('A new signing secret is made.');
      const rotated = (await page.locator('#signing-secret').textContent())!.trim();
      expect(rotated).toMatch(/^whsec_/);
      expect(rotated).not.toBe(made.body.secret);
      r.secrets = [made.body.secret, rotated];

      await page.getByRole('button', { name: 'Send a test event' }).click();
      await page.waitForURL(/\?done=pinged$/);
      const [ping] = (await r.until((got) => got.some((d) => d.body.type === 'webhook_endpoint.ping'))).filter(
        (d) => d.body.type === 'webhook_endpoint.ping',
      );
      expect(ping).toMatchObject({ verified: [true, true], body: { type: 'webhook_endpoint.ping' } });
      const delivery = page.getByRole('article', { name: /webhook_endpoint\.ping · Succeeded/ });
      await reloadUntil(page, async () => (await delivery.count()) === 1);

      // A form without the session's anti-CSRF field redelivers nothing.
      const forged = await page.evaluate(
        async ([action, eventId]) =>
          (await fetch(action!, { method: 'POST', body: new URLSearchParams({ event_id: eventId! }) })).status,
        [`${path}/redeliver`, ping!.id],
      );
      expect(forged).toBe(403);

      await refusedEdit(page, t, made.body.id);
      await deliveriesPaged(page, t, made.body.id, r);

      const other = await makeTenant(api.orm);
      const theirs = await api.call('POST', '/api/v1/webhooks/', { token: other.oat, body: { url } });
      const res = await page.goto(`${api.baseUrl}/dashboard/${t.org.id}/webhooks/${theirs.body.id}`);
      expect(res!.status()).toBe(404);
      await expect(page.getByRole('alert').textContent()).resolves.toContain('not found');
    } finally {
      await context.close();
    }
  });
});

/** An edit the API refuses (not an https URL): its words show, the form keeps what was typed and checked. */
async function refusedEdit(page: Page, t: { oat: string }, endpointId: string) {
  await page.getByRole('link', { name: 'Edit endpoint' }).click();
  await page.getByLabel('URL', { exact: true }).fill('ftp://127.0.0.1/hooks');
  await page.getByLabel('customer.updated', { exact: true }).check();
  await page.getByRole('button', { name: 'Save changes' }).click();
  await expect(page.getByRole('alert').textContent()).resolves.toContain('must use https');
  await expect(page.getByLabel('URL', { exact: true }).inputValue()).resolves.toBe('ftp://127.0.0.1/hooks');
  await expect(page.getByLabel('customer.updated', { exact: true }).isChecked()).resolves.toBe(true);
  await pageChecked(page, 'webhook-edit-refused');
  const read = await api.call('GET', `/api/v1/webhooks/${endpointId}`, { token: t.oat });
  expect(read.body).toMatchObject({ event_types: [], enabled: true });
  expect(read.body.url).toMatch(/^http:\/\/127\.0\.0\.1:/);
  await page.getByRole('link', { name: 'Back to the endpoint' }).click();
}

/** Ten more test events: ten deliveries of test events on the first page, the endpoint's creation on the next. */
async function deliveriesPaged(page: Page, t: { oat: string }, endpointId: string, r: WebhookReceiver) {
  for (let i = 0; i < 10; i++) {
    const ping = await api.call('POST', `/api/v1/webhooks/${endpointId}/ping`, { token: t.oat });
    expect(ping.status).toBe(202);
  }
  await r.until(() => r.ofType('webhook_endpoint.ping').length >= 11);
  const pings = page.getByRole('article', { name: /webhook_endpoint\.ping · Succeeded/ });
  await reloadUntil(page, async () => (await pings.count()) === 10);
  await expect(page.getByRole('article').count()).resolves.toBe(10);
  await page.getByRole('link', { name: 'Next' }).click();
  await expect(page.getByText('Page 2 of 2').isVisible()).resolves.toBe(true);
  await expect(page.getByRole('article', { name: /webhook_endpoint\.created/ }).count()).resolves.toBe(1);
  await pageChecked(page, 'webhook-deliveries-page-2');
}
