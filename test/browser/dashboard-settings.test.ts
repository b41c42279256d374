import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { useApi, type TestApi } from '../helpers/api.ts';
import { dashboardSignedIn, launchBrowser, pageChecked as checkedPage } from '../helpers/browser.ts';
import { makeTenant, unique, userJwt } from '../helpers/fixtures.ts';

/**
 * The dashboard's settings sections in Chromium: access tokens (made in the page, used against the
 * API, revoked, refused), members (added with a role, the API's refusals shown, removed after a
 * confirmation), and the event log those changes write (filters, pages, one event's payload).
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

const signedIn = (jwt: string) => dashboardSignedIn(browser, api.baseUrl, jwt);

async function openSection(page: Page, organizationId: string, label: string, path: string) {
  if (!page.url().includes(organizationId)) await page.goto(`${api.baseUrl}/dashboard/${organizationId}`);
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: label, exact: true }).click();
  await page.waitForURL(`**/dashboard/${organizationId}/${path}`);
}

const productsWith = (token: string) => api.call('GET', '/api/v1/products/', { token });

describe('merchant dashboard: access tokens', () => {
  it('creates a token shown once, which then works; revoked after a confirmation, it gets 401', async () => {
    const t = await makeTenant(api.orm);
    const { context, page } = await signedIn(t.ownerJwt);
    try {
      await openSection(page, t.org.id, 'Access tokens', 'access-tokens');
      await pageChecked(page, 'access-tokens');

      // Without a scope the API refuses, and the page says so, keeping what was typed.
      await page.getByLabel('Comment').fill('Shop server');
      await page.getByRole('button', { name: 'Create token' }).click();
      await expect(page.getByRole('alert').textContent()).resolves.toMatch(/scopes/i);
      await expect(page.getByLabel('Comment').inputValue()).resolves.toBe('Shop server');
      await pageChecked(page, 'access-token-refused');

      await page.getByLabel('products:read').check();
      await page.getByLabel('Expires in (days, optional)').fill('30');
      await page.getByRole('button', { name: 'Create token' }).click();
      await page.waitForURL(`**/dashboard/${t.org.id}/access-tokens`);
      const token = (await page.locator('#new-token').textContent())!.trim();
      expect(token).toMatch(/^svc_oat_[A-Za-z0-9_-]{43}$/);
      await pageChecked(page, 'access-token-created');

      const row = page.getByRole('row', { name: /Shop server/ });
      const cells = await row.getByRole('cell').allTextContents();
      expect(cells.slice(0, 3)).toEqual([
        'Shop server',
        `svc_oat_${token.slice(8, 12)}…${token.slice(-4)}`,
        'products:read',
      ]);
      expect(cells[5]).not.toBe('Never');
      await page.reload();
      expect(await page.content()).not.toContain(token);

      expect((await productsWith(token)).status).toBe(200);

      await page.getByRole('link', { name: 'Revoke Shop server' }).click();
      await expect(page.getByRole('heading', { name: 'Revoke this token?' }).isVisible()).resolves.toBe(true);
      await pageChecked(page, 'access-token-revoke-confirm');
      expect((await productsWith(token)).status).toBe(200);
      await page.getByRole('button', { name: 'Revoke token' }).click();
      await page.waitForURL('**/access-tokens?done=revoked');
      await expect(page.getByRole('status').first().textContent()).resolves.toContain('The token is revoked.');
      await expect(page.getByRole('row', { name: /Shop server/ }).count()).resolves.toBe(0);
      expect((await productsWith(token)).status).toBe(401);
    } finally {
      await context.close();
    }
  });
});

describe('merchant dashboard: members', () => {
  it('adds members with a role, shows the API refusing an admin or the last owner, and removes after a confirmation', async () => {
    const t = await makeTenant(api.orm);
    const adminEmail = `${unique('admin')}@example.com`;
    const helperEmail = `${unique('helper')}@example.com`;
    const owner = await signedIn(t.ownerJwt);
    try {
      await openSection(owner.page, t.org.id, 'Members', 'members');
      const page = owner.page;
      const ownerRow = await page
        .getByRole('row', { name: new RegExp(t.ownerEmail) })
        .getByRole('cell')
        .allTextContents();
      expect(ownerRow.slice(0, 2)).toEqual([`${t.ownerEmail} (you)`, 'Owner']);
      await page.getByLabel('E-mail', { exact: true }).fill(adminEmail);
      await page.getByLabel('Role', { exact: true }).selectOption('admin');
      await page.getByRole('button', { name: 'Add member' }).click();
      await page.waitForURL('**/members?done=added');
      await expect(
        page
          .getByRole('row', { name: new RegExp(adminEmail) })
          .getByRole('cell')
          .nth(1)
          .textContent(),
      ).resolves.toBe('Admin');
      await pageChecked(page, 'members');

      // The last owner cannot leave: the API's 422, on the page.
      await page.getByRole('link', { name: `Remove ${t.ownerEmail}` }).click();
      await expect(page.getByRole('heading', { name: 'Leave this organization?' }).isVisible()).resolves.toBe(true);
      await page.getByRole('button', { name: 'Leave organization' }).click();
      await expect(page.getByRole('alert').textContent()).resolves.toContain('The last owner cannot be removed');
      await pageChecked(page, 'members-last-owner');
    } finally {
      await owner.context.close();
    }

    const admin = await signedIn(await userJwt(adminEmail));
    try {
      const page = admin.page;
      await openSection(page, t.org.id, 'Members', 'members');
      await page.getByLabel('E-mail', { exact: true }).fill(helperEmail);
      await page.getByLabel('Role', { exact: true }).selectOption('admin');
      const refused = page.waitForResponse((r) => r.request().method() === 'POST');
      await page.getByRole('button', { name: 'Add member' }).click();
      expect((await refused).status()).toBe(403);
      await expect(page.getByRole('alert').textContent()).resolves.toContain('may not add a member with role admin');
      await pageChecked(page, 'members-refused');

      await page.getByLabel('Role', { exact: true }).selectOption('member');
      await page.getByRole('button', { name: 'Add member' }).click();
      await page.waitForURL('**/members?done=added');
      await page.getByRole('link', { name: `Remove ${helperEmail}` }).click();
      await expect(page.getByRole('heading', { name: 'Remove this member?' }).isVisible()).resolves.toBe(true);
      await pageChecked(page, 'member-remove-confirm');
      await page.getByRole('button', { name: 'Remove member' }).click();
      await page.waitForURL('**/members?done=removed');
      await expect(page.getByRole('row', { name: new RegExp(helperEmail) }).count()).resolves.toBe(0);
    } finally {
      await admin.context.close();
    }
    const list = await api.call('GET', `/api/v1/organizations/${t.org.id}/members`, { token: t.ownerJwt });
    expect(list.body.items.map((m: { email: string }) => m.email).sort()).toEqual([adminEmail, t.ownerEmail].sort());
  });
});

describe('merchant dashboard: events', () => {
  it('lists the events by pages, filters them by type, and shows one with its payload', async () => {
    const t = await makeTenant(api.orm);
    for (let i = 0; i < 27; i++) {
      const res = await api.call('POST', '/api/v1/customers/', {
        headers: { 'x-service-api-key': t.apiKey },
        body: { email: `buyer-${i}@example.com`, name: `Buyer ${i}` },
      });
      expect(res.status).toBe(201);
    }
    const memberEmail = `${unique('member')}@example.com`;
    const { context, page } = await signedIn(t.ownerJwt);
    try {
      await openSection(page, t.org.id, 'Members', 'members');
      await page.getByLabel('E-mail', { exact: true }).fill(memberEmail);
      await page.getByRole('button', { name: 'Add member' }).click();
      await page.waitForURL('**/members?done=added');

      await openSection(page, t.org.id, 'Events', 'events');
      await expect(page.getByText('28 events, newest first').isVisible()).resolves.toBe(true);
      const table = page.getByRole('table', { name: 'Events' });
      await expect(table.getByRole('row').count()).resolves.toBe(26);
      const newest = await table.getByRole('row').nth(1).getByRole('cell').allTextContents();
      expect(newest[0]).toBe('organization_member.added');
      expect(newest[2]).toBe('User (you)');
      await pageChecked(page, 'events');
      await page.getByRole('link', { name: 'Next' }).click();
      await expect(page.getByText('Page 2 of 2').isVisible()).resolves.toBe(true);
      await expect(table.getByRole('row').count()).resolves.toBe(4);
      expect(await table.getByRole('row').nth(1).getByRole('cell').nth(2).textContent()).toMatch(
        /^API key [0-9a-f-]{36}$/,
      );

      await page.getByLabel('Type', { exact: true }).selectOption('customer.*');
      await page.getByRole('button', { name: 'Filter' }).click();
      await expect(page.getByText('27 events, newest first').isVisible()).resolves.toBe(true);

      await page.getByLabel('Type', { exact: true }).selectOption('organization_member.added');
      await page.getByRole('button', { name: 'Filter' }).click();
      await expect(page.getByText('1 event, newest first').isVisible()).resolves.toBe(true);
      await table.getByRole('link', { name: /^Details of organization_member.added/ }).click();
      await expect(page.getByRole('heading', { name: 'Event organization_member.added' }).isVisible()).resolves.toBe(
        true,
      );
      const payload = JSON.parse((await page.locator('pre.payload').textContent())!);
      expect(payload).toMatchObject({
        type: 'organization_member.added',
        organization_id: t.org.id,
        actor: { type: 'user', id: t.ownerId },
        data: { email: memberEmail, role: 'member' },
      });
      await pageChecked(page, 'event-details');

      // The API's refusals, with their statuses: a type that is no type, an event that is not there.
      const bad = await page.goto(`${api.baseUrl}/dashboard/${t.org.id}/events?type=Not-a-type`);
      expect(bad!.status()).toBe(400);
      await expect(page.getByRole('alert').isVisible()).resolves.toBe(true);
      const missing = await page.goto(`${api.baseUrl}/dashboard/${t.org.id}/events/${t.org.id}`);
      expect(missing!.status()).toBe(404);
      await expect(page.getByRole('alert').textContent()).resolves.toContain('not found');
    } finally {
      await context.close();
    }
  });
});
