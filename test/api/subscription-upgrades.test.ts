import { describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import { uuidv7 } from 'uuidv7';
import { useApi, type TestApi } from '../helpers/api.ts';
import { makeOat, makeOrganization } from '../helpers/fixtures.ts';
import { paidSubscription, payByCard, advancePastPeriodEnd } from '../helpers/subscriptions.ts';
import { subscriptionStateQuery, subscriptionWorkflowId } from '../../contracts/subscription.ts';
import { waitFor } from '../helpers/processes.ts';

/**
 * Plan upgrades through a checkout (`subscription_id`), against the real worker: the buyer pays the
 * new price's first period; the same subscription moves to it, anchored at the payment, with the
 * rest of the month it leaves as a credit that its next renewal takes.
 */
let api: TestApi;
let temporal: Client;
useApi((started) => ({ api, temporal } = started));

const sql = <T = Record<string, any>>(q: string, params: unknown[] = []) =>
  api.orm.em.getConnection().execute<T[]>(q, params);

/** A paid monthly R$ 49,90 subscription (manual renewals, card saved) and an OAT of its organization. */
async function subscription(recurrenceBilling: 'manual' | 'gateway' = 'manual') {
  const org = await makeOrganization(api.orm);
  const { row } = await paidSubscription(api, temporal, { organizationId: org.id, recurrenceBilling });
  return { row, organizationId: org.id, oat: await makeOat(api.orm, org.id) };
}

/** A product of the organization with one price. */
async function product(organizationId: string, unitAmount: number, interval: 'month' | 'year' | null) {
  const [productId, priceId] = [uuidv7(), uuidv7()];
  await sql(
    `insert into products (id, organization_id, name, metadata, is_archived, is_tax_applicable, created_at)
     values (?, ?, 'Premium', '{}', false, true, now())`,
    [productId, organizationId],
  );
  await sql(
    `insert into prices (id, product_id, organization_id, type, currency, unit_amount, interval, interval_count, active,
       metadata, created_at)
     values (?, ?, ?, ?, 'brl', ?, ?, ?, true, '{}', now())`,
    [
      priceId,
      productId,
      organizationId,
      interval ? 'recurring' : 'one_time',
      unitAmount,
      interval,
      interval ? 1 : null,
    ],
  );
  await sql('update products set default_price_id = ? where id = ?', [priceId, productId]);
  return { productId, priceId };
}

const createCheckout = (oat: string, body: Record<string, unknown>) =>
  api.call('POST', '/api/v1/checkouts/', { body, token: oat });

async function workflowState(subscriptionId: string, until: (s: any) => boolean) {
  const handle = temporal.workflow.getHandle(subscriptionWorkflowId(subscriptionId));
  let last: any;
  return waitFor(
    async () => {
      last = await handle.query(subscriptionStateQuery);
      return until(last) && last;
    },
    {
      what: `subscription ${subscriptionId}'s workflow state`,
      timeoutMs: 20_000,
      intervalMs: 100,
      describe: () => JSON.stringify(last),
    },
  );
}

describe('a checkout with subscription_id (plan upgrade)', () => {
  it('paid, moves the same subscription to a yearly price from the payment, crediting the month it leaves', async () => {
    const s = await subscription();
    const yearly = await product(s.organizationId, 49_900, 'year');
    const created = await createCheckout(s.oat, { product_id: yearly.productId, subscription_id: s.row.id });
    expect(created.status).toBe(201);
    // The customer already has a live subscription (one per customer is the default): an upgrade is no second one.
    expect(created.body).toMatchObject({ subscription_id: s.row.id, customer_id: s.row.customer_id, amount: 49_900 });

    const paid = await payByCard(api, created.body.client_secret, '5555555555554444');
    expect(paid.status).toBe(200);
    expect(paid.body.status).toBe('succeeded');

    const rows = await sql('select * from subscriptions where organization_id = ?', [s.organizationId]);
    expect(rows).toHaveLength(1);
    const row = rows[0]!;
    expect(row).toMatchObject({
      id: s.row.id,
      price_id: yearly.priceId,
      product_id: yearly.productId,
      status: 'active',
      period_number: 2,
      anchor_period: 2,
      cancel_at_period_end: false,
    });
    // A year from the payment, to the millisecond (calendar arithmetic, not a copy of the rule).
    const start = new Date(row.current_period_start);
    const end = new Date(start);
    end.setUTCFullYear(end.getUTCFullYear() + 1);
    expect(new Date(row.current_period_end).toISOString()).toBe(end.toISOString());
    expect(new Date(row.billing_anchor).toISOString()).toBe(start.toISOString());
    // Seconds of a 30-day month were used: R$ 49,90 × (1 − seconds / month) rounds to all of it.
    expect(Number(row.balance_amount)).toBe(-4_990);
    // The new card is the one renewals charge.
    expect(row.card_token_id).not.toBe(s.row.card_token_id);

    const charges = await sql(
      'select period_number, try_number, amount::int as amount, outcome from subscription_charges where subscription_id = ?',
      [s.row.id],
    );
    expect(charges).toEqual([{ period_number: 2, try_number: 1, amount: 49_900, outcome: 'succeeded' }]);
    const ledger = await sql(
      `select l.kind, l.amount::int as amount from gateway_sim.ledger l join gateway_sim.transactions t
         on t.id = l.transaction_id where t.reference in (?, ?) order by l.id`,
      [s.row.checkout_id, created.body.id],
    );
    expect(ledger).toEqual([
      { kind: 'capture', amount: 4_990 },
      { kind: 'capture', amount: 49_900 },
    ]);
    const [updated] = await sql(
      // The upgrade's event is written last, often in the same millisecond as the period's: the id (a
      // uuidv7, monotonic) orders them.
      `select data from events where organization_id = ? and type = 'subscription.updated'
       order by created_at desc, id desc limit 1`,
      [s.organizationId],
    );
    expect(updated!.data).toMatchObject({
      price_id: yearly.priceId,
      previous_price_id: s.row.price_id,
      upgrade: { checkout_id: created.body.id, credit: -4_990 },
    });

    // Its workflow reads the move and waits for the new period's end.
    const state = await workflowState(s.row.id, (x) => x.periodNumber === 2);
    expect(state).toMatchObject({ periodNumber: 2, periodEnd: end.toISOString(), status: 'active' });
  });

  it("the next renewal, a year on, charges the yearly price less the month's credit", async () => {
    const s = await subscription();
    const yearly = await product(s.organizationId, 49_900, 'year');
    const created = await createCheckout(s.oat, { product_id: yearly.productId, subscription_id: s.row.id });
    expect((await payByCard(api, created.body.client_secret)).status).toBe(200);
    await workflowState(s.row.id, (x) => x.periodNumber === 2);
    const [row] = await sql('select current_period_end from subscriptions where id = ?', [s.row.id]);
    await advancePastPeriodEnd(api, { id: s.row.id, oat: s.oat }, row!.current_period_end);
    await workflowState(s.row.id, (x) => x.periodNumber === 3);
    const charges = await sql(
      `select period_number, amount::int as amount, outcome from subscription_charges where subscription_id = ?
       order by period_number`,
      [s.row.id],
    );
    expect(charges).toEqual([
      { period_number: 2, amount: 49_900, outcome: 'succeeded' },
      { period_number: 3, amount: 44_910, outcome: 'succeeded' },
    ]);
    const [after] = await sql(
      'select balance_amount::int as balance, current_period_end from subscriptions where id = ?',
      [s.row.id],
    );
    expect(after!.balance).toBe(0);
    const end = new Date(row!.current_period_end);
    end.setUTCFullYear(end.getUTCFullYear() + 1);
    expect(new Date(after!.current_period_end).toISOString()).toBe(end.toISOString());
  });

  it('revoked after the upgrade checkout opened: paying it is refused by the ended subscription and the capture given back', async () => {
    const s = await subscription();
    const yearly = await product(s.organizationId, 49_900, 'year');
    const created = await createCheckout(s.oat, { product_id: yearly.productId, subscription_id: s.row.id });
    expect(created.status).toBe(201);
    const revoked = await api.call('PATCH', `/api/v1/subscriptions/${s.row.id}`, {
      body: { revoke: true },
      token: s.oat,
    });
    expect(revoked.status).toBe(200);
    // Its workflow has ended: the checkout's word reaches no one, and nothing moves the subscription.
    await temporal.workflow.getHandle(subscriptionWorkflowId(s.row.id)).result();

    const paid = await payByCard(api, created.body.client_secret, '5555555555554444');
    expect(paid.status).toBe(422);
    expect(paid.body.decline_reason).toBe('recording_failed');
    const ledger = await sql(
      `select l.kind, l.amount::int as amount from gateway_sim.ledger l join gateway_sim.transactions t on t.id = l.transaction_id
       where t.reference = ? order by l.id`,
      [created.body.id],
    );
    expect(ledger).toEqual([
      { kind: 'capture', amount: 49_900 },
      { kind: 'refund', amount: 49_900 },
    ]);
    const [row] = await sql('select status, price_id, period_number from subscriptions where id = ?', [s.row.id]);
    expect(row).toEqual({ status: 'canceled', price_id: s.row.price_id, period_number: 1 });
    expect(await sql('select 1 from sales where checkout_id = ?', [created.body.id])).toEqual([]);
  });

  it('refuses what cannot upgrade the subscription with 422 upgrade_refused, and creates nothing', async () => {
    const s = await subscription();
    const once = await product(s.organizationId, 9_900, null);
    const monthly = await product(s.organizationId, 9_990, 'month');
    const refusals: [Record<string, unknown>, string][] = [
      [{ product_id: once.productId, subscription_id: s.row.id }, 'An upgrade sells a recurring price'],
      [
        { product_id: monthly.productId, subscription_id: s.row.id, trial_interval: 'day', trial_interval_count: 7 },
        'An upgrade starts a paid period: it takes no trial',
      ],
    ];
    const other = await makeOrganization(api.orm);
    const stranger = await sql(
      `insert into customers (id, organization_id, email, created_at, updated_at) values (?, ?, ?, now(), now()) returning id`,
      [uuidv7(), s.organizationId, `someone-${uuidv7()}@example.com`],
    );
    refusals.push([
      { product_id: monthly.productId, subscription_id: s.row.id, customer_id: stranger[0]!.id },
      "The customer is not the subscription's",
    ]);
    for (const [body, detail] of refusals) {
      const refused = await createCheckout(s.oat, body);
      expect(refused.status).toBe(422);
      expect(refused.body).toMatchObject({ code: 'upgrade_refused', detail });
    }
    const gatewayBilled = await subscription('gateway');
    const theirs = await product(gatewayBilled.organizationId, 9_990, 'month');
    const refused = await createCheckout(gatewayBilled.oat, {
      product_id: theirs.productId,
      subscription_id: gatewayBilled.row.id,
    });
    expect(refused.body).toMatchObject({
      code: 'upgrade_refused',
      detail: 'A gateway-billed subscription changes plan by a price change, not through a checkout',
    });
    // A Pix Automático one's mandate keeps its calendar: a price change, not an upgrade's new period.
    const pix = await subscription();
    await sql(`update subscriptions set recurrence_billing = 'pix_automatico', card_token_id = null where id = ?`, [
      pix.row.id,
    ]);
    const pixPrice = await product(pix.organizationId, 9_990, 'month');
    const pixRefused = await createCheckout(pix.oat, { product_id: pixPrice.productId, subscription_id: pix.row.id });
    expect(pixRefused.status).toBe(422);
    expect(pixRefused.body).toMatchObject({
      code: 'upgrade_refused',
      detail:
        'A Pix Automático subscription changes plan by a price change (its mandate charges the new price from the next period), not through a checkout',
    });
    // Ended: revoked first.
    expect(
      (await api.call('PATCH', `/api/v1/subscriptions/${s.row.id}`, { body: { revoke: true }, token: s.oat })).status,
    ).toBe(200);
    const ended = await createCheckout(s.oat, { product_id: monthly.productId, subscription_id: s.row.id });
    expect(ended.body).toMatchObject({ code: 'upgrade_refused', detail: 'The subscription has ended' });
    // Another organization's subscription is not found.
    const foreign = await createCheckout(await makeOat(api.orm, other.id), {
      product_id: (await product(other.id, 9_990, 'month')).productId,
      subscription_id: s.row.id,
    });
    expect(foreign.status).toBe(422);
    expect(foreign.body.code).toBe('subscription_not_found');
    const checkouts = await sql('select count(*)::int as n from checkouts where organization_id in (?, ?)', [
      s.organizationId,
      other.id,
    ]);
    expect(checkouts[0]!.n).toBe(1); // the subscription's own
  });
});
