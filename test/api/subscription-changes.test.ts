import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import { SUBSCRIPTION_ID } from '../../domain/search-attributes.ts';
import type { SimulatedGateway } from '../../gateway/simulator.ts';
import { subscriptionStateQuery, subscriptionWorkflowId } from '../../workflows/subscription.ts';
import { createTemporalClient } from '../../worker/temporal-client.ts';
import { startApi, type TestApi } from '../helpers/api.ts';
import { makeCheckout, recordHistory } from '../helpers/checkouts.ts';
import { makeOat, makeOrganization } from '../helpers/fixtures.ts';

/**
 * PATCH /api/v1/subscriptions/<id> over HTTPS against the real worker: a card checkout of a manually
 * billed monthly price starts the subscription's own workflow, and the merchant's changes go through
 * it (cancel at period end, undo, revoke), each answered with the subscription as written.
 */
let api: TestApi;
let temporal: Client;
beforeAll(async () => {
  api = await startApi();
  temporal = createTemporalClient(api.config);
});
afterAll(async () => {
  await (api.gateway as SimulatedGateway).settleCallbacks();
  await temporal.connection.close();
  await api.close();
});

const sql = <T = Record<string, any>>(q: string, params: unknown[] = []) =>
  api.orm.em.getConnection().execute<T[]>(q, params);

const payByCard = (clientSecret: string) =>
  api.call('POST', `/api/v1/checkouts/client/${clientSecret}/confirm-sdk`, {
    body: {
      payment_method: 'credit_card',
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

/** A paid monthly subscription of a new organization, and an OAT of that organization. */
async function paidSubscription() {
  const org = await makeOrganization(api.orm);
  const c = await makeCheckout(api.orm, temporal, {
    organizationId: org.id,
    recurring: 'month',
    recurrenceBilling: 'manual',
    amount: 4_990,
  });
  const paid = await payByCard(c.clientSecret);
  expect(paid.status).toBe(200);
  const [sub] = await sql('select id, card_token_id from subscriptions where checkout_id = ?', [c.id]);
  return {
    checkoutId: c.id,
    id: sub!.id as string,
    cardTokenId: sub!.card_token_id,
    organizationId: org.id,
    oat: await makeOat(api.orm, org.id),
  };
}

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
    // The checkout's run that started it (behind the subscription-workflow patch).
    await recordHistory(temporal, 'card-manual-subscription', s.checkoutId);
    expect(description.typedSearchAttributes.get(SUBSCRIPTION_ID)).toBe(s.id);
    expect(await handle.query(subscriptionStateQuery)).toMatchObject({
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

    const paid = await payByCard(first.body.client_secret);
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
    for (let i = 0; i < 100 && (await handle.query(subscriptionStateQuery)).periodNumber !== 2; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect((await handle.query(subscriptionStateQuery)).periodNumber).toBe(2);
    await recordHistory(temporal, 'card-renewal-checkout', first.body.id);

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
    const paid = await payByCard(open.body.client_secret);
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
});
