import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { useApi, type TestApi } from '../helpers/api.ts';
import { dashboardSignedIn, launchBrowser, newContext, pageChecked as checkedPage } from '../helpers/browser.ts';
import { makeMember, makeTenant, unique, userJwt } from '../helpers/fixtures.ts';

/**
 * The merchant dashboard in Chromium: sign-in (the one-click link, the form), the organization
 * picker, and API keys as the spec's dashboard has them. The key made in the page is used against
 * the API, revoked in the page, and refused with a 401 after. Every page is screenshot and checked by axe.
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

/** Signs in by the one-click link in a fresh profile: the token leaves the address bar at once. */
const signedIn = (jwt: string) => dashboardSignedIn(browser, api.baseUrl, jwt);

const productsWith = (key: string) => api.call('GET', '/api/v1/products/', { headers: { 'x-service-api-key': key } });

describe('merchant dashboard: sign-in and API keys', () => {
  it('creates a key whose secret is shown once, which then works; revoked after a confirmation, it gets 401', async () => {
    const t = await makeTenant(api.orm);
    const { context, page } = await signedIn(t.ownerJwt);
    try {
      await expect(page.getByRole('heading', { name: 'Pick an organization' }).isVisible()).resolves.toBe(true);
      const cookie = (await context.cookies()).find((c) => c.name === 'dashboard_session')!;
      expect(cookie).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Lax', path: '/dashboard' });
      await pageChecked(page, 'organizations');

      await page.getByRole('link', { name: t.org.slug, exact: true }).click();
      await page.waitForURL(`**/dashboard/${t.org.id}/metrics`);
      await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'API keys' }).click();
      await page.waitForURL(`**/dashboard/${t.org.id}/api-keys`);
      await pageChecked(page, 'api-keys-empty');

      await page.getByLabel('Name').fill('Shop server');
      await page.getByLabel('Write').check();
      await page.getByRole('button', { name: 'Create key' }).click();
      const secret = (await page.locator('#new-key').textContent())!.trim();
      expect(secret).toMatch(/^svc_test_[A-Za-z0-9_-]{43}$/);
      await pageChecked(page, 'api-key-created');

      const row = page.getByRole('row', { name: /Shop server/ });
      await expect(row.textContent()).resolves.toContain(`svc_test_${secret.slice(9, 13)}…${secret.slice(-4)}`);
      await expect(row.textContent()).resolves.toContain('read, write');
      expect(page.url()).toBe(`${api.baseUrl}/dashboard/${t.org.id}/api-keys`);
      // The secret is shown once: a reload shows the masked key only, and makes no second key.
      await page.reload();
      expect(await page.content()).not.toContain(secret);
      await expect(page.getByRole('row', { name: /Shop server/ }).count()).resolves.toBe(1);

      expect((await productsWith(secret)).status).toBe(200);
      const headers = await page.getByRole('columnheader').allTextContents();
      expect(headers).toEqual(expect.arrayContaining(['Key', 'Scopes', 'Created', 'Last used', 'Expires']));

      await page.getByRole('link', { name: 'Revoke Shop server' }).click();
      await expect(page.getByRole('heading', { name: 'Revoke this key?' }).isVisible()).resolves.toBe(true);
      await pageChecked(page, 'api-key-revoke-confirm');
      expect((await productsWith(secret)).status).toBe(200);
      await page.getByRole('button', { name: 'Revoke key' }).click();
      await page.waitForURL(`**/api-keys?done=revoked`);
      await expect(page.getByRole('status').first().textContent()).resolves.toContain('The key is revoked.');
      const revokedSection = page.getByRole('region', { name: 'Revoked keys' });
      await expect(revokedSection.getByRole('row', { name: /Shop server/ }).count()).resolves.toBe(1);
      await pageChecked(page, 'api-keys-revoked');

      const refused = await productsWith(secret);
      expect(refused.status).toBe(401);
      expect(refused.body).toMatchObject({ error: 'Invalid api key' });
    } finally {
      await context.close();
    }
  });

  it('refuses a bad token at the form, a form without the session token, and another organization', async () => {
    const t = await makeTenant(api.orm);
    const other = await makeTenant(api.orm);
    const context = await newContext(browser, { locale: 'en-US' });
    const page = await context.newPage();
    try {
      // Without a session every page leads to sign-in, and back after it.
      await page.goto(`${api.baseUrl}/dashboard/${t.org.id}/api-keys`);
      expect(new URL(page.url()).pathname).toBe('/dashboard/sign-in');
      await pageChecked(page, 'sign-in');
      await page.getByLabel('Access token', { exact: true }).fill('not-a-jwt');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect(page.getByRole('alert').textContent()).resolves.toContain('That token was not accepted.');

      await page.getByLabel('Access token', { exact: true }).fill(t.ownerJwt);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`**/dashboard/${t.org.id}/api-keys`);

      // A form of another site carries the cookie (a top-level post from a form is Lax-exempt only for
      // GET): here the post is made from the page itself without the anti-CSRF field, and refused.
      const status = await page.evaluate(async (url) => {
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: 'name=Forged&environment=live&scopes=write',
        });
        return res.status;
      }, `${api.baseUrl}/dashboard/${t.org.id}/api-keys`);
      expect(status).toBe(403);
      const keys = await api.call('GET', `/api/v1/dashboard/organizations/${t.org.id}/api-keys`, { token: t.ownerJwt });
      expect(keys.body.active.map((k: { name: string }) => k.name)).not.toContain('Forged');

      const res = await page.goto(`${api.baseUrl}/dashboard/${other.org.id}/api-keys`);
      expect(res!.status()).toBe(404);
    } finally {
      await context.close();
    }
  });

  it('tells a plain member that only the owner or an admin manages keys', async () => {
    const t = await makeTenant(api.orm);
    const email = `${unique('member')}@example.com`;
    await makeMember(api.orm, t.org.id, email, 'member');
    const { context, page } = await signedIn(await userJwt(email));
    try {
      const res = await page.goto(`${api.baseUrl}/dashboard/${t.org.id}/api-keys`);
      expect(res!.status()).toBe(403);
      await expect(page.getByRole('alert').textContent()).resolves.toContain('owner or an admin');
    } finally {
      await context.close();
    }
  });
});
