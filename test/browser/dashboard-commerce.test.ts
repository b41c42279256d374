import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { uuidv7 } from 'uuidv7';
import { subscriptionWorkflowId } from '../../contracts/subscription.ts';
import { useApi, type TestApi } from '../helpers/api.ts';
import { expectAccessibleAtBothSizes, launchBrowser, newContext, screenshot } from '../helpers/browser.ts';
import { makeTenant, unique } from '../helpers/fixtures.ts';
import { paidSubscription } from '../helpers/subscriptions.ts';

/**
 * The dashboard's commerce sections in Chromium, on a subscription sold by a paid card checkout whose
 * workflow runs on the real worker: its list and page (the renewal and dunning timeline with a refused
 * try's reason, the link to its workflow in the Temporal UI, cancel at period end, uncancel and revoke
 * behind confirmations, an extra charge), its sale refunded in part, customers created and searched, and
 * the portal link that signs the customer in. What the pages do is read back from the API.
 */
let api: TestApi;
let temporal: Client;
let browser: Browser;
useApi((started) => ({ api, temporal } = started));

type Tenant = Awaited<ReturnType<typeof makeTenant>>;
let t: Tenant;
let sub: Record<string, any>;
let email: string;

beforeAll(async () => {
  browser = await launchBrowser();
  t = await makeTenant(api.orm);
  // Billed by the gateway, so that it can take an extra charge.
  ({ row: sub } = await paidSubscription(api, temporal, {
    organizationId: t.org.id,
    recurrenceBilling: 'gateway',
    amount: 9_990,
  }));
  email = (await api.call('GET', `/api/v1/customers/${sub.customer_id}`, { token: t.oat })).body.email;
  // A refused renewal try, as the subscription's workflow would have written it.
  await sql(
    `insert into subscription_charges (id, organization_id, subscription_id, period_number, try_number, amount,
       currency, outcome, decline_reason, attempted_at)
     values (?, ?, ?, 2, 1, 9990, 'brl', 'failed', 'insufficient_funds', now())`,
    [uuidv7(), t.org.id, sub.id],
  );
});
afterAll(async () => {
  await browser?.close();
});

const sql = <T = any>(text: string, params: unknown[] = []) => api.orm.em.getConnection().execute<T[]>(text, params);
const section = (name: string) => `${api.baseUrl}/dashboard/${t.org.id}/${name}`;

async function pageChecked(page: Page, name: string) {
  await screenshot(page, `dashboard-${name}`);
  await expectAccessibleAtBothSizes(page, `dashboard-${name}`);
}

async function signedIn(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await newContext(browser, { locale: 'en-US' });
  const page = await context.newPage();
  await page.goto(`${api.baseUrl}/dashboard/sign-in?token=${t.ownerJwt}`);
  return { context, page };
}

const apiGet = async (url: string) => {
  const res = await api.call('GET', url, { token: t.oat });
  expect(res.status).toBe(200);
  return res.body;
};

describe('merchant dashboard: subscriptions and extra charges', () => {
  it('lists the subscription, shows its timeline and workflow, and changes it behind confirmations', async () => {
    const { context, page } = await signedIn();
    try {
      await page.goto(section('subscriptions'));
      const row = page.getByRole('row', { name: new RegExp(email) });
      await expect(row.textContent()).resolves.toMatch(/Course.*R\$99\.90.*Active/);
      await pageChecked(page, 'subscriptions');
      await page.getByLabel('Status', { exact: true }).selectOption('canceled');
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.waitForURL(/status=canceled/);
      await expect(page.getByText('No subscriptions.').isVisible()).resolves.toBe(true);
      await page.getByLabel('Status', { exact: true }).selectOption('active');
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.waitForURL(/status=active/);

      await page
        .getByRole('row', { name: new RegExp(email) })
        .getByRole('link', { name: 'Course' })
        .click();
      await page.waitForURL(`**/subscriptions/${sub.id}`);
      const timeline = page.getByRole('region', { name: 'Charges and retries' });
      const refused = timeline.getByRole('row', { name: /Failed/ });
      await expect(refused.textContent()).resolves.toContain(
        'Insufficient funds or credit limit. (insufficient_funds)',
      );
      const link = page.getByTestId('workflow-link');
      await expect(link.textContent()).resolves.toBe(subscriptionWorkflowId(sub.id));
      const ui = `${api.config.TEMPORAL_UI_URL.replace(/\/$/, '')}/namespaces/${api.config.TEMPORAL_NAMESPACE}`;
      await expect(link.getAttribute('href')).resolves.toBe(
        `${ui}/workflows/${encodeURIComponent(subscriptionWorkflowId(sub.id))}`,
      );
      await pageChecked(page, 'subscription');

      await page.getByRole('link', { name: 'Cancel at period end' }).click();
      await page.waitForURL(/\/cancel$/);
      expect((await apiGet(`/api/v1/subscriptions/${sub.id}`)).cancel_at_period_end).toBe(false);
      await pageChecked(page, 'subscription-cancel-confirm');
      // By keyboard: the confirmation is a button that Enter presses.
      await page.getByRole('button', { name: 'Cancel at period end' }).focus();
      await page.keyboard.press('Enter');
      await page.waitForURL(/done=cancel$/);
      await expect(page.getByRole('status').first().textContent()).resolves.toContain(
        'will end at the end of its period',
      );
      expect((await apiGet(`/api/v1/subscriptions/${sub.id}`)).cancel_at_period_end).toBe(true);

      await page.getByRole('link', { name: 'Undo the cancellation' }).click();
      await page.getByRole('button', { name: 'Keep the subscription' }).click();
      await page.waitForURL(/done=uncancel$/);
      expect((await apiGet(`/api/v1/subscriptions/${sub.id}`)).cancel_at_period_end).toBe(false);
    } finally {
      await context.close();
    }
  });

  it('creates an extra charge from the subscription page, listed there and in the extra charges section', async () => {
    const { context, page } = await signedIn();
    try {
      await page.goto(section(`subscriptions/${sub.id}`));
      await page.getByLabel('Amount (R$)').fill('abc');
      await page.getByLabel('Description').fill('Installation');
      await page.getByRole('button', { name: 'Create extra charge' }).click();
      await expect(page.getByRole('alert').textContent()).resolves.toContain('Enter the amount in reais');
      expect(await page.getByLabel('Description').inputValue()).toBe('Installation');

      await page.getByLabel('Amount (R$)').fill('25,00');
      await page.getByRole('button', { name: 'Create extra charge' }).click();
      await page.waitForURL(/done=invoice$/);
      const invoices = await apiGet(`/api/v1/subscriptions/${sub.id}/invoices`);
      expect(invoices.items).toEqual([expect.objectContaining({ amount: 2_500, description: 'Installation' })]);
      const listed = page.getByRole('region', { name: 'Extra charges' }).getByRole('row', { name: /Installation/ });
      await expect(listed.textContent()).resolves.toContain(invoices.items[0].number);

      await page.getByRole('link', { name: 'Extra charges' }).click();
      await page.waitForURL(section('invoices'));
      const row = page.getByRole('row', { name: /Installation/ });
      await expect(row.textContent()).resolves.toMatch(new RegExp(`Course.*${email}.*R\\$25\\.00.*Pending`));
      await pageChecked(page, 'invoices');
    } finally {
      await context.close();
    }
  });
});

describe('merchant dashboard: sales and refunds', () => {
  it('refunds part of a sale from its page after a confirmation showing the amount', async () => {
    const { context, page } = await signedIn();
    try {
      await page.goto(section('sales'));
      const row = page.getByRole('row', { name: new RegExp(email) });
      await expect(row.textContent()).resolves.toMatch(/Course.*R\$99\.90.*Card.*1.*Paid/);
      await pageChecked(page, 'sales');
      await row.getByRole('link').first().click();
      await page.waitForURL(/\/sales\/[0-9a-f-]{36}$/);
      const saleId = page.url().split('/').pop()!;

      await page.getByLabel('Amount (R$, optional)').fill('10,00');
      await page.getByLabel('Reason (optional)').fill('Damaged');
      await page.getByRole('button', { name: 'Review the refund' }).click();
      await expect(page.getByTestId('refund-amount').textContent()).resolves.toBe('R$10.00');
      expect((await apiGet(`/api/v1/refunds/?sale_id=${saleId}`)).items).toEqual([]);
      await pageChecked(page, 'refund-confirm');

      await page.getByRole('button', { name: 'Refund', exact: true }).click();
      await page.waitForURL(/done=(succeeded|pending)$/);
      const refunds = await apiGet(`/api/v1/refunds/?sale_id=${saleId}`);
      expect(refunds.items).toEqual([expect.objectContaining({ amount: 1_000, reason: 'Damaged' })]);
      const refundRow = page.getByRole('region', { name: 'Refunds' }).getByRole('row', { name: /Damaged/ });
      await expect(refundRow.textContent()).resolves.toContain('R$10.00');
      await pageChecked(page, 'sale');

      await page.getByRole('link', { name: 'Refunds', exact: true }).click();
      await expect(page.getByRole('row', { name: /Damaged/ }).textContent()).resolves.toContain('R$10.00');
      await pageChecked(page, 'refunds');
    } finally {
      await context.close();
    }
  });
});

describe("merchant dashboard: a sale's disputes", () => {
  it('shows a lost chargeback on the sale: the dispute, what it took back, and the sale charged back', async () => {
    const [sale] = await sql(
      'select id, transaction_id from sales where subscription_id = ? order by created_at limit 1',
      [sub.id],
    );
    // A lost dispute, as the chargeback workflow writes it (decision 0072; its own tests drive it from the gateway).
    await sql(
      `insert into disputes (id, organization_id, sale_id, transaction_id, gateway_dispute_id, status, amount,
         lost_amount, currency, opened_at, closed_at, created_at, updated_at)
       values (?, ?, ?, ?, ?, 'lost', 2500, 2500, 'brl', now() - interval '2 days', now(), now(), now())`,
      [uuidv7(), t.org.id, sale.id, sale.transaction_id, unique('chargeback')],
    );
    await sql('update sales set charged_back_amount = 2500 where id = ?', [sale.id]);
    const { context, page } = await signedIn();
    try {
      await page.goto(`${section('sales')}/${sale.id}`);
      const disputes = page.getByRole('region', { name: 'Disputes (chargebacks) of this sale' });
      await expect(disputes.getByRole('row', { name: /Lost/ }).textContent()).resolves.toMatch(
        /R\$25\.00.*Lost.*R\$25\.00/,
      );
      await expect(page.locator('dl.facts').textContent()).resolves.toMatch(/Charged back\s*R\$25\.00/);
      expect((await apiGet(`/api/v1/sales/${sale.id}`)).charged_back_amount).toBe(2_500);
      await pageChecked(page, 'sale-disputed');
    } finally {
      await context.close();
    }
  });
});

describe('merchant dashboard: customers', () => {
  it('creates a customer, refuses a taken e-mail with the API’s words, and finds customers by e-mail', async () => {
    const { context, page } = await signedIn();
    const created = `${unique('ana')}@example.com`;
    try {
      await page.goto(section('customers'));
      await page.getByLabel('E-mail', { exact: true }).fill(created);
      await page.getByLabel('Name (optional)').fill('Ana Souza');
      await page.getByLabel('CPF or CNPJ (optional)').fill('529.982.247-25');
      await page.getByRole('button', { name: 'Create customer' }).click();
      await page.waitForURL(/\/customers\/[0-9a-f-]{36}\?done=created$/);
      await expect(page.getByRole('status').first().textContent()).resolves.toContain('Customer created.');
      const found = await apiGet(`/api/v1/customers/?email=${encodeURIComponent(created)}`);
      expect(found.items).toEqual([
        expect.objectContaining({ name: 'Ana Souza', tax_id: { type: 'cpf', number: '52998224725' } }),
      ]);
      await pageChecked(page, 'customer-created');

      await page.goto(section('customers'));
      await page.getByLabel('E-mail', { exact: true }).fill(created);
      const [refused] = await Promise.all([
        page.waitForResponse((r) => r.request().method() === 'POST'),
        page.getByRole('button', { name: 'Create customer' }).click(),
      ]);
      expect(refused.status()).toBe(422);
      await expect(page.getByRole('alert').textContent()).resolves.toMatch(/email/i);
      expect(await page.getByLabel('E-mail', { exact: true }).inputValue()).toBe(created);

      await page.getByLabel('Search by e-mail or name').fill(created.slice(0, 12));
      await page.getByRole('button', { name: 'Search' }).click();
      await page.waitForURL(/query=/);
      await expect(page.getByRole('row', { name: new RegExp(created) }).count()).resolves.toBe(1);
      await expect(page.getByRole('row', { name: new RegExp(email) }).count()).resolves.toBe(0);
      await pageChecked(page, 'customers');
    } finally {
      await context.close();
    }
  });

  it('shows a customer’s subscriptions and sales, and a portal link that signs the customer in', async () => {
    const { context, page } = await signedIn();
    try {
      await page.goto(section(`customers/${sub.customer_id}`));
      const subscriptions = page.getByRole('region', { name: 'Subscriptions' });
      await expect(subscriptions.getByRole('link', { name: 'Course' }).getAttribute('href')).resolves.toContain(sub.id);
      await expect(page.getByRole('region', { name: 'Sales', exact: true }).textContent()).resolves.toContain(
        'R$99.90',
      );

      await page.getByRole('button', { name: 'Portal link' }).click();
      const url = (await page.locator('#portal-url').textContent())!.trim();
      expect(url).toMatch(/\/portal\?token=svc_cst_/);
      await pageChecked(page, 'customer-portal-link');

      // The customer opens it in a browser of their own.
      const customer = await newContext(browser, { locale: 'en-US' });
      const portal = await customer.newPage();
      await portal.goto(url.replace(api.config.publicBaseUrl, api.baseUrl));
      expect(portal.url()).toBe(`${api.baseUrl}/portal`);
      await expect(portal.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(
        'Subscriptions and purchases',
      );
      await expect(portal.getByText(email).first().isVisible()).resolves.toBe(true);
      await customer.close();
    } finally {
      await context.close();
    }
  });

  it('answers 404 for a subscription, sale or customer that is not the organization’s', async () => {
    const { context, page } = await signedIn();
    try {
      for (const name of ['subscriptions', 'sales', 'customers']) {
        const res = await page.goto(section(`${name}/${uuidv7()}`));
        expect(res!.status()).toBe(404);
        await expect(page.getByRole('alert').textContent()).resolves.toMatch(/not found/i);
      }
      await pageChecked(page, 'customer-not-found');
    } finally {
      await context.close();
    }
  });
});

describe('merchant dashboard: revoking a subscription', () => {
  it('revokes a subscription now after a confirmation; the API shows it ended', async () => {
    const { context, page } = await signedIn();
    try {
      await page.goto(section(`subscriptions/${sub.id}`));
      await page.getByRole('link', { name: 'Revoke now' }).click();
      await page.waitForURL(/\/revoke$/);
      await pageChecked(page, 'subscription-revoke-confirm');
      await page.getByRole('button', { name: 'Revoke now' }).click();
      await page.waitForURL(/done=revoke$/);
      expect(await apiGet(`/api/v1/subscriptions/${sub.id}`)).toMatchObject({ status: 'canceled' });
      await expect(page.getByRole('link', { name: 'Revoke now' }).count()).resolves.toBe(0);
    } finally {
      await context.close();
    }
  });
});
