import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { decodeJwt } from 'jose';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startApi, type TestApi } from '../helpers/api.ts';
import { expectAccessibleAtBothSizes, launchBrowser, newContext, screenshot } from '../helpers/browser.ts';
import { makeMember, makeTenant, unique } from '../helpers/fixtures.ts';
import { startIdentityProvider, type IdentityProvider } from '../helpers/identity-provider.ts';
import { freePort } from '../helpers/processes.ts';

/**
 * The dashboard's production sign-in in Chromium: OpenID Connect's authorization code with PKCE
 * against a local provider (oidc-provider, its own development login and consent pages), whose keys
 * are the ones the API trusts for user JWTs. A person invited by email signs in there and lands on
 * the organization picker; a redirect whose state was tampered with, and an ID token the API
 * refuses, leave them signed out with the reason. Our pages are screenshot and checked by axe.
 */
let api: TestApi;
let idp: IdentityProvider;
let browser: Browser;

beforeAll(async () => {
  // The API's address first: the provider registers its callback, the API's config names it.
  const port = await freePort();
  const base = `https://127.0.0.1:${port}`;
  idp = await startIdentityProvider(`${base}/dashboard/sign-in/oidc/callback`);
  api = await startApi({
    PORT: String(port),
    PUBLIC_BASE_URL: base,
    OIDC_ISSUER_URL: idp.issuer,
    OIDC_CLIENT_ID: idp.clientId,
    OIDC_CLIENT_SECRET: idp.clientSecret,
    JWT_JWKS_URL: idp.jwksUri,
    JWT_ISSUER: idp.issuer,
    JWT_AUDIENCE: `billing-api,${idp.clientId}`,
  });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await api?.close();
  await idp?.close();
});

async function pageChecked(page: Page, name: string) {
  await screenshot(page, `dashboard-oidc-${name}`);
  await expectAccessibleAtBothSizes(page, `dashboard-oidc-${name}`);
}

/** A person the provider knows, invited to a fresh organization by email before they ever signed in. */
async function invitedPerson(options: { email?: boolean; emailVerified?: boolean } = {}) {
  const t = await makeTenant(api.orm);
  const login = unique('ana');
  const email = `${login}@example.com`;
  await makeMember(api.orm, t.org.id, email, 'admin', { invited: true });
  idp.addAccount(login, options.email === false ? null : email, { emailVerified: options.emailVerified });
  return { org: t.org, login, email };
}

/** From our sign-in page to the provider's, signed in there as `login` (any password), consent given. */
async function signInAtProvider(page: Page, login: string, options: { consent?: boolean } = {}) {
  await page.getByRole('link', { name: "Sign in with your company's account" }).click();
  await page.waitForURL(`${idp.issuer}/**`);
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill('any password');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  const consent = page.getByRole('button', { name: 'Continue' });
  if (options.consent !== false) await consent.click();
  else await consent.waitFor();
}

/**
 * Consent given on the provider's page, its redirects followed by hand (with the browser's cookies)
 * up to the API's callback, which is not opened: the address with the provider's code, still unused.
 */
async function callbackOfConsent(page: Page): Promise<URL> {
  const action = await page.locator('form').getAttribute('action');
  let res = await page.request.post(new URL(action!, page.url()).href, {
    form: { prompt: 'consent' },
    maxRedirects: 0,
  });
  for (let hops = 0; hops < 5; hops++) {
    const location = new URL(res.headers().location!, idp.issuer);
    if (location.origin !== idp.issuer) return location;
    res = await page.request.get(location.href, { maxRedirects: 0 });
  }
  throw new Error('the provider did not redirect to the callback');
}

const sessionCookie = async (context: BrowserContext) =>
  (await context.cookies()).find((c) => c.name === 'dashboard_session');

describe('merchant dashboard: sign-in through the identity provider', () => {
  it('signs an invited person in at the provider and lands them on their organizations', async () => {
    const person = await invitedPerson();
    const context = await newContext(browser, { locale: 'en-US' });
    const page = await context.newPage();
    try {
      await page.goto(`${api.baseUrl}/dashboard`);
      expect(new URL(page.url()).pathname).toBe('/dashboard/sign-in');
      // The local JWT form stays, under the provider's button.
      await expect(page.getByLabel('Access token', { exact: true }).isVisible()).resolves.toBe(true);
      await pageChecked(page, 'sign-in');

      await signInAtProvider(page, person.login);
      await page.waitForURL(`${api.baseUrl}/dashboard`);
      await expect(page.getByRole('heading', { name: 'Pick an organization' }).isVisible()).resolves.toBe(true);
      await expect(page.getByRole('link', { name: person.org.slug, exact: true }).isVisible()).resolves.toBe(true);
      await expect(page.getByText(person.email).isVisible()).resolves.toBe(true);
      await pageChecked(page, 'organizations');

      const cookie = (await sessionCookie(context))!;
      expect(cookie).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Lax', path: '/dashboard' });
      // The session is the provider's ID token for this client (docs/decisions/0053-dashboard-oidc-id-token.md).
      expect(decodeJwt(cookie.value)).toMatchObject({ iss: idp.issuer, aud: idp.clientId, email: person.email });
      // The sign-in's own cookie (verifier, state) is gone once used.
      expect((await context.cookies()).map((c) => c.name)).not.toContain('dashboard_oidc');

      await page.getByRole('link', { name: person.org.slug, exact: true }).click();
      await page.waitForURL(`**/dashboard/${person.org.id}/metrics`);
      await expect(page.getByRole('heading', { name: 'Metrics', level: 1 }).isVisible()).resolves.toBe(true);
    } finally {
      await context.close();
    }
  });

  it("refuses the provider's redirect when its state is not this browser's sign-in", async () => {
    const person = await invitedPerson();
    const context = await newContext(browser, { locale: 'en-US' });
    const page = await context.newPage();
    try {
      await page.goto(`${api.baseUrl}/dashboard/sign-in`);
      await signInAtProvider(page, person.login, { consent: false });
      // The provider's genuine, unused code, with another state: as an attacker's own sign-in would arrive.
      const callback = await callbackOfConsent(page);
      const state = callback.searchParams.get('state')!;
      callback.searchParams.set('state', 'forged-state');
      const res = await page.goto(callback.href);
      expect(res!.status()).toBe(400);
      await expect(page.getByRole('alert').textContent()).resolves.toContain(
        'That sign-in was not started in this browser',
      );
      expect(await page.content()).not.toMatch(/at .*\.ts:\d+/);
      expect(await sessionCookie(context)).toBeUndefined();
      await pageChecked(page, 'state-refused');

      // The sign-in's cookie is spent: even the provider's untouched redirect is refused now.
      callback.searchParams.delete('state');
      expect((await page.goto(`${callback.href}&state=${encodeURIComponent(state)}`))!.status()).toBe(400);
      expect(await sessionCookie(context)).toBeUndefined();

      // Nothing is signed in: the dashboard still leads to sign-in.
      await page.goto(`${api.baseUrl}/dashboard`);
      expect(new URL(page.url()).pathname).toBe('/dashboard/sign-in');
    } finally {
      await context.close();
    }
  });

  it('refuses a sign-in whose ID token the API would not accept, or whose email is unverified', async () => {
    const cases = [
      { person: await invitedPerson({ email: false }), alert: 'was not accepted here' },
      { person: await invitedPerson({ emailVerified: false }), alert: 'has not verified your email address' },
    ];
    for (const { person, alert } of cases) {
      const context = await newContext(browser, { locale: 'en-US' });
      const page = await context.newPage();
      try {
        await page.goto(`${api.baseUrl}/dashboard/sign-in`);
        const answer = page.waitForResponse((res) => res.url().includes('/dashboard/sign-in/oidc/callback'));
        await signInAtProvider(page, person.login);
        expect((await answer).status()).toBe(401);
        await expect(page.getByRole('alert').textContent()).resolves.toContain(alert);
        expect(await sessionCookie(context)).toBeUndefined();
      } finally {
        await context.close();
      }
    }
  });

  it('tells a person who cancels at the provider, or whose provider is down, that they are not signed in', async () => {
    const closedPort = await freePort();
    const cutOff = await startApi({
      OIDC_ISSUER_URL: `http://127.0.0.1:${closedPort}`,
      OIDC_CLIENT_ID: idp.clientId,
      JWT_JWKS_URL: `http://127.0.0.1:${closedPort}/jwks`,
    });
    const context = await newContext(browser, { locale: 'en-US' });
    const page = await context.newPage();
    try {
      await page.goto(`${api.baseUrl}/dashboard/sign-in`);
      await page.getByRole('link', { name: "Sign in with your company's account" }).click();
      await page.waitForURL(`${idp.issuer}/**`);
      const answer = page.waitForResponse((res) => res.url().includes('/dashboard/sign-in/oidc/callback'));
      await page.getByRole('link', { name: 'Cancel' }).click();
      expect((await answer).status()).toBe(400);
      await expect(page.getByRole('alert').textContent()).resolves.toContain(
        'The identity provider did not sign you in.',
      );
      expect(await sessionCookie(context)).toBeUndefined();

      await page.goto(`${cutOff.baseUrl}/dashboard/sign-in`);
      const down = page.waitForResponse((res) => res.url().includes('/dashboard/sign-in/oidc'));
      await page.getByRole('link', { name: "Sign in with your company's account" }).click();
      expect((await down).status()).toBe(502);
      await expect(page.getByRole('alert').textContent()).resolves.toContain('cannot be reached right now');
      await pageChecked(page, 'provider-down');
    } finally {
      await context.close();
      await cutOff.close();
    }
  });
});
