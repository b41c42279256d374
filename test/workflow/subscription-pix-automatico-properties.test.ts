import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { addMonth, APPROVE, DAY, stateOf, useSubscriptionWorkflows } from '../helpers/subscription-workflows.ts';
import {
  bankingDayOnOrAfter,
  calendarDaysBetween,
  dayInBrasilia,
  isBankingDay,
} from '../fixtures/brazil-banking-calendar.ts';

/**
 * Properties of Pix Automático billing (decision 0096) over random schedules and payers, with the real
 * subscription workflow and activities on the time-skipping test server and the simulated gateway: a
 * subscription starts on a random day and hour of 2160–2190 (weekends and holidays included), weekly,
 * monthly or yearly, and its payer behaves differently each cycle. Whatever happens, the payer's bank
 * (the simulator's rows) and our books must show: every charge sent inside its window, one charge per
 * due date, at most one paid attempt each, at most three retries on banking days within seven days and
 * before the next cycle settles, each period paid at most once, and a status that says how the last
 * cycle went. The calendar's oracle is test/fixtures/brazil-banking-calendar.ts, not the domain's.
 */
const kit = useSubscriptionWorkflows('subscription-pix-automatico-properties');
const { sql } = kit;

type Interval = 'week' | 'month' | 'year';
/** What the payer does in a cycle: a persona of the simulator's, or a maximum under the charge, or a revocation. */
type Behaviour =
  'approves' | 'no_funds_morning' | 'no_funds_until_retry' | 'closed_account' | 'over_maximum' | 'revokes';

interface Schedule {
  /** Days after the previous run's end (the test server's clock only moves forward). */
  gapDays: number;
  hour: number;
  interval: Interval;
  behaviours: Behaviour[];
}

const behaviour = fc.oneof(
  { arbitrary: fc.constant<Behaviour>('approves'), weight: 4 },
  { arbitrary: fc.constantFrom<Behaviour>('no_funds_morning', 'no_funds_until_retry'), weight: 3 },
  { arbitrary: fc.constant<Behaviour>('over_maximum'), weight: 2 },
  { arbitrary: fc.constantFrom<Behaviour>('closed_account', 'revokes'), weight: 1 },
);
const schedule: fc.Arbitrary<Schedule> = fc.record({
  gapDays: fc.integer({ min: 0, max: 45 }),
  hour: fc.integer({ min: 0, max: 23 }),
  interval: fc.constantFrom<Interval>('week', 'month', 'month', 'year'),
  behaviours: fc.array(behaviour, { minLength: 3, maxLength: 6 }),
});

/** The start of period `n` (1 the first) of a subscription started at `start`: the test's own calendar. */
function periodStart(start: Date, interval: Interval, n: number): Date {
  if (interval === 'week') return new Date(start.getTime() + 7 * (n - 1) * DAY);
  return addMonth(start, (interval === 'year' ? 12 : 1) * (n - 1));
}

/** Where each run starts: after the previous one's end (the test server's clock only moves forward). */
let cursor = Date.UTC(2160, 0, 1);

describe('Pix Automático billing, whatever the schedule and the payer', () => {
  it('sends each charge in its window, pays each period at most once and retries only as the mandate allows', async () => {
    await fc.assert(
      fc.asyncProperty(schedule, async (s) => {
        // Yearly runs are kept short so that the runs fit in 2160–2190.
        const behaviours = s.interval === 'year' ? s.behaviours.slice(0, 3) : s.behaviours;
        const start = new Date(cursor + s.gapDays * DAY + s.hour * 3_600_000);
        const cycles = behaviours.length;
        // Periods 2 … cycles + 1 are charged through the mandate; the run ends five days before the
        // following period's charge is due (it is sent four days before).
        const dueOf = (period: number) => periodStart(start, s.interval, period);
        const end = new Date(dueOf(cycles + 2).getTime() - 5 * DAY);
        cursor = end.getTime() + DAY;

        const sub = await kit.subscription(APPROVE, { start, billing: 'pix_automatico', interval: s.interval });
        const mandate = sub.mandateId!;
        const sleepUntil = async (instant: Date) => {
          const now = await kit.env.currentTimeMs();
          if (instant.getTime() > now) await kit.env.sleep(instant.getTime() - now);
        };
        /** The payer's behaviour for a cycle, set before its charge is sent (five days before it is due). */
        const behave = async (b: Behaviour) => {
          const now = new Date(await kit.env.currentTimeMs());
          kit.sim.now = () => now;
          const [m] = await sql('select status from gateway_sim.mandates where id = ?', [mandate]);
          if (m.status !== 'approved') return;
          const persona = b === 'over_maximum' || b === 'revokes' ? 'approves' : b;
          await sql('update gateway_sim.mandates set persona = ? where id = ?', [persona, mandate]);
          await kit.sim.setPayerMaximum(mandate, b === 'over_maximum' ? 100 : null);
          if (b === 'revokes') await kit.sim.revokeMandate(mandate);
        };

        const final = await kit.run(sub.id, async (handle) => {
          for (let i = 0; i < cycles; i++) {
            await sleepUntil(new Date(dueOf(i + 2).getTime() - 5 * DAY));
            await behave(behaviours[i]!);
          }
          await sleepUntil(end);
          return stateOf(handle);
        });
        await checkInvariants({ subscriptionId: sub.id, mandate, dueOf, status: final.status });
      }),
      { numRuns: 7, seed: 20_260_096, endOnFailure: true },
    );
  }, 600_000);
});

/** The invariants, read from the payer's bank's rows (the simulator's) and from our books. */
async function checkInvariants(input: {
  subscriptionId: string;
  mandate: string;
  dueOf: (period: number) => Date;
  status: string;
}) {
  const { subscriptionId, mandate, dueOf } = input;
  const sent = await sql(
    `select id, due_date::text as due, created_at, status from gateway_sim.mandate_charges where mandate_id = ?
     order by due_date`,
    [mandate],
  );
  const attempts = await sql(
    `select a.charge_id, a.number, a.kind, a.status, a.settlement_date::text as settles
     from gateway_sim.mandate_attempts a join gateway_sim.mandate_charges c on c.id = a.charge_id
     where c.mandate_id = ? order by a.charge_id, a.number`,
    [mandate],
  );
  // The due dates of the periods, in Brasília's calendar: period n's charge is due when period n − 1 ends.
  const dueDates = Array.from({ length: 40 }, (_, i) => dayInBrasilia(dueOf(i + 2)));

  // One charge per (mandate, due date), each due on a period's due date.
  expect(new Set(sent.map((c) => c.due)).size).toBe(sent.length);
  for (const c of sent) {
    expect(dueDates).toContain(c.due);
    // Sent inside its window: ten to two days before its due date, in Brasília's calendar.
    const lead = calendarDaysBetween(dayInBrasilia(new Date(c.created_at)), c.due);
    expect(lead).toBeGreaterThanOrEqual(2);
    expect(lead).toBeLessThanOrEqual(10);

    const own = attempts.filter((a) => a.charge_id === c.id);
    expect(own.filter((a) => a.status === 'paid').length).toBeLessThanOrEqual(1);
    const settles = bankingDayOnOrAfter(c.due);
    const nextDue = dueDates[dueDates.indexOf(c.due) + 1]!;
    const nextSettles = bankingDayOnOrAfter(nextDue);
    const first = own.find((a) => a.number === 0);
    if (first) expect(first.settles).toBe(settles);
    const retries = own.filter((a) => a.kind === 'retry');
    expect(retries.length).toBeLessThanOrEqual(3);
    for (const r of retries) {
      const at = { charge: c.due, retry: r.settles };
      expect({ ...at, banking: isBankingDay(r.settles) }).toEqual({ ...at, banking: true });
      const after = calendarDaysBetween(settles, r.settles);
      expect({ ...at, after: after >= 1 && after <= 7 }).toEqual({ ...at, after: true });
      expect({ ...at, beforeNext: r.settles < nextSettles }).toEqual({ ...at, beforeNext: true });
    }
    expect(new Set(retries.map((r) => r.settles)).size).toBe(retries.length);
  }

  // Our books: each period paid at most once, a sale per paid period, as many as the bank paid.
  const ours = await sql(
    `select period_number, try_number, outcome from subscription_charges where subscription_id = ?
     order by period_number, try_number`,
    [subscriptionId],
  );
  const paid = ours.filter((c) => c.outcome === 'succeeded');
  expect(new Set(paid.map((c) => c.period_number)).size).toBe(paid.length);
  const [sales] = await sql('select count(*)::int as n from sales where subscription_id = ?', [subscriptionId]);
  expect(sales.n).toBe(paid.length);
  expect(sent.filter((c) => c.status === 'completed')).toHaveLength(paid.length);
  // Our books settle each charge on the banking day its due date moves to, as the payer's bank does.
  const settlements = await sql(
    `select to_char(due_date, 'YYYY-MM-DD') as due, to_char(settlement_date, 'YYYY-MM-DD') as settles
     from mandate_charges where subscription_id = ?`,
    [subscriptionId],
  );
  for (const c of settlements) expect(c).toEqual({ due: c.due, settles: bankingDayOnOrAfter(c.due) });
  const [books] = await sql(
    `select count(*)::int as n, count(distinct period)::int as periods,
       count(*) filter (where status = 'completed')::int as completed
     from mandate_charges where subscription_id = ?`,
    [subscriptionId],
  );
  expect(books).toEqual({ n: sent.length, periods: sent.length, completed: paid.length });

  // The status says how the last cycle went: active when its last attempt paid, in dunning or ended when not.
  const last = ours.at(-1);
  const [row] = await sql('select status from subscriptions where id = ?', [subscriptionId]);
  expect(row.status).toBe(input.status);
  if (last === undefined || last.outcome === 'succeeded') expect(row.status).toBe('active');
  else expect(['past_due', 'unpaid', 'canceled']).toContain(row.status);
}
