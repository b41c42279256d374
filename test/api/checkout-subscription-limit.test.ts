import { describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import { uuidv7 } from 'uuidv7';
import { useApi, type TestApi } from '../helpers/api.ts';
import { ledgerOf, waitForCheckoutStatus } from '../helpers/checkouts.ts';
import { makeTenant } from '../helpers/fixtures.ts';
import { paidSubscription, payByCard } from '../helpers/subscriptions.ts';

/**
 * subscription_settings.allow_multiple_subscriptions against the real worker: where it is false (or
 * missing), a customer with a live subscription cannot buy another recurring price, refused at the
 * checkout's creation when the customer is named, at confirmation when the buyer's email names it,
 * and at the sale when the payment came anyway; a renewal of the same subscription is always sold.
 */
let api: TestApi;
let temporal: Client;
// The API listens on a port of its own: the sandbox's callbacks (a pix paid) go there.
useApi((started) => ({ api, temporal } = started), { callbacksHere: true });

const sql = <T = Record<string, any>>(q: string, params: unknown[] = []) =>
  api.orm.em.getConnection().execute<T[]>(q, params);

/** A tenant whose customer pays a monthly subscription by card: the customer, its email and another plan. */
async function subscribed() {
  const t = await makeTenant(api.orm);
  const { checkoutId, row } = await paidSubscription(api, temporal, {
    organizationId: t.org.id,
    recurrenceBilling: 'manual',
  });
  const [customer] = await sql<{ email: string }>('select email from customers where id = ?', [row.customer_id]);
  return { t, checkoutId, customerId: row.customer_id as string, email: customer!.email, pro: await product(t, 9_990) };
}

async function product(t: Awaited<ReturnType<typeof makeTenant>>, amount: number, recurring = true) {
  const created = await api.call('POST', '/api/v1/products/', {
    token: t.oat,
    body: {
      organization_id: t.org.id,
      name: `Plan ${amount}`,
      prices: [
        recurring
          ? { type: 'recurring', currency: 'brl', unit_amount: amount, interval: 'month', interval_count: 1 }
          : { type: 'one_time', currency: 'brl', unit_amount: amount },
      ],
    },
  });
  expect(created.status).toBe(201);
  return created.body.id as string;
}

/** Renewals billed by us: a pix or card buyer alike gets a subscription without a gateway recurrence. */
const checkout = (t: { oat: string }, body: Record<string, unknown>) =>
  api.call('POST', '/api/v1/checkouts/', { token: t.oat, body: { recurrence_billing: 'manual', ...body } });
const setting = (orgId: string, value: boolean | null) =>
  sql(
    value === null
      ? `update organizations set subscription_settings = subscription_settings - 'allow_multiple_subscriptions' where id = ?`
      : `update organizations set subscription_settings = subscription_settings || jsonb_build_object('allow_multiple_subscriptions', ?::boolean) where id = ?`,
    value === null ? [orgId] : [value, orgId],
  );
const liveSubscriptions = async (customerId: string) =>
  (await sql(`select id from subscriptions where customer_id = ? and status <> 'canceled'`, [customerId])).length;
const SUBSCRIPTION_EXISTS = {
  code: 'subscription_exists',
  error: 'The customer already has a subscription',
  detail: 'The organization allows one live subscription per customer: change its plan instead',
};

describe('allow_multiple_subscriptions false', () => {
  it('refuses to create a recurring checkout for a customer named by id or email who has a live subscription', async () => {
    const s = await subscribed();
    for (const named of [{ customer_id: s.customerId }, { customer_email: s.email.toUpperCase() }]) {
      const res = await checkout(s.t, { product_id: s.pro, ...named });
      expect({ named, status: res.status, body: res.body }).toEqual({ named, status: 422, body: SUBSCRIPTION_EXISTS });
    }
    // A setting that was never written is false, as the organization's record shows it.
    await setting(s.t.org.id, null);
    expect((await checkout(s.t, { product_id: s.pro, customer_id: s.customerId })).status).toBe(422);
    const shown = await api.call('GET', `/api/v1/organizations/${s.t.org.id}`, { token: s.t.oat });
    expect(shown.body.subscription_settings.allow_multiple_subscriptions).toBe(false);
    // A one-time price, another customer, or a buyer not known yet are for confirmation to decide.
    const ebook = await product(s.t, 2_990, false);
    const oneTime = { product_id: ebook, customer_id: s.customerId, recurrence_billing: 'gateway' };
    expect((await checkout(s.t, oneTime)).status).toBe(201);
    expect((await checkout(s.t, { product_id: s.pro, customer_email: 'someone-else@example.com' })).status).toBe(201);
    expect((await checkout(s.t, { product_id: s.pro })).status).toBe(201);
    // Refused checkouts were not written: the customer's are the paid one and the one-time one.
    expect(await sql('select 1 from checkouts where customer_id = ?', [s.customerId])).toHaveLength(2);
  });

  it("refuses the confirmation of a buyer whose email is a subscribed customer's, charging nothing; the checkout stays open", async () => {
    const s = await subscribed();
    const open = await checkout(s.t, { product_id: s.pro });
    expect(open.status).toBe(201);
    const confirmed = await api.call('POST', `/api/v1/checkouts/client/${open.body.client_secret}/confirm-sdk`, {
      body: {
        payment_method: 'credit_card',
        customer_email: s.email.toUpperCase(),
        card: {
          number: '4111111111111111',
          holder_name: 'Ana Souza',
          expiration_month: '12',
          expiration_year: '2031',
          cvv: '123',
          installments: 1,
        },
      },
    });
    expect({ status: confirmed.status, body: confirmed.body }).toEqual({ status: 422, body: SUBSCRIPTION_EXISTS });
    expect(await ledgerOf(api.orm, open.body.id)).toEqual({ captures: 0, captured: 0, refunds: 0, refunded: 0 });
    expect(await sql('select 1 from gateway_sim.transactions where reference = ?', [open.body.id])).toEqual([]);
    const [row] = await sql('select status, customer_email from checkouts where id = ?', [open.body.id]);
    expect(row).toEqual({ status: 'open', customer_email: null });
    expect(await liveSubscriptions(s.customerId)).toBe(1);
  });

  it('gives back a payment that came after the customer subscribed another way (a pix paid late)', async () => {
    const t = await makeTenant(api.orm);
    const [basic, pro] = [await product(t, 4_990), await product(t, 9_990)];
    const email = `late-${uuidv7().slice(-8)}@example.com`;
    const pixCheckout = await checkout(t, { product_id: pro, customer_email: email });
    const pix = await api.call('POST', `/api/v1/checkouts/client/${pixCheckout.body.client_secret}/confirm-sdk`, {
      body: { payment_method: 'pix' },
    });
    expect(pix.status).toBe(200);
    // Meanwhile the same buyer subscribes by card.
    const card = await checkout(t, { product_id: basic, customer_email: email });
    expect((await payByCard(api, card.body.client_secret)).body.status).toBe('succeeded');

    const paid = await api.call(
      'POST',
      `/api/v1/sandbox/transactions/${pix.body.gateway_payment_data.transaction_id}/pay`,
    );
    expect(paid.status).toBe(200);
    const failed = await waitForCheckoutStatus(api.orm, pixCheckout.body.id, 'failed');
    expect(failed.decline_reason).toBe('recording_failed');
    expect(await ledgerOf(api.orm, pixCheckout.body.id)).toEqual({
      captures: 1,
      captured: 9_990,
      refunds: 1,
      refunded: 9_990,
    });
    const subscriptions = await sql('select product_id from subscriptions where organization_id = ?', [t.org.id]);
    expect(subscriptions).toEqual([{ product_id: basic }]);
  });

  it('still sells the renewal of the same subscription', async () => {
    const s = await subscribed();
    const renewal = await api.call('POST', `/api/v1/checkouts/${s.checkoutId}/manual-renewal-checkout`, {
      token: s.t.oat,
    });
    expect(renewal.status).toBe(201);
    const paid = await payByCard(api, renewal.body.client_secret);
    expect(paid.status).toBe(200);
    expect(paid.body.status).toBe('succeeded');
    const [row] = await sql('select period_number from subscriptions where customer_id = ?', [s.customerId]);
    expect(row!.period_number).toBe(2);
    expect(await liveSubscriptions(s.customerId)).toBe(1);
  });
});

describe('allow_multiple_subscriptions true', () => {
  it('sells a subscribed customer another recurring price, named at creation or by email at confirmation', async () => {
    const s = await subscribed();
    await setting(s.t.org.id, true);
    const named = await checkout(s.t, { product_id: s.pro, customer_id: s.customerId });
    expect(named.status).toBe(201);
    expect((await payByCard(api, named.body.client_secret)).body.status).toBe('succeeded');
    const anonymous = await checkout(s.t, { product_id: s.pro });
    const byEmail = await api.call('POST', `/api/v1/checkouts/client/${anonymous.body.client_secret}/confirm-sdk`, {
      body: { payment_method: 'pix', customer_email: s.email },
    });
    expect(byEmail.status).toBe(200);
    expect(await liveSubscriptions(s.customerId)).toBe(2);
  });
});
