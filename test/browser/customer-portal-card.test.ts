import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import type { Browser } from 'playwright-core';
import { useApi, type TestApi } from '../helpers/api.ts';
import { expectAccessibleAtBothSizes, launchBrowser, newContext, screenshot } from '../helpers/browser.ts';
import { fillCard } from '../helpers/checkout-page.ts';
import { makeTenant } from '../helpers/fixtures.ts';
import { waitFor } from '../helpers/processes.ts';
import { advancePastPeriodEnd, paidSubscription } from '../helpers/subscriptions.ts';

/**
 * The customer replaces the card its subscription renews on, in the portal, in Chromium: the
 * checkout's Secure Fields tokenize it in the browser, the subscription's workflow keeps it, and the
 * next renewal charges it at the simulator. Each page is screenshot and checked by axe-core.
 */
let api: TestApi;
let temporal: Client;
let browser: Browser;
useApi((started) => ({ api, temporal } = started));
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

const sql = <T = any>(text: string, params: unknown[] = []) => api.orm.em.getConnection().execute<T[]>(text, params);

/** A paid monthly subscription (card ending 1111), and its customer signed in to the portal. */
async function signedIn() {
  const t = await makeTenant(api.orm);
  const { row } = await paidSubscription(api, temporal, { organizationId: t.org.id, recurrenceBilling: 'manual' });
  const session = await api.call('POST', '/api/v1/customer-portal/sessions/', {
    token: t.oat,
    body: { customer_id: row.customer_id },
  });
  expect(session.status).toBe(201);
  const context = await newContext(browser);
  const page = await context.newPage();
  await page.goto((session.body.customer_portal_url as string).replace(api.config.publicBaseUrl, api.baseUrl));
  await page.goto(`${api.baseUrl}/portal/subscriptions/${row.id}`);
  return { t, row, id: row.id as string, context, page };
}

/** The last digits of the card the subscription's renewals charge, as the simulator keeps it. */
const keptLast4 = async (id: string) =>
  (
    await sql('select c.last4 from subscriptions s join gateway_sim.cards c on c.id = s.card_token_id where s.id = ?', [
      id,
    ])
  )[0]?.last4;

describe('customer portal: the card', () => {
  it('replaces the card in the browser, and the next renewal charges the new card', async () => {
    const s = await signedIn();
    expect(await keptLast4(s.id)).toBe('1111');
    await s.page.getByRole('link', { name: 'Trocar o cartão' }).click();
    await s.page.waitForURL(`${api.baseUrl}/portal/subscriptions/${s.id}/card`);
    await s.page.locator('#card_number_field iframe').waitFor();
    await screenshot(s.page, 'portal-card');
    await expectAccessibleAtBothSizes(s.page, 'portal-card');

    await fillCard(s.page, '5555 5555 5555 4444');
    const [posted] = await Promise.all([
      s.page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith(`/portal/subscriptions/${s.id}/card`)),
      s.page.getByRole('button', { name: 'Salvar o novo cartão' }).click(),
    ]);
    // Only the gateway's token leaves the browser: never the card's number or code.
    expect(posted.postData()).toMatch(/card_token=[^&]+/);
    expect(posted.postData()).not.toMatch(/5555|4444/);
    await s.page.waitForURL(`${api.baseUrl}/portal/subscriptions/${s.id}?done=card`);
    expect(await s.page.getByRole('status').textContent()).toContain('Cartão trocado');
    expect(await keptLast4(s.id)).toBe('4444');
    const [event] = await sql(
      `select actor from events where organization_id = ? and type = 'subscription.updated' order by created_at desc limit 1`,
      [s.t.org.id],
    );
    expect(event.actor).toEqual({ type: 'customer', id: s.row.customer_id });

    await advancePastPeriodEnd(api, { id: s.id, oat: s.t.oat }, s.row.current_period_end);
    const renewal = await waitFor(
      async () =>
        (
          await sql(
            `select g.amount::int as amount, c.last4 from subscription_charges sc
               join transactions t on t.id = sc.transaction_id
               join gateway_sim.transactions g on g.id = t.gateway_transaction_id
               join gateway_sim.cards c on c.id = g.card_id
             where sc.subscription_id = ? and sc.period_number = 2`,
            [s.id],
          )
        )[0],
      { what: "period 2's renewal charge", timeoutMs: 30_000 },
    );
    expect(renewal).toEqual({ amount: 4_990, last4: '4444' });
    await s.context.close();
  });

  it('says a card the gateway refuses in the page, and keeps the old card', async () => {
    const s = await signedIn();
    await s.page.goto(`${api.baseUrl}/portal/subscriptions/${s.id}/card`);
    const csrf = await s.page.locator('input[name="csrf"]').inputValue();
    // A token the gateway never minted (a tampered post): refused by the workflow's activity.
    const refused = await s.page.request.post(`${api.baseUrl}/portal/subscriptions/${s.id}/card`, {
      form: { csrf, card_token: 'tok_unknown', payment_method: 'credit_card' },
      maxRedirects: 0,
    });
    expect(refused.status()).toBe(422);
    expect(await refused.text()).toContain('O cartão não foi aceito. Confira os dados ou use outro cartão.');
    // A post without a token (no JavaScript ran): the page says what to do.
    const empty = await s.page.request.post(`${api.baseUrl}/portal/subscriptions/${s.id}/card`, {
      form: { csrf, card_token: '' },
      maxRedirects: 0,
    });
    expect(empty.status()).toBe(422);
    expect(await empty.text()).toContain('Para trocar o cartão, ative o JavaScript');
    expect(await keptLast4(s.id)).toBe('1111');
    await s.context.close();
  });
});
