import { describe, expect, it } from '@jest/globals';
import { WorkflowUpdateStage } from '@temporalio/client';
import { SimulatedGateway } from '@billing/simulated-gateway';
import {
  addMonth,
  APPROVE,
  DAY,
  DECLINE,
  EXPIRED,
  PREAUTH,
  stateWhen,
  useSubscriptionWorkflows,
  type SubscriptionOptions,
  stateOf,
} from '../helpers/subscription-workflows.ts';
import { advanceClockUpdate, changeSubscriptionUpdate } from '../../contracts/subscription.ts';

/**
 * A subscription's workflow over months of billing on the time-skipping test server: renewals,
 * dunning to unpaid and to canceled, hard declines, cancellation at period end and revocation. Its
 * activities are the real ones, on the test database and the simulated gateway, whose ledger says
 * what was really charged.
 */
const kit = useSubscriptionWorkflows('subscription-workflow-test');
const { sql, subscription, run, until, captured, charges, row, eventTypes } = kit;

/**
 * Noon UTC of a fixed day: each test's subscription starts at its own instant, later than the one
 * before (the test server's clock only moves forward), whatever the day the suite runs.
 */
const at = (day: string) => new Date(`${day}T12:00:00.000Z`);
/** The period a subscription is in: its start and end, as ISO instants. */
const periodOf = async (id: string) => {
  const r = await row(id);
  return [new Date(r.current_period_start).toISOString(), new Date(r.current_period_end).toISOString()];
};

describe('subscription workflow', () => {
  it('renews a monthly subscription once per period for a year, on the anchored dates, charging the price each time', async () => {
    const s = await subscription(APPROVE, { start: at('2101-01-15') });
    const state = await run(s.id, async (handle) => {
      await kit.env.sleep(365 * DAY + 3_600_000);
      return stateOf(handle);
    });
    // Period 1 was the checkout's; periods 2–13 began within the year.
    expect(state.periodNumber).toBe(13);
    expect(await captured(s.id)).toEqual(Array(12).fill(9_900));
    const timeline = await charges(s.id);
    expect(timeline).toHaveLength(12);
    expect(timeline.every((c) => c.outcome === 'succeeded' && c.amount === 9_900 && c.try_number === 1)).toBe(true);
    const r = await row(s.id);
    expect(r.status).toBe('active');
    expect(new Date(r.current_period_start).toISOString()).toBe(addMonth(s.anchor, 12).toISOString());
    expect(new Date(r.current_period_end).toISOString()).toBe(addMonth(s.anchor, 13).toISOString());
    const [sales] = await sql(
      `select count(*)::int as n, sum(amount)::int as total from sales where subscription_id = ?`,
      [s.id],
    );
    expect(sales).toEqual({ n: 12, total: 12 * 9_900 });
  }, 60_000);

  it('a card that only authorizes: each renewal is captured, and the period is paid, not declined', async () => {
    const s = await subscription(PREAUTH, { start: at('2102-03-15') });
    const state = await run(s.id, async (handle) => {
      await kit.env.sleep(await until(addMonth(s.anchor), DAY / 2));
      return stateOf(handle);
    });
    expect(state).toMatchObject({ periodNumber: 2, status: 'active' });
    // The gateway's own books: the authorization was captured in full, once.
    expect(await captured(s.id)).toEqual([9_900]);
    expect(await charges(s.id)).toEqual([
      { period_number: 2, try_number: 1, amount: 9_900, outcome: 'succeeded', decline_reason: null },
    ]);
    // Ours: the period's transaction succeeded and captured, and its sale paid.
    const payments = await sql(
      `select t.status, t.captured_amount::int as captured, t.decline_reason
       from subscription_charges c join transactions t on t.id = c.transaction_id where c.subscription_id = ?`,
      [s.id],
    );
    expect(payments).toEqual([{ status: 'succeeded', captured: 9_900, decline_reason: null }]);
    const sales = await sql('select status, amount::int as amount from sales where subscription_id = ?', [s.id]);
    expect(sales).toEqual([{ status: 'paid', amount: 9_900 }]);
    expect((await row(s.id)).status).toBe('active');
  }, 60_000);

  it('renews a yearly subscription on its anniversaries', async () => {
    const s = await subscription(APPROVE, { start: at('2103-01-15'), interval: 'year', subtotal: 99_000 });
    const state = await run(s.id, async (handle) => {
      await kit.env.sleep(2 * 366 * DAY);
      return stateOf(handle);
    });
    expect(state.periodNumber).toBe(3);
    expect(await captured(s.id)).toEqual([99_000, 99_000]);
    const r = await row(s.id);
    expect(new Date(r.current_period_start).toISOString()).toBe(addMonth(s.anchor, 24).toISOString());
    expect(new Date(r.current_period_end).toISOString()).toBe(addMonth(s.anchor, 36).toISOString());
  }, 60_000);

  it('anchored on 31 January: renews on the last day of February, then on 31 March', async () => {
    const s = await subscription(APPROVE, { start: at('2105-01-31') });
    const periods: string[][] = [];
    await run(s.id, async (handle) => {
      for (const renewal of [at('2105-02-28'), at('2105-03-31')]) {
        await kit.env.sleep(await until(renewal, DAY / 2));
        await stateOf(handle);
        periods.push(await periodOf(s.id));
      }
    });
    expect(periods).toEqual([
      ['2105-02-28T12:00:00.000Z', '2105-03-31T12:00:00.000Z'],
      ['2105-03-31T12:00:00.000Z', '2105-04-30T12:00:00.000Z'],
    ]);
    expect(await captured(s.id)).toEqual([9_900, 9_900]);
  }, 60_000);

  it('anchored on 29 February of a leap year, yearly: renews on 28 February of the years that have none', async () => {
    const s = await subscription(APPROVE, { start: at('2108-02-29'), interval: 'year', subtotal: 99_000 });
    expect((await periodOf(s.id))[1]).toBe('2109-02-28T12:00:00.000Z');
    await run(s.id, async (handle) => {
      await kit.env.sleep(await until(at('2109-02-28'), DAY / 2));
      await stateOf(handle);
    });
    expect(await periodOf(s.id)).toEqual(['2109-02-28T12:00:00.000Z', '2110-02-28T12:00:00.000Z']);
    expect(await captured(s.id)).toEqual([99_000]);
  }, 60_000);

  it('with a renewal spread, tries each renewal at its own fixed offset after the period end; the periods do not move', async () => {
    const spreadSeconds = 3_600;
    const s = await subscription(APPROVE, { start: at('2111-01-15') });
    await run(
      s.id,
      () => kit.env.sleep(addMonth(s.anchor, 2).getTime() - s.anchor.getTime() + 2 * spreadSeconds * 1000),
      kit.sim,
      {
        RENEWAL_SPREAD_SECONDS: spreadSeconds,
      },
    );
    const tries = await sql(
      'select period_number, attempted_at from subscription_charges where subscription_id = ? order by period_number',
      [s.id],
    );
    expect(tries.map((t) => t.period_number)).toEqual([2, 3]);
    // Each tried after its period's end, within the spread, at the same offset both times.
    const offsets = tries.map((t, i) => new Date(t.attempted_at).getTime() - addMonth(s.anchor, i + 1).getTime());
    expect(offsets[0]).toBeGreaterThan(0);
    expect(offsets[0]).toBeLessThan(spreadSeconds * 1000);
    // (The try's time is taken when the gateway answers: the charge's own few milliseconds apart.)
    expect(Math.abs(offsets[1]! - offsets[0]!)).toBeLessThan(1_000);
    expect(await captured(s.id)).toEqual([9_900, 9_900]);
    // The periods start on the anchored dates, whenever their charge was tried.
    const r = await row(s.id);
    expect(new Date(r.current_period_start).toISOString()).toBe(addMonth(s.anchor, 2).toISOString());
    expect(new Date(r.current_period_end).toISOString()).toBe(addMonth(s.anchor, 3).toISOString());
  }, 60_000);

  it('on a test clock, a renewal falls due at the period end whatever the spread', async () => {
    const s = await subscription(APPROVE, { start: at('2111-06-15') });
    const state = await run(
      s.id,
      async (handle) => {
        await handle.executeUpdate(advanceClockUpdate, { args: [{ to: addMonth(s.anchor).toISOString() }] });
        // Queries let no workflow time pass: the renewal happens on the clock's move alone.
        return stateWhen(handle, (st) => st.periodNumber === 2);
      },
      kit.sim,
      { RENEWAL_SPREAD_SECONDS: 86_400 },
    );
    expect(state.status).toBe('active');
    expect(await captured(s.id)).toEqual([9_900]);
  }, 60_000);

  it('takes a discount off for its duration: once, three months, or for ever', async () => {
    const half = { basisPoints: 5_000 };
    /** Periods 2 to 6 of a subscription with the discount (the first, the checkout's, was R$ 49,50). */
    const fiveRenewals = async (discount: SubscriptionOptions['discount'], start: string) => {
      const s = await subscription(APPROVE, { discount, start: at(start) });
      await run(s.id, () => kit.env.sleep(5 * 31 * DAY));
      return captured(s.id);
    };
    expect(await fiveRenewals({ ...half, duration: 'once' }, '2112-01-15')).toEqual([
      9_900, 9_900, 9_900, 9_900, 9_900,
    ]);
    // Three months from the start: periods 2 and 3 begin within them.
    expect(await fiveRenewals({ ...half, duration: 'repeating', durationInMonths: 3 }, '2112-07-15')).toEqual([
      4_950, 4_950, 9_900, 9_900, 9_900,
    ]);
    expect(await fiveRenewals({ ...half, duration: 'forever' }, '2113-01-15')).toEqual([
      4_950, 4_950, 4_950, 4_950, 4_950,
    ]);
  }, 120_000);

  it('charges the first period when the trial ends', async () => {
    const s = await subscription(APPROVE, { start: at('2113-07-15'), trialDays: 7 });
    const state = await run(s.id, async (handle) => {
      await kit.env.sleep(8 * DAY);
      return stateOf(handle);
    });
    expect(state.periodNumber).toBe(1);
    expect(await captured(s.id)).toEqual([9_900]);
    expect((await row(s.id)).status).toBe('active');
    expect(await eventTypes(s.organizationId)).toEqual(['subscription.active']);
  }, 60_000);

  it('a refused renewal is past due, retried 1, 3, 5 and 7 days later, then unpaid; every try says why', async () => {
    const s = await subscription(DECLINE, { start: at('2113-09-15') });
    const status = await run(s.id, async (handle) => {
      await kit.env.sleep(31 * DAY + 8 * DAY);
      return (await stateOf(handle)).status;
    });
    expect(status).toBe('unpaid');
    expect(await captured(s.id)).toEqual([]);
    const timeline = await charges(s.id);
    expect(timeline.map((c) => [c.period_number, c.try_number, c.outcome, c.decline_reason])).toEqual(
      [1, 2, 3, 4, 5].map((n) => [2, n, 'failed', 'card_declined']),
    );
    expect((await row(s.id)).status).toBe('unpaid');
    expect(await eventTypes(s.organizationId)).toEqual([
      'subscription.past_due',
      ...Array(4).fill('subscription.updated'),
      'subscription.updated',
    ]);
  }, 60_000);

  it("follows the organization's own dunning schedule", async () => {
    const s = await subscription(DECLINE, { start: at('2113-12-15'), settings: { dunning_retry_days: [2] } });
    const status = await run(s.id, async (handle) => {
      await stateOf(handle);
      await kit.env.sleep(await until(addMonth(s.anchor), 3 * DAY));
      return (await stateOf(handle)).status;
    });
    expect(status).toBe('unpaid');
    const timeline = await sql(
      `select try_number, attempted_at from subscription_charges where subscription_id = ? order by try_number`,
      [s.id],
    );
    expect(timeline.map((c) => c.try_number)).toEqual([1, 2]);
    const gap = new Date(timeline[1].attempted_at).getTime() - new Date(timeline[0].attempted_at).getTime();
    // Two days apart, give or take the charge's own round trip.
    expect(Math.abs(gap - 2 * DAY)).toBeLessThan(60_000);
  }, 60_000);

  it('ends canceled when the organization says so, and a hard decline skips the retries', async () => {
    const s = await subscription(EXPIRED, {
      start: at('2114-03-15'),
      settings: { dunning_exhausted_status: 'canceled' },
    });
    const result = await run(s.id, async (handle) => {
      await kit.env.sleep(32 * DAY);
      const ended = await handle.result();
      return ended;
    });
    expect(result).toBe('canceled');
    expect((await charges(s.id)).map((c) => c.decline_reason)).toEqual(['expired_card']);
    const r = await row(s.id);
    expect(r.status).toBe('canceled');
    expect(r.ended_at).not.toBeNull();
  }, 60_000);

  it('canceled at period end: ends when the period does, with no further charge', async () => {
    const s = await subscription(APPROVE, { start: at('2130-06-15') });
    const result = await run(s.id, async (handle) => {
      const record = await handle.executeUpdate(changeSubscriptionUpdate, { args: ['cancel_at_period_end'] });
      expect(record).toMatchObject({ id: s.id, status: 'active', cancel_at_period_end: true, ended_at: null });
      const result = await handle.result();
      return result;
    });
    expect(result).toBe('canceled');
    expect(await captured(s.id)).toEqual([]);
    expect(await eventTypes(s.organizationId)).toEqual(['subscription.updated', 'subscription.canceled']);
  }, 60_000);

  it('uncanceled before the period ends: it renews', async () => {
    const s = await subscription(APPROVE, { start: at('2150-09-15') });
    const state = await run(s.id, async (handle) => {
      await handle.executeUpdate(changeSubscriptionUpdate, { args: ['cancel_at_period_end'] });
      await handle.executeUpdate(changeSubscriptionUpdate, { args: ['uncancel'] });
      await kit.env.sleep(32 * DAY);
      return stateOf(handle);
    });
    expect(state.periodNumber).toBe(2);
    expect(await captured(s.id)).toEqual([9_900]);
  }, 60_000);

  it('revoked during dunning: no retry is ever charged again', async () => {
    const s = await subscription(DECLINE, { start: at('2160-01-15') });
    const result = await run(s.id, async (handle) => {
      await kit.env.sleep(await until(addMonth(s.anchor), DAY / 2));
      expect((await stateOf(handle)).status).toBe('past_due');
      await handle.executeUpdate(changeSubscriptionUpdate, { args: ['revoke'] });
      await kit.env.sleep(10 * DAY);
      const result = await handle.result();
      return result;
    });
    expect(result).toBe('canceled');
    expect(await charges(s.id)).toHaveLength(1);
    expect(await eventTypes(s.organizationId)).toEqual(['subscription.past_due', 'subscription.revoked']);
  }, 60_000);

  it('revoked while a renewal charge is on its way: the capture is refunded, and nothing is charged again', async () => {
    const s = await subscription(APPROVE, { start: at('2180-04-15') });
    // The gateway holds the renewal's charge until the revocation is written.
    let reached!: () => void;
    let release!: () => void;
    const atCharge = new Promise<void>((resolve) => (reached = resolve));
    const released = new Promise<void>((resolve) => (release = resolve));
    const gateway = Object.create(kit.sim) as SimulatedGateway;
    gateway.chargeCard = async (input, key) => {
      reached();
      await released;
      return kit.sim.chargeCard(input, key);
    };
    const result = await run(
      s.id,
      async (handle) => {
        const skipping = kit.env.sleep(await until(addMonth(s.anchor), DAY));
        await atCharge;
        // The workflow has taken the revocation (its row waits for the charge's lock) before the gateway answers.
        const revoking = await handle.startUpdate(changeSubscriptionUpdate, {
          args: ['revoke'],
          waitForStage: WorkflowUpdateStage.ACCEPTED,
        });
        release();
        expect((await revoking.result()).status).toBe('canceled');
        await skipping;
        return handle.result();
      },
      gateway,
    );
    expect(result).toBe('canceled');
    const refunds = await sql(
      `select l.amount from gateway_sim.ledger l join gateway_sim.transactions t on t.id = l.transaction_id
       where t.reference = ? and l.kind = 'refund'`,
      [s.id],
    );
    expect(await captured(s.id)).toEqual([9_900]);
    expect(refunds.map((r) => Number(r.amount))).toEqual([9_900]);
    expect((await charges(s.id)).map((c) => c.outcome)).toEqual(['refunded']);
    const [sale] = await sql('select status, refunded_amount::int as refunded from sales where subscription_id = ?', [
      s.id,
    ]);
    expect(sale).toEqual({ status: 'refunded', refunded: 9_900 });
    expect((await row(s.id)).period_number).toBe(1);
  }, 60_000);
});
