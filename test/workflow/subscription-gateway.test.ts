import { describe, expect, it } from '@jest/globals';
import { PAYMENT_ISSUE } from '../../domain/search-attributes.ts';
import { GATEWAY_NOTICE_GRACE_MS } from '../../domain/subscriptions.ts';
import {
  addMonth,
  APPROVE,
  DAY,
  DECLINE,
  useSubscriptionWorkflows,
  stateWhen,
  stateOf,
} from '../helpers/subscription-workflows.ts';
import { changeSubscriptionUpdate, gatewayInvoiceSignal } from '../../contracts/subscription.ts';

/**
 * Gateway-billed subscriptions (`recurrence_billing: gateway`) on the time-skipping test server: the
 * simulated gateway's recurrence charges each period (`billSubscription`, as on a due date), the
 * workflow learns of it from the gateway's notice or, when the notice never comes, by asking the
 * gateway after a grace, and never charges anything itself.
 */
const kit = useSubscriptionWorkflows('subscription-gateway-test');
const { sql, subscription, run, until, captured, charges, row, eventTypes } = kit;
const HOUR = 3_600_000;

/** What the gateway captured for the subscription's cycles (references are its invoice ids), in cents. */
async function gatewayCaptured(gatewaySubscriptionId: string): Promise<number[]> {
  const rows = await sql(
    `select l.amount from gateway_sim.ledger l join gateway_sim.invoices i on i.transaction_id = l.transaction_id
     where i.subscription_id = ? and l.kind = 'capture' order by l.id`,
    [gatewaySubscriptionId],
  );
  return rows.map((r) => Number(r.amount));
}
const gatewayStatus = async (gatewaySubscriptionId: string) =>
  (await sql('select status from gateway_sim.subscriptions where id = ?', [gatewaySubscriptionId]))[0].status;

describe('gateway-billed subscription workflow', () => {
  it("enters each period the gateway's notice reports paid, and never charges the card itself", async () => {
    const s = await subscription(APPROVE, { billing: 'gateway' });
    const state = await run(s.id, async (handle) => {
      for (let month = 1; month <= 3; month++) {
        await kit.env.sleep(await until(addMonth(s.anchor, month), HOUR));
        await kit.sim.billSubscription(s.gatewaySubscriptionId!);
        await handle.signal(gatewayInvoiceSignal);
        await stateWhen(handle, (st) => st.periodNumber === month + 1);
      }
      return stateOf(handle);
    });
    expect(state).toMatchObject({ status: 'active', periodNumber: 4 });
    expect(await captured(s.id)).toEqual([]); // nothing charged under the subscription's own reference
    expect(await gatewayCaptured(s.gatewaySubscriptionId!)).toEqual([9_900, 9_900, 9_900]);
    const timeline = await charges(s.id);
    expect(timeline.map((c) => [c.period_number, c.outcome, c.amount])).toEqual([
      [2, 'succeeded', 9_900],
      [3, 'succeeded', 9_900],
      [4, 'succeeded', 9_900],
    ]);
    const r = await row(s.id);
    expect(new Date(r.current_period_end).toISOString()).toBe(addMonth(s.anchor, 4).toISOString());
    const [sales] = await sql(
      `select count(*)::int as n, sum(amount)::int as total from sales where subscription_id = ?`,
      [s.id],
    );
    expect(sales).toEqual({ n: 3, total: 3 * 9_900 });
  }, 60_000);

  it('a lost notice: the gateway is asked once the grace has passed, and the paid period is entered', async () => {
    const s = await subscription(APPROVE, { billing: 'gateway' });
    const state = await run(s.id, async (handle) => {
      await kit.env.sleep(await until(addMonth(s.anchor), HOUR));
      await kit.sim.billSubscription(s.gatewaySubscriptionId!); // its notice never reaches us
      expect((await stateOf(handle)).periodNumber).toBe(1);
      await kit.env.sleep(GATEWAY_NOTICE_GRACE_MS);
      return stateOf(handle);
    });
    expect(state.periodNumber).toBe(2);
    expect((await charges(s.id)).map((c) => c.outcome)).toEqual(['succeeded']);
  }, 60_000);

  it('a period the gateway has not billed by the grace is flagged for operators, and entered once it is', async () => {
    const s = await subscription(APPROVE, { billing: 'gateway' });
    await run(s.id, async (handle) => {
      await kit.env.sleep(await until(addMonth(s.anchor), GATEWAY_NOTICE_GRACE_MS + HOUR));
      const flagged = await handle.describe();
      expect(flagged.typedSearchAttributes.get(PAYMENT_ISSUE)).toBe('gateway_renewal_missing');
      expect(await stateOf(handle)).toMatchObject({ status: 'active', periodNumber: 1 });
      await kit.sim.billSubscription(s.gatewaySubscriptionId!);
      await kit.env.sleep(DAY); // asked again daily
      expect((await stateOf(handle)).periodNumber).toBe(2);
      expect((await handle.describe()).typedSearchAttributes.get(PAYMENT_ISSUE)).toBeUndefined();
    });
  }, 60_000);

  it("a refused cycle is past due; the gateway's retries are recorded as they come, then the subscription is unpaid", async () => {
    const s = await subscription(DECLINE, { billing: 'gateway' });
    const status = await run(s.id, async (handle) => {
      await kit.env.sleep(await until(addMonth(s.anchor), HOUR));
      await kit.sim.billSubscription(s.gatewaySubscriptionId!);
      await handle.signal(gatewayInvoiceSignal);
      await stateWhen(handle, (st) => st.status === 'past_due');
      await kit.env.sleep(DAY / 2);
      await kit.sim.billSubscription(s.gatewaySubscriptionId!); // the gateway's own retry, refused again
      await handle.signal(gatewayInvoiceSignal);
      await handle.signal(gatewayInvoiceSignal); // a repeated notice records nothing more
      await stateWhen(handle, (st) => st.tryNumber === 3);
      await kit.env.sleep(8 * DAY);
      return (await stateOf(handle)).status;
    });
    expect(status).toBe('unpaid');
    expect((await charges(s.id)).map((c) => [c.period_number, c.try_number, c.outcome, c.decline_reason])).toEqual([
      [2, 1, 'failed', 'card_declined'],
      [2, 2, 'failed', 'card_declined'],
    ]);
    expect(await eventTypes(s.organizationId)).toEqual([
      'subscription.past_due',
      'subscription.updated',
      'subscription.updated',
    ]);
    expect(await gatewayStatus(s.gatewaySubscriptionId!)).toBe('active');
  }, 60_000);

  it('dunning exhausted to canceled stops the gateway’s recurrence', async () => {
    const s = await subscription(DECLINE, { billing: 'gateway', settings: { dunning_exhausted_status: 'canceled' } });
    const result = await run(s.id, async (handle) => {
      await kit.env.sleep(await until(addMonth(s.anchor), HOUR));
      await kit.sim.billSubscription(s.gatewaySubscriptionId!);
      await handle.signal(gatewayInvoiceSignal);
      await kit.env.sleep(9 * DAY);
      return handle.result();
    });
    expect(result).toBe('canceled');
    expect(await gatewayStatus(s.gatewaySubscriptionId!)).toBe('canceled');
    await expect(kit.sim.billSubscription(s.gatewaySubscriptionId!)).rejects.toThrow('canceled');
  }, 60_000);

  it('canceled at period end while the gateway bills the next period: the recurrence stops and that charge is refunded', async () => {
    const s = await subscription(APPROVE, { billing: 'gateway' });
    const result = await run(s.id, async (handle) => {
      await handle.executeUpdate(changeSubscriptionUpdate, { args: ['cancel_at_period_end'] });
      // The gateway bills on the due date, a little before the period's end instant.
      await kit.env.sleep(await until(addMonth(s.anchor), -HOUR));
      await kit.sim.billSubscription(s.gatewaySubscriptionId!);
      const ended = await handle.result();
      return ended;
    });
    expect(result).toBe('canceled');
    expect(await gatewayStatus(s.gatewaySubscriptionId!)).toBe('canceled');
    const refunds = await sql(
      `select l.amount from gateway_sim.ledger l join gateway_sim.invoices i on i.transaction_id = l.transaction_id
       where i.subscription_id = ? and l.kind = 'refund'`,
      [s.gatewaySubscriptionId],
    );
    expect(refunds.map((r) => Number(r.amount))).toEqual([9_900]);
    expect((await charges(s.id)).map((c) => c.outcome)).toEqual(['refunded']);
    const r = await row(s.id);
    expect(r).toMatchObject({ status: 'canceled', period_number: 1 });
    const [sale] = await sql('select status from sales where subscription_id = ?', [s.id]);
    expect(sale.status).toBe('refunded');
  }, 60_000);

  it('revoked: the gateway’s recurrence stops at once', async () => {
    const s = await subscription(APPROVE, { billing: 'gateway' });
    const result = await run(s.id, async (handle) => {
      await handle.executeUpdate(changeSubscriptionUpdate, { args: ['revoke'] });
      return handle.result();
    });
    expect(result).toBe('canceled');
    expect(await gatewayStatus(s.gatewaySubscriptionId!)).toBe('canceled');
    expect(await gatewayCaptured(s.gatewaySubscriptionId!)).toEqual([]);
  }, 60_000);

  it("after a trial, the gateway's first cycle pays the first period", async () => {
    const s = await subscription(APPROVE, { billing: 'gateway', trialDays: 7 });
    const state = await run(s.id, async (handle) => {
      await kit.env.sleep(7 * DAY + HOUR);
      await kit.sim.billSubscription(s.gatewaySubscriptionId!);
      await handle.signal(gatewayInvoiceSignal);
      return stateWhen(handle, (st) => st.periodNumber === 1);
    });
    expect(state.status).toBe('active');
    expect(await eventTypes(s.organizationId)).toEqual(['subscription.active']);
  }, 60_000);
});
