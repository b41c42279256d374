import { describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import { startApi, useApi, type TestApi } from '../helpers/api.ts';
import { makeOat, makeOrganization } from '../helpers/fixtures.ts';
import { paidSubscription, subscriptionWhen } from '../helpers/subscriptions.ts';

/**
 * POST /api/v1/subscriptions/<id>/test-clock/advance against the real worker: a month ahead, the
 * renewal is charged at once and shows on the subscription; only forward; never in a live deployment.
 */
let api: TestApi;
let temporal: Client;
useApi((started) => ({ api, temporal } = started));

async function subscription(cardNumber?: string) {
  const org = await makeOrganization(api.orm);
  const { row } = await paidSubscription(api, temporal, {
    organizationId: org.id,
    recurrenceBilling: 'manual',
    cardNumber,
  });
  return { id: row.id as string, periodEnd: new Date(row.current_period_end), oat: await makeOat(api.orm, org.id) };
}
const advance = (s: { id: string; oat: string }, body: unknown) =>
  api.call('POST', `/api/v1/subscriptions/${s.id}/test-clock/advance`, { body, token: s.oat });

describe('subscription test clocks', () => {
  it('a month ahead: the renewal is charged at once and the subscription moves to its next period', async () => {
    const s = await subscription();
    const to = new Date(s.periodEnd.getTime() + 3_600_000).toISOString();
    const moved = await advance(s, { to });
    expect(moved.status).toBe(200);
    expect(moved.body).toEqual({ id: s.id, clock: to });
    const body = await subscriptionWhen(api, s, (b) => b.period_number === 2);
    expect(body).toMatchObject({ period_number: 2, status: 'active' });
    expect(body.charges).toEqual([
      expect.objectContaining({ period_number: 2, try_number: 1, amount: 4_990, outcome: 'succeeded' }),
    ]);
  });

  it('a card that only authorizes: the renewal is captured, so the period is paid and its sale and transaction say so', async () => {
    const s = await subscription('4000000000003220');
    const moved = await advance(s, { to: new Date(s.periodEnd.getTime() + 3_600_000).toISOString() });
    expect(moved.status).toBe(200);
    const body = await subscriptionWhen(api, s, (b) => b.period_number === 2);
    expect(body).toMatchObject({ period_number: 2, status: 'active' });
    expect(body.charges).toEqual([
      expect.objectContaining({ period_number: 2, try_number: 1, amount: 4_990, outcome: 'succeeded' }),
    ]);
    // Both periods' sales (the checkout's and the renewal's), each paid in full.
    const sales = await api.call('GET', `/api/v1/sales?subscription_id=${s.id}`, { token: s.oat });
    expect(sales.status).toBe(200);
    expect(sales.body.items.map((sale: any) => [sale.amount, sale.status])).toEqual([
      [4_990, 'paid'],
      [4_990, 'paid'],
    ]);
    // The renewal's transaction, as we recorded it and as the API shows it: captured, not held.
    const [renewal] = await api.orm.em.getConnection().execute<Record<string, any>[]>(
      `select t.gateway_transaction_id, t.status, t.captured_amount::int as captured
       from subscription_charges c join transactions t on t.id = c.transaction_id where c.subscription_id = ?`,
      [s.id],
    );
    expect(renewal).toMatchObject({ status: 'succeeded', captured: 4_990 });
    const shown = await api.call('GET', `/api/v1/transactions/${renewal!.gateway_transaction_id}`);
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({ status: 'succeeded', amount: 4_990 });
  });

  it('a refused card: the dunning retries fall due one after the other, each on its own day, to unpaid', async () => {
    const s = await subscription();
    // The saved card is refused from now on (the test card's scripted outcome, as if blocked since).
    await api.orm.em
      .getConnection()
      .execute(
        `update gateway_sim.cards set outcome = 'decline:insufficient_funds' where id = (select card_token_id from subscriptions where id = ?)`,
        [s.id],
      );
    const moved = await advance(s, { to: new Date(s.periodEnd.getTime() + 8 * 86_400_000).toISOString() });
    expect(moved.status).toBe(200);
    const body = await subscriptionWhen(api, s, (b) => b.status === 'unpaid');
    expect(body.status).toBe('unpaid');
    const tries = body.charges.map((c: any) => [c.try_number, c.outcome, c.decline_reason]);
    expect(tries).toEqual([1, 2, 3, 4, 5].map((n) => [n, 'failed', 'insufficient_funds']));
    // Each try at its own time on the subscription's clock: the period's end, then 1, 3, 5 and 7 days later.
    const days = body.charges.map((c: any) =>
      Math.round((Date.parse(c.attempted_at) - s.periodEnd.getTime()) / 86_400_000),
    );
    expect(days).toEqual([0, 1, 3, 5, 7]);
  });

  it('only forward (422), a well-formed time (400), an existing subscription (404)', async () => {
    const s = await subscription();
    const back = await advance(s, { to: new Date(Date.now() - 86_400_000).toISOString() });
    expect(back.status).toBe(422);
    expect(back.body.code).toBe('invalid_clock');
    expect((await advance(s, { to: 'next month' })).status).toBe(400);
    expect(
      (await advance({ ...s, id: '01a20b00-0000-7000-8000-000000000000' }, { to: new Date().toISOString() })).status,
    ).toBe(404);
  });

  it('is refused in a live deployment', async () => {
    const live = await startApi({
      DEPLOYMENT_ENV: 'live',
      GATEWAY: 'simulator',
      GATEWAY_CALLBACK_SECRET: 'live-callback-secret-0123456789',
    });
    try {
      const s = await subscription();
      const res = await live.call('POST', `/api/v1/subscriptions/${s.id}/test-clock/advance`, {
        body: { to: new Date(s.periodEnd.getTime() + 3_600_000).toISOString() },
        token: s.oat,
      });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('test_clock_unavailable');
    } finally {
      await live.close();
    }
  });
});
