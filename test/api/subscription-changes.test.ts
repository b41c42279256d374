import { describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import { uuidv7 } from 'uuidv7';
import { SUBSCRIPTION_ID } from '../../domain/search-attributes.ts';
import { batchTaskQueue } from '../../domain/task-queues.ts';
import { useApi, type TestApi } from '../helpers/api.ts';
import { TEST_DATABASE_URL, TEST_TASK_QUEUE } from '../helpers/env.ts';
import { heldAtRenewalGatesColumns, renewalGates } from '../helpers/renewal-gates.ts';
import { makeOat, makeOrganization } from '../helpers/fixtures.ts';
import { paidSubscription as paidSubscriptionOf, payByCard } from '../helpers/subscriptions.ts';
import { subscriptionStateQuery, subscriptionWorkflowId } from '../../contracts/subscription.ts';
import { until, waitFor } from '../helpers/processes.ts';

/**
 * PATCH /api/v1/subscriptions/<id> over HTTPS against the real worker: a card checkout of a manually
 * billed monthly price starts the subscription's own workflow, and the merchant's changes go through
 * it (cancel at period end, undo, revoke), each answered with the subscription as written.
 */
let api: TestApi;
let temporal: Client;
useApi((started) => ({ api, temporal } = started));

const sql = <T = Record<string, any>>(q: string, params: unknown[] = []) =>
  api.orm.em.getConnection().execute<T[]>(q, params);

/** A paid monthly subscription of a new organization, and an OAT of that organization. */
async function paidSubscription() {
  const org = await makeOrganization(api.orm);
  const { checkoutId, row } = await paidSubscriptionOf(api, temporal, {
    organizationId: org.id,
    recurrenceBilling: 'manual',
  });
  return {
    checkoutId,
    id: row.id as string,
    priceId: row.price_id as string,
    cardTokenId: row.card_token_id,
    organizationId: org.id,
    oat: await makeOat(api.orm, org.id),
  };
}

const advance = (s: { id: string; oat: string }, body: unknown) =>
  api.call('POST', `/api/v1/subscriptions/${s.id}/test-clock/advance`, { body, token: s.oat });
const heldAt = async (organizationId: string) =>
  (await sql<{ charges: number }>(`select ${heldAtRenewalGatesColumns(organizationId)}`))[0]!;

const patch = (s: { id: string; oat: string }, body: unknown) =>
  api.call('PATCH', `/api/v1/subscriptions/${s.id}`, { body, token: s.oat });
const events = async (organizationId: string) =>
  (
    await sql<{ type: string }>(
      `select type from events where organization_id = ? and type like 'subscription.%' order by created_at, id`,
      [organizationId],
    )
  ).map((e) => e.type);

describe('PATCH /api/v1/subscriptions/<id>', () => {
  it('the paid checkout starts the subscription workflow, which keeps the card for renewals', async () => {
    const s = await paidSubscription();
    expect(s.cardTokenId).toMatch(/^card_/);
    const handle = temporal.workflow.getHandle(subscriptionWorkflowId(s.id));
    const description = await handle.describe();
    expect(description.status.name).toBe('RUNNING');
    // Renewals run on the batch task queue, apart from the buyers' checkouts.
    expect(description.taskQueue).toBe(batchTaskQueue(TEST_TASK_QUEUE));
    // The checkout's run that started it (behind the subscription-workflow patch).
    expect(description.typedSearchAttributes.get(SUBSCRIPTION_ID)).toBe(s.id);
    // Its first step reads the subscription: the state is complete once that is done.
    const state = await waitFor(
      async () => {
        const s = await handle.query(subscriptionStateQuery);
        return s.periodNumber !== undefined && s;
      },
      { what: 'the workflow to read the subscription', timeoutMs: 10_000 },
    );
    expect(state).toMatchObject({
      status: 'active',
      periodNumber: 1,
      billing: 'manual',
      hasCard: true,
    });
  });

  it('cancels at period end and undoes it, answering the subscription as written, with its events', async () => {
    const s = await paidSubscription();
    const canceled = await patch(s, { cancel_at_period_end: true });
    expect(canceled.status).toBe(200);
    expect(canceled.body).toMatchObject({
      id: s.id,
      status: 'active',
      cancel_at_period_end: true,
      ended_at: null,
      amount: 4_990,
      currency: 'BRL',
      workflow_id: subscriptionWorkflowId(s.id),
    });
    expect(canceled.body.workflow_url).toContain(encodeURIComponent(subscriptionWorkflowId(s.id)));
    const [row] = await sql('select cancel_at_period_end from subscriptions where id = ?', [s.id]);
    expect(row!.cancel_at_period_end).toBe(true);

    const undone = await patch(s, { cancel_at_period_end: false });
    expect(undone.status).toBe(200);
    expect(undone.body.cancel_at_period_end).toBe(false);
    expect(await events(s.organizationId)).toEqual([
      'subscription.created',
      'subscription.active',
      'subscription.updated',
      'subscription.uncanceled',
    ]);
  });

  it('revokes now: canceled with its end, the workflow finished, and later changes are 409', async () => {
    const s = await paidSubscription();
    const revoked = await patch(s, { revoke: true });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({
      status: 'canceled',
      ended_at: expect.any(String),
      canceled_at: expect.any(String),
    });
    expect(await temporal.workflow.getHandle(subscriptionWorkflowId(s.id)).result()).toBe('canceled');
    const again = await patch(s, { cancel_at_period_end: true });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'conflict', error: 'The subscription has ended' });
    expect((await events(s.organizationId)).at(-1)).toBe('subscription.revoked');
  });

  it('refuses a body that asks for nothing, for two things, or for something unknown (400), and changes nothing', async () => {
    const s = await paidSubscription();
    for (const body of [{}, { revoke: true, cancel_at_period_end: true }, { revoke: false }, { pause: true }]) {
      const res = await patch(s, body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_error');
    }
    const [row] = await sql('select status, cancel_at_period_end from subscriptions where id = ?', [s.id]);
    expect(row).toEqual({ status: 'active', cancel_at_period_end: false });
  });

  it("another organization's subscription is a 404, and a read-only credential is refused", async () => {
    const s = await paidSubscription();
    const other = await makeOat(api.orm, (await makeOrganization(api.orm)).id);
    const res = await api.call('PATCH', `/api/v1/subscriptions/${s.id}`, { body: { revoke: true }, token: other });
    expect(res.status).toBe(404);
    const readOnly = await makeOat(api.orm, s.organizationId, ['subscriptions:read']);
    const refused = await api.call('PATCH', `/api/v1/subscriptions/${s.id}`, {
      body: { revoke: true },
      token: readOnly,
    });
    expect(refused.status).toBe(403);
    const [row] = await sql('select status from subscriptions where id = ?', [s.id]);
    expect(row!.status).toBe('active');
  });
});

describe('PATCH /api/v1/subscriptions/<id> with a price_id (plan change)', () => {
  /** Another recurring price of the subscription's product. */
  async function price(subscriptionId: string, unitAmount: number, interval = 'month') {
    const id = uuidv7();
    await sql(
      `insert into prices (id, product_id, organization_id, type, currency, unit_amount, tax_behavior, interval,
         interval_count, created_at)
       select ?, product_id, organization_id, 'recurring', 'brl', ?, 'unspecified', ?, 1, now()
       from subscriptions where id = ?`,
      [id, unitAmount, interval, subscriptionId],
    );
    return id;
  }

  it('an upgrade right after the checkout charges the whole difference now and moves the subscription', async () => {
    const s = await paidSubscription();
    const premium = await price(s.id, 9_990);
    const changed = await patch(s, { price_id: premium });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ id: s.id, price_id: premium, amount: 9_990, status: 'active' });
    // R$ 49,90 → R$ 99,90 with (all but seconds of) the month left: R$ 50,00, to the cent.
    const sales = await sql<{ amount: number; price_id: string }>(
      'select amount::int as amount, price_id from sales where subscription_id = ? order by created_at',
      [s.id],
    );
    expect(sales.map((x) => x.amount)).toEqual([4_990, 5_000]);
    expect(sales[1]!.price_id).toBe(premium);
    expect((await events(s.organizationId)).at(-1)).toBe('subscription.updated');
  });

  it("a plan change that comes while the renewal's charge is at the gateway waits for the renewal's record, then prorates the new period", async () => {
    const s = await paidSubscription();
    const premium = await price(s.id, 9_990);
    const gates = await renewalGates(TEST_DATABASE_URL, s.organizationId, { recordingDelaySeconds: 0 });
    let changed;
    try {
      await gates.charges.close();
      const to = new Date(Date.now() + 32 * 86_400_000).toISOString();
      expect((await advance(s, { to })).status).toBe(200);
      await until(async () => (await heldAt(s.organizationId)).charges === 1);
      const changing = patch(s, { price_id: premium });
      // The workflow took the Update while the renewal's charge is held, and has not run its step.
      const handle = temporal.workflow.getHandle(subscriptionWorkflowId(s.id));
      const history = async () => (await handle.fetchHistory()).events ?? [];
      await until(async () => (await history()).some((e) => e.workflowExecutionUpdateAcceptedEventAttributes));
      const scheduled = (await history()).map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name);
      expect(scheduled).not.toContain('changePrice');
      expect(await sql('select price_id from subscriptions where id = ?', [s.id])).toEqual([{ price_id: s.priceId }]);
      await gates.charges.open();
      changed = await changing;
    } finally {
      await gates.remove();
    }
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ price_id: premium, period_number: 2, amount: 9_990 });
    // The renewal at the old price, then the change prorated against the period it entered.
    const sales = await sql<{ amount: number; price_id: string }>(
      'select amount::int as amount, price_id from sales where subscription_id = ? order by created_at',
      [s.id],
    );
    expect(sales.slice(0, 2)).toEqual([
      { amount: 4_990, price_id: s.priceId },
      { amount: 4_990, price_id: s.priceId },
    ]);
    expect(sales).toHaveLength(3);
    expect(sales[2]!.price_id).toBe(premium);
    // The subscription's clock stood at period 2's start (the clock walks to each due time in turn):
    // R$ 49,90 → R$ 99,90 for the whole month, R$ 50,00.
    expect(sales[2]!.amount).toBe(5_000);
  });

  it('a price it cannot move to is a 422 and changes nothing; a malformed one a 400', async () => {
    const s = await paidSubscription();
    const yearly = await price(s.id, 49_900, 'year');
    const refused = await patch(s, { price_id: yearly });
    expect(refused.status).toBe(422);
    expect(refused.body).toEqual({
      code: 'plan_change_refused',
      error: 'The new price bills another interval',
    });
    const unknown = await patch(s, { price_id: uuidv7() });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error).toBe('Price not found');
    expect((await patch(s, { price_id: 'premium' })).status).toBe(400);
    // A monthly price of a product the merchant archived (withdrawn from sale): refused, as in the portal.
    const withdrawn = uuidv7();
    await sql(
      `insert into products (id, organization_id, name, is_archived, created_at) values (?, ?, 'Old plan', true, now())`,
      [withdrawn, s.organizationId],
    );
    const oldPlan = uuidv7();
    await sql(
      `insert into prices (id, product_id, organization_id, type, currency, unit_amount, tax_behavior, interval,
         interval_count, created_at)
       values (?, ?, ?, 'recurring', 'brl', 2990, 'unspecified', 'month', 1, now())`,
      [oldPlan, withdrawn, s.organizationId],
    );
    const archived = await patch(s, { price_id: oldPlan });
    expect(archived.status).toBe(422);
    expect(archived.body).toEqual({ code: 'plan_change_refused', error: "The new price's product is archived" });
    const [row] = await sql('select price_id, price_changes from subscriptions where id = ?', [s.id]);
    expect(row).toMatchObject({ price_changes: 0 });
    expect(row!.price_id).not.toBe(yearly);
  });
});

describe('POST /api/v1/checkouts/<id>/manual-renewal-checkout', () => {
  const renewal = (s: { checkoutId: string; oat: string }) =>
    api.call('POST', `/api/v1/checkouts/${s.checkoutId}/manual-renewal-checkout`, { token: s.oat });

  it('hands out one payable checkout per period; paying it moves the same subscription on, and its workflow with it', async () => {
    const s = await paidSubscription();
    const first = await renewal(s);
    expect(first.status).toBe(201);
    const again = await renewal(s);
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);

    const paid = await payByCard(api, first.body.client_secret);
    expect(paid.status).toBe(200);
    expect(paid.body.status).toBe('succeeded');
    const subscriptions = await sql('select id, period_number, status from subscriptions where organization_id = ?', [
      s.organizationId,
    ]);
    expect(subscriptions).toEqual([{ id: s.id, period_number: 2, status: 'active' }]);
    const charges = await sql(
      'select period_number, try_number, amount::int as amount, outcome from subscription_charges where subscription_id = ?',
      [s.id],
    );
    expect(charges).toEqual([{ period_number: 2, try_number: 1, amount: 4_990, outcome: 'succeeded' }]);
    const sales = await sql('select subscription_id from sales where organization_id = ?', [s.organizationId]);
    expect(sales).toEqual([{ subscription_id: s.id }, { subscription_id: s.id }]);
    // The signal reaches the subscription's workflow, which reads the paid period.
    const handle = temporal.workflow.getHandle(subscriptionWorkflowId(s.id));
    await until(
      async () => (await handle.query(subscriptionStateQuery)).periodNumber === 2,
      10_000,
      'the workflow to read the paid period',
    );

    const next = await renewal(s);
    expect(next.status).toBe(201);
    expect(next.body.id).not.toBe(first.body.id);
  });

  it('a renewal checkout whose period was paid meanwhile gives its capture back: never two payments for a period', async () => {
    const s = await paidSubscription();
    const open = await renewal(s);
    expect(open.status).toBe(201);
    // The saved card paid period 2 first.
    await sql('update subscriptions set period_number = 2 where id = ?', [s.id]);
    const paid = await payByCard(api, open.body.client_secret);
    expect(paid.status).toBe(422);
    expect(paid.body.decline_reason).toBe('recording_failed');
    const ledger = await sql(
      `select l.kind, l.amount::int as amount from gateway_sim.ledger l join gateway_sim.transactions t on t.id = l.transaction_id
       where t.reference = ? order by l.id`,
      [open.body.id],
    );
    expect(ledger).toEqual([
      { kind: 'capture', amount: 4_990 },
      { kind: 'refund', amount: 4_990 },
    ]);
    expect(await sql('select 1 from subscription_charges where subscription_id = ?', [s.id])).toEqual([]);
  });

  it("takes the subscription's credit off the renewal checkout's amount; its sale spends exactly that", async () => {
    const s = await paidSubscription();
    // A plan change left R$ 10,00 of credit.
    await sql('update subscriptions set balance_amount = -1000 where id = ?', [s.id]);
    const open = await renewal(s);
    expect(open.status).toBe(201);
    expect(open.body).toMatchObject({ subtotal_amount: 4_990, amount: 3_990 });
    // Another change meanwhile adds R$ 5,00 of credit: the sale spends only what the checkout took.
    await sql('update subscriptions set balance_amount = balance_amount - 500 where id = ?', [s.id]);
    const paid = await payByCard(api, open.body.client_secret);
    expect(paid.status).toBe(200);
    const [row] = await sql('select period_number, balance_amount::int as balance from subscriptions where id = ?', [
      s.id,
    ]);
    expect(row).toEqual({ period_number: 2, balance: -500 });
    const charges = await sql('select amount::int as amount from subscription_charges where subscription_id = ?', [
      s.id,
    ]);
    expect(charges).toEqual([{ amount: 3_990 }]);
  });

  it("the saved card's renewal holds no lock on the subscription while the gateway answers; a renewal checkout paid meanwhile gives its capture back", async () => {
    const s = await paidSubscription();
    const open = await renewal(s);
    expect(open.status).toBe(201);
    const gates = await renewalGates(TEST_DATABASE_URL, s.organizationId, { recordingDelaySeconds: 0 });
    try {
      await gates.charges.close();
      // The sandbox clock past the period's end: the workflow charges the saved card, whose answer the gate holds.
      const to = new Date(Date.now() + 32 * 86_400_000).toISOString();
      expect((await advance(s, { to })).status).toBe(200);
      await until(async () => (await heldAt(s.organizationId)).charges === 1);

      // Another statement on the same subscription does not wait for the gateway (no row lock, no open transaction).
      const row = await sql<{ id: string }>(
        `with locked as (select id from subscriptions where id = ? for update nowait) select id from locked`,
        [s.id],
      );
      expect(row).toEqual([{ id: s.id }]);

      // The buyer pays the renewal checkout meanwhile: the subscription's workflow records it after the renewal.
      const paying = payByCard(api, open.body.client_secret);
      await gates.charges.open();
      const paid = await paying;
      expect(paid.status).toBe(422);
      expect(paid.body.decline_reason).toBe('recording_failed');
    } finally {
      await gates.remove();
    }
    const ledger = await sql(
      `select t.reference = ? as checkout, l.kind, l.amount::int as amount from gateway_sim.ledger l
       join gateway_sim.transactions t on t.id = l.transaction_id where t.reference in (?, ?) order by l.id`,
      [open.body.id, open.body.id, s.id],
    );
    expect(ledger).toEqual([
      { checkout: false, kind: 'capture', amount: 4_990 },
      { checkout: true, kind: 'capture', amount: 4_990 },
      { checkout: true, kind: 'refund', amount: 4_990 },
    ]);
    const [row] = await sql('select period_number, status from subscriptions where id = ?', [s.id]);
    expect(row).toEqual({ period_number: 2, status: 'active' });
    const charges = await sql(
      `select c.period_number, c.try_number, c.outcome, c.checkout_id, t.gateway_transaction_id is not null as has_transaction
       from subscription_charges c left join transactions t on t.id = c.transaction_id where c.subscription_id = ?`,
      [s.id],
    );
    expect(charges).toEqual([
      { period_number: 2, try_number: 1, outcome: 'succeeded', checkout_id: null, has_transaction: true },
    ]);
    const renewalSales = await sql('select amount::int as amount, checkout_id from sales where subscription_id = ?', [
      s.id,
    ]);
    // The first checkout's sale and the card's renewal: none of the refused renewal checkout.
    expect(renewalSales).toEqual([
      { amount: 4_990, checkout_id: s.checkoutId },
      { amount: 4_990, checkout_id: null },
    ]);
  });
});

describe('PATCH /api/v1/subscriptions/<id> with metadata', () => {
  const metadataOf = async (id: string) =>
    (await sql<{ metadata: unknown }>('select metadata from subscriptions where id = ?', [id]))[0]!.metadata;

  it("replaces the metadata through the subscription's workflow, with subscription.updated; the same again writes nothing", async () => {
    const s = await paidSubscription();
    expect(await metadataOf(s.id)).toEqual({});
    const set = await patch(s, { metadata: { plan: 'gold', seats: 3 } });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ id: s.id, status: 'active', metadata: { plan: 'gold', seats: 3 } });
    const replaced = await patch(s, { metadata: { seats: 4 } });
    expect(replaced.body.metadata).toEqual({ seats: 4 });
    expect(await metadataOf(s.id)).toEqual({ seats: 4 });
    const read = await api.call('GET', `/api/v1/subscriptions/${s.id}`, { token: s.oat });
    expect(read.body.metadata).toEqual({ seats: 4 });
    const listed = await api.call('GET', '/api/v1/subscriptions/', { token: s.oat });
    expect(listed.body.items[0].metadata).toEqual({ seats: 4 });
    expect((await patch(s, { metadata: { seats: 4 } })).status).toBe(200);
    expect((await patch(s, { metadata: {} })).body.metadata).toEqual({});

    const updates = await sql<{ metadata: unknown }>(
      `select data->'metadata' as metadata from events where organization_id = ? and type = 'subscription.updated'
       order by created_at, id`,
      [s.organizationId],
    );
    expect(updates.map((e) => e.metadata)).toEqual([{ plan: 'gold', seats: 3 }, { seats: 4 }, {}]);
    // Written by the workflow's Update, not by the API.
    const history = await temporal.workflow.getHandle(subscriptionWorkflowId(s.id)).fetchHistory();
    const accepted = history.events!.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes);
    expect(accepted.map((e) => e.workflowExecutionUpdateAcceptedEventAttributes!.acceptedRequest!.input!.name)).toEqual(
      ['changeMetadata', 'changeMetadata', 'changeMetadata', 'changeMetadata'],
    );
  });

  it('refuses metadata that is not a key/value object, or comes with another change (400); an ended subscription is 409', async () => {
    const s = await paidSubscription();
    for (const body of [
      { metadata: 'gold' },
      { metadata: ['gold'] },
      { metadata: null },
      { metadata: { ['k'.repeat(101)]: 1 } },
      { metadata: {}, revoke: true },
    ]) {
      const res = await patch(s, body);
      expect({ body, status: res.status }).toEqual({ body, status: 400 });
    }
    expect((await patch(s, { revoke: true })).status).toBe(200);
    const late = await patch(s, { metadata: { plan: 'gold' } });
    expect(late.status).toBe(409);
    expect(await metadataOf(s.id)).toEqual({});
  });
});
