import { describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import { useApi, type TestApi } from '../helpers/api.ts';
import { makeOat, makeOrganization } from '../helpers/fixtures.ts';
import { waitFor } from '../helpers/processes.ts';
import { paidSubscription } from '../helpers/subscriptions.ts';

/**
 * The test clock of a subscription billed by the gateway (`recurrence_billing: gateway`): in the
 * sandbox the gateway is our simulator, whose recurrence follows the subscription's clock. An advance
 * past the period's end bills the due cycle at the gateway (its invoice, its transaction, its notice)
 * and the subscription renews; a refused card runs the dunning retries on their days, to unpaid, as a
 * manual subscription's do (subscription-test-clocks.test.ts).
 */
let api: TestApi;
let temporal: Client;
useApi((started) => ({ api, temporal } = started));

async function gatewaySubscription() {
  const org = await makeOrganization(api.orm);
  const { row } = await paidSubscription(api, temporal, { organizationId: org.id, recurrenceBilling: 'gateway' });
  expect(row.gateway_subscription_id).toEqual(expect.any(String));
  return {
    id: row.id as string,
    gatewayId: row.gateway_subscription_id as string,
    periodEnd: new Date(row.current_period_end),
    oat: await makeOat(api.orm, org.id),
  };
}
type Subscription = Awaited<ReturnType<typeof gatewaySubscription>>;

const advance = (s: Subscription, to: Date) =>
  api.call('POST', `/api/v1/subscriptions/${s.id}/test-clock/advance`, {
    body: { to: to.toISOString() },
    token: s.oat,
  });

/** The subscription as the API shows it, once `done` holds (the workflow works through the advance). */
async function subscriptionWhen(s: Subscription, what: string, done: (body: any) => boolean): Promise<any> {
  let last: any;
  return waitFor(
    async () => {
      last = (await api.call('GET', `/api/v1/subscriptions/${s.id}`, { token: s.oat })).body;
      return done(last) ? last : null;
    },
    { what, timeoutMs: 30_000, intervalMs: 100, describe: () => JSON.stringify(last) },
  );
}

/** The gateway's own books of its subscription: each cycle's invoice and its charges. */
async function gatewayCycles(s: Subscription) {
  return api.orm.em.getConnection().execute<Record<string, any>[]>(
    `select i.cycle, i.status, i.amount::int as amount, count(t.id)::int as charges
     from gateway_sim.invoices i left join gateway_sim.transactions t on t.reference = i.id
     where i.subscription_id = ? and i.cycle is not null group by i.id order by i.cycle`,
    [s.gatewayId],
  );
}

describe('test clocks of gateway-billed subscriptions (sandbox)', () => {
  it('an hour past the period end: the gateway bills the cycle and the subscription moves to its next period', async () => {
    const s = await gatewaySubscription();
    const moved = await advance(s, new Date(s.periodEnd.getTime() + 3_600_000));
    expect(moved.status).toBe(200);
    const body = await subscriptionWhen(s, 'period 2', (b) => b.period_number === 2);
    expect(body).toMatchObject({ status: 'active', period_number: 2 });
    expect(Date.parse(body.current_period_start)).toBe(s.periodEnd.getTime());
    expect(body.charges).toEqual([
      expect.objectContaining({ period_number: 2, try_number: 1, amount: 4_990, outcome: 'succeeded' }),
    ]);
    // Billed once at the gateway (one cycle, one charge), and both periods' sales paid.
    expect(await gatewayCycles(s)).toEqual([{ cycle: 0, status: 'paid', amount: 4_990, charges: 1 }]);
    const sales = await api.call('GET', `/api/v1/sales?subscription_id=${s.id}`, { token: s.oat });
    expect(sales.body.items.map((sale: any) => [sale.amount, sale.status])).toEqual([
      [4_990, 'paid'],
      [4_990, 'paid'],
    ]);
  });

  it('three months ahead: each period is billed in turn, once', async () => {
    const s = await gatewaySubscription();
    // Past the third period's end by a day: periods 2, 3 and 4 are due (a month is at most 31 days).
    const to = new Date(s.periodEnd.getTime() + 63 * 86_400_000);
    expect((await advance(s, to)).status).toBe(200);
    const body = await subscriptionWhen(s, 'period 4', (b) => b.period_number === 4);
    expect(body.status).toBe('active');
    expect(body.charges.map((c: any) => [c.period_number, c.outcome])).toEqual([
      [2, 'succeeded'],
      [3, 'succeeded'],
      [4, 'succeeded'],
    ]);
    expect((await gatewayCycles(s)).map((c) => [c.cycle, c.status, c.charges])).toEqual([
      [0, 'paid', 1],
      [1, 'paid', 1],
      [2, 'paid', 1],
    ]);
  });

  it('a refused card: the gateway retries on the dunning days and the subscription ends unpaid', async () => {
    const s = await gatewaySubscription();
    // The gateway subscription's card is refused from now on (its scripted outcome, as if blocked since).
    await api.orm.em.getConnection().execute(
      `update gateway_sim.cards set outcome = 'decline:insufficient_funds'
         where id = (select card_id from gateway_sim.subscriptions where id = ?)`,
      [s.gatewayId],
    );
    expect((await advance(s, new Date(s.periodEnd.getTime() + 8 * 86_400_000))).status).toBe(200);
    const body = await subscriptionWhen(s, 'unpaid', (b) => b.status === 'unpaid');
    expect(body.period_number).toBe(1);
    const tries = body.charges.map((c: any) => [c.try_number, c.outcome, c.decline_reason]);
    expect(tries).toEqual([1, 2, 3, 4, 5].map((n) => [n, 'failed', 'insufficient_funds']));
    // Each try on its own day of the subscription's clock: the period's end, then 1, 3, 5 and 7 days later.
    const days = body.charges.map((c: any) =>
      Math.round((Date.parse(c.attempted_at) - s.periodEnd.getTime()) / 86_400_000),
    );
    expect(days).toEqual([0, 1, 3, 5, 7]);
    // The gateway charged the one cycle five times, and it stays unpaid.
    expect(await gatewayCycles(s)).toEqual([{ cycle: 0, status: 'failed', amount: 4_990, charges: 5 }]);
  });
});
