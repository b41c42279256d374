import { beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import type { SimulatedGateway } from '@billing/simulated-gateway';
import type { TestApi } from '../helpers/api.ts';
import { simulatorQueueStack } from '../helpers/mercadopago-stack.ts';
import { makeCheckout, waitForCheckoutStatus } from '../helpers/checkouts.ts';
import { makeOat, makeOrganization } from '../helpers/fixtures.ts';
import { subscriptionWhen } from '../helpers/subscriptions.ts';
import { keptCardWorkflowId } from '../../contracts/kept-card.ts';

/**
 * A subscription's kept card at the simulator after the sale (issue 33 §3, decision 0079): the
 * issuer's card updater replaces it (the sandbox's `updateCard` and its signed `card.updated`
 * callback, handled by the kept-card workflow), and the next renewal charges the replacement; a
 * renewal on a card the issuer would review is refused at once, never left pending (binary mode).
 * The API and a worker of this file's own task queue, on the embedded simulator.
 */
const QUEUE = 'billing-test-simulator-kept-cards';
const stack = simulatorQueueStack(QUEUE);
let api: TestApi;
let temporal: Client;
let sim: SimulatedGateway;
beforeAll(() => {
  ({ api, temporal, sim } = stack);
});

const APPROVE = '4111111111111111';
const REVIEW_THEN_APPROVE = '4000000000001505';
const sql = (q: string, params: unknown[] = []): Promise<any[]> => api.orm.em.getConnection().execute(q, params);

/** A manual monthly subscription bought at the simulator with `number`, its first payment approved. */
async function subscribed(number: string) {
  const org = await makeOrganization(api.orm);
  const c = await makeCheckout(api.orm, temporal, {
    organizationId: org.id,
    recurring: 'month',
    recurrenceBilling: 'manual',
    amount: 4_990,
    taskQueue: QUEUE,
  });
  const card = { number, holder_name: 'Ana Souza', expiration_month: '12', expiration_year: '2031', cvv: '123' };
  const res = await api.call('POST', `/api/v1/checkouts/client/${c.clientSecret}/confirm-sdk`, {
    body: { payment_method: 'credit_card', card: { ...card, installments: 1 } },
  });
  expect(res.status).toBe(200);
  if (res.body.gateway_payment_data?.status === 'pending') {
    // Held for review at the checkout (the buyer present): approved when the review ends.
    await sim.endReview(res.body.gateway_payment_data.transaction_id);
    await sim.settleCallbacks();
  }
  await waitForCheckoutStatus(api.orm, c.id, 'succeeded');
  const [row] = await sql('select id, card_token_id, current_period_end from subscriptions where checkout_id = ?', [
    c.id,
  ]);
  const s = { id: row.id as string, oat: await makeOat(api.orm, org.id) };
  return { s, cardTokenId: row.card_token_id as string, periodEnd: new Date(row.current_period_end) };
}

/** The test clock moved past the period's end: the renewal runs. */
async function renew(s: { id: string; oat: string }, periodEnd: Date) {
  const to = new Date(periodEnd.getTime() + 3_600_000).toISOString();
  const moved = await api.call('POST', `/api/v1/subscriptions/${s.id}/test-clock/advance`, {
    body: { to },
    token: s.oat,
  });
  expect(moved.status).toBe(200);
}

/** The charges the simulator made to a kept card, newest last, as it keeps them. */
const chargesOf = (cardTokenId: string) =>
  sql('select status, decline_reason from gateway_sim.transactions where card_id = ? order by created_at', [
    cardTokenId,
  ]);

describe('the simulator: kept cards after the sale', () => {
  it('the card updater replaces the kept card: the subscription charges the new card from its next renewal', async () => {
    const { s, cardTokenId, periodEnd } = await subscribed(APPROVE);
    // The sandbox's control of the card updater, through the API.
    const res = await api.call('POST', `/api/v1/sandbox/cards/${cardTokenId}/update`, {
      body: { last4: '4242', expiration_month: '03', expiration_year: '2034' },
    });
    expect(res).toMatchObject({
      status: 200,
      body: { first4: '4111', last4: '4242', expiration_month: '03', expiration_year: '2034' },
    });
    const replacement = { id: res.body.id as string };
    await sim.settleCallbacks();
    const run = temporal.workflow.getHandle(keptCardWorkflowId(cardTokenId, replacement.id));
    expect(await run.result()).toEqual({ replacedOn: [s.id] });
    const [after] = await sql('select card_token_id from subscriptions where id = ?', [s.id]);
    expect(after.card_token_id).toBe(replacement.id);

    await renew(s, periodEnd);
    await subscriptionWhen(api, s, (b) => b.period_number === 2 && b.status === 'active');
    const [renewal] = await sql(
      `select t.gateway_transaction_id from sales s join transactions t on t.id = s.transaction_id
        where s.subscription_id = ? order by s.created_at desc limit 1`,
      [s.id],
    );
    expect((await sim.getTransaction(renewal.gateway_transaction_id))!).toMatchObject({
      status: 'succeeded',
      card: { id: replacement.id, last4: '4242', expirationMonth: '03', expirationYear: '2034' },
    });
    expect(await chargesOf(cardTokenId)).toHaveLength(1);
  });

  it('a renewal on a card the issuer would review is refused at once, never pending: the subscription goes to dunning', async () => {
    const { s, cardTokenId, periodEnd } = await subscribed(REVIEW_THEN_APPROVE);
    await renew(s, periodEnd);
    const body = await subscriptionWhen(api, s, (b) => b.status === 'past_due');
    expect(body.status).toBe('past_due');
    // The checkout's payment, approved after its review; then the renewal, refused at once.
    expect(await chargesOf(cardTokenId)).toEqual([
      { status: 'succeeded', decline_reason: null },
      { status: 'failed', decline_reason: 'fraud_suspected' },
    ]);
  });
});
