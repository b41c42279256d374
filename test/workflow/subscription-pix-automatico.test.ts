import { describe, expect, it } from '@jest/globals';
import { addMonth, APPROVE, DAY, stateOf, useSubscriptionWorkflows } from '../helpers/subscription-workflows.ts';

/**
 * A Pix Automático subscription's workflow over two years on the time-skipping test server (decision
 * 0096): each period charged through the payer's mandate at the simulated gateway, which settles the
 * attempts as the payer does. The activities are the real ones on the test database; the simulator's
 * rows say what the payer's bank was asked and when.
 */
const kit = useSubscriptionWorkflows('subscription-pix-automatico-test');
const { sql, subscription, run, charges, row } = kit;

/** Noon in Brasília (15:00 UTC) of a fixed day: its due dates are the 25th of each month. */
const START = new Date('2150-01-25T15:00:00.000Z');
/** Period n's charge is due when period n − 1 ends: n − 1 months after the start (the oracle's months). */
const dueOf = (period: number) => addMonth(START, period - 1);

describe('Pix Automático subscription workflow', () => {
  it('bills 24 monthly cycles through the mandate, with a retry after no funds, a lowered maximum, holiday due dates, and ends at a revocation', async () => {
    const s = await subscription(APPROVE, {
      start: START,
      billing: 'pix_automatico',
      settings: { dunning_exhausted_status: 'canceled' },
    });
    const mandate = s.mandateId!;
    const payerIs = (persona: string) =>
      sql('update gateway_sim.mandates set persona = ? where id = ?', [persona, mandate]);
    const sleepUntil = async (instant: Date) => kit.env.sleep(instant.getTime() - (await kit.env.currentTimeMs()));

    const final = await run(s.id, async (handle) => {
      // Period 4: the payer has no funds on the due date, and pays at the first retry.
      await sleepUntil(new Date(dueOf(4).getTime() - DAY));
      await payerIs('no_funds_until_retry');
      await sleepUntil(new Date(dueOf(4).getTime() + 10 * DAY));
      await payerIs('approves');
      // Period 8: the payer lowers their maximum below the charge before it settles (AM02), and raises it
      // again before the first retry.
      await sleepUntil(new Date(dueOf(8).getTime() - DAY));
      await kit.sim.setPayerMaximum(mandate, 9_899);
      // The 25th of August 2150 is a Monday: the refusal is read that evening, the retry settles on the 26th.
      await sleepUntil(new Date('2150-08-26T06:00:00.000Z'));
      await kit.sim.setPayerMaximum(mandate, null);
      // After period 25 is paid, the payer revokes the mandate in their bank's app.
      await sleepUntil(new Date(dueOf(25).getTime() + 3 * DAY));
      await kit.sim.revokeMandate(mandate);
      await sleepUntil(new Date(dueOf(26).getTime() + 2 * DAY));
      return stateOf(handle);
    });

    // 24 periods paid through the mandate (2 to 25; period 1 was the checkout's), then none.
    expect(final).toMatchObject({ periodNumber: 25, status: 'canceled' });
    const timeline = await charges(s.id);
    const paid = timeline.filter((c) => c.outcome === 'succeeded');
    expect(paid.map((c) => c.period_number)).toEqual(Array.from({ length: 24 }, (_, i) => i + 2));
    expect(paid.every((c) => c.amount === 9_900)).toBe(true);
    // The dunning timeline: each refused attempt with its reason, and the paid retry after it.
    expect(timeline.filter((c) => c.outcome !== 'succeeded')).toEqual([
      { period_number: 4, try_number: 1, amount: 0, outcome: 'failed', decline_reason: 'insufficient_funds' },
      { period_number: 8, try_number: 1, amount: 0, outcome: 'failed', decline_reason: 'AM02' },
      { period_number: 26, try_number: 1, amount: 0, outcome: 'failed', decline_reason: 'mandate_not_active' },
    ]);
    expect(paid.filter((c) => c.try_number !== 1).map((c) => [c.period_number, c.try_number])).toEqual([
      [4, 2],
      [8, 2],
    ]);
    const [sales] = await sql(
      `select count(*)::int as n, sum(amount)::int as total from sales where subscription_id = ?`,
      [s.id],
    );
    expect(sales).toEqual({ n: 24, total: 24 * 9_900 });

    // Our books of the mandate's charges: one per period, each paid once.
    const ours = await sql(
      `select period, to_char(due_date, 'YYYY-MM-DD') as due, to_char(settlement_date, 'YYYY-MM-DD') as settles,
         status, retries_requested, failure_reason, amount::int as amount
       from mandate_charges where subscription_id = ? order by period`,
      [s.id],
    );
    expect(ours).toHaveLength(24);
    expect(ours.every((c) => c.status === 'completed' && c.amount === 9_900)).toBe(true);
    expect(ours.filter((c) => c.retries_requested > 0).map((c) => [c.period, c.retries_requested])).toEqual([
      [4, 1],
      [8, 1],
    ]);
    // Christmas: 2150-12-25 is a Friday (settles Monday the 28th), 2151-12-25 a Saturday (Monday the 27th).
    expect(ours.find((c) => c.due === '2150-12-25')).toMatchObject({ period: 12, settles: '2150-12-28' });
    expect(ours.find((c) => c.due === '2151-12-25')).toMatchObject({ period: 24, settles: '2151-12-27' });

    // The payer's bank's side: every charge reached it between ten and two days before its due date.
    const sent = await sql(
      `select c.created_at, c.due_date::text as due from gateway_sim.mandate_charges c where c.mandate_id = ?`,
      [mandate],
    );
    expect(sent).toHaveLength(24);
    for (const c of sent) {
      const lead = (Date.parse(`${c.due}T12:00:00-03:00`) - new Date(c.created_at).getTime()) / DAY;
      expect(lead).toBeGreaterThanOrEqual(2);
      expect(lead).toBeLessThanOrEqual(10);
    }

    // The revocation ended it: the mandate cancelled by the payer, the subscription canceled.
    const [m] = await sql('select status, cancelled_by, cancellation_code from mandates where subscription_id = ?', [
      s.id,
    ]);
    expect(m).toEqual({ status: 'cancelled', cancelled_by: 'payer', cancellation_code: 'SLDB' });
    expect((await row(s.id)).status).toBe('canceled');
    const events = await sql(
      `select type, count(*)::int as n from events where organization_id = ? and type like 'mandate.%' group by type`,
      [s.organizationId],
    );
    expect(Object.fromEntries(events.map((e) => [e.type, e.n]))).toMatchObject({
      'mandate.charge_created': 24,
      'mandate.charge_paid': 24,
      'mandate.charge_attempt_failed': 2,
      'mandate.charge_retry_requested': 2,
      'mandate.cancelled': 1,
    });
  }, 120_000);
});
