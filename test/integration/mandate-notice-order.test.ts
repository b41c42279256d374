import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { SimulatedGateway } from '@billing/simulated-gateway';
import type { GatewayMandate, GatewayMandateCharge, PixPayerPersona } from '../../contracts/pix-automatico.ts';
import { upsertMandateCharge } from '../../db/mandate/charges.ts';
import { mandateOfGateway, upsertMandate } from '../../db/mandate/mandates.ts';
import { openOrm, type Orm } from '../../db/orm.ts';
import { mandateChargeKey } from '../../domain/pix-automatico.ts';
import { bankingDayOnOrAfter, isBankingDay } from '../fixtures/brazil-banking-calendar.ts';
import { TEST_DATABASE_URL } from '../helpers/env.ts';
import { makeOrganization } from '../helpers/fixtures.ts';
import { seedSubscription } from '../helpers/mandates.ts';

/**
 * The gateway's notices of a mandate and its charge come in any order, and some twice (decision 0096):
 * whatever the order, the mandate's repository must end in the rows the notices make in order, and
 * report each failed attempt once. The sights are the simulator's own (getMandate / getMandateCharge
 * after each step of a payer's persona, the later-day retries asked as the workflow does); each run
 * writes them in order for one subscription and in a random order, with duplicates, for another.
 */
let orm: Orm;
let sim: SimulatedGateway;
let organizationId: string;
beforeAll(async () => {
  orm = await openOrm(TEST_DATABASE_URL, 4);
  sim = new SimulatedGateway(orm);
  organizationId = (await makeOrganization(orm)).id;
});
afterAll(async () => {
  await orm.close();
});

const DAY = 86_400_000;
const NOW = new Date('2140-01-01T12:00:00.000Z');

type Sight = { mandate: GatewayMandate } | { charge: GatewayMandateCharge; retriesRequested: number };

const plusDays = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY).toISOString().slice(0, 10);
/** Noon in Brasília of a date, as the simulator's clock. */
const noonOf = (date: string) => new Date(`${date}T15:00:00.000Z`);

/** Drives the simulator through a payer's cycle; every sight of the mandate and its charge, in order. */
async function sightsOf(
  subscriptionId: string,
  scenario: { persona: PixPayerPersona; dueDate: string; retries: number; revokes: boolean },
): Promise<{ sights: Sight[]; mandateId: string; chargeId: string | null }> {
  const sights: Sight[] = [];
  const { dueDate } = scenario;
  sim.now = () => noonOf(plusDays(dueDate, -4));
  const created = await sim.createMandate(
    {
      reference: subscriptionId,
      objectLabel: 'Club mensal',
      debtor: { name: 'Ana Souza', taxId: '12345678909' },
      startDate: dueDate,
      endDate: null,
      periodicity: 'monthly',
      fixedAmount: null,
      minimumAmount: null,
      retryPolicy: 'three_in_seven_days',
      journey: 'journey_2',
    },
    `test:mandate:${subscriptionId}`,
  );
  sights.push({ mandate: created });
  const answered = await sim.authorizeMandate(created.id, scenario.persona);
  sights.push({ mandate: answered });
  if (answered.status !== 'approved') return { sights, mandateId: created.id, chargeId: null };

  const key = mandateChargeKey(subscriptionId, 2);
  let charge = await sim.createMandateCharge(
    { mandateId: created.id, reference: key, dueDate, amount: 4_990, description: 'Período 2' },
    key,
  );
  let retriesRequested = 0;
  const seeBoth = async () => {
    charge = (await sim.getMandateCharge(charge.id))!;
    sights.push({ charge, retriesRequested }, { mandate: (await sim.getMandate(created.id))! });
  };
  sights.push({ charge, retriesRequested });
  const settles = bankingDayOnOrAfter(dueDate);
  await sim.settleMandateCharges(settles);
  await seeBoth();
  // The retries the workflow would ask: banking days after the settlement date, within seven days.
  const retryDays = Array.from({ length: 7 }, (_, i) => plusDays(settles, i + 1)).filter(isBankingDay);
  for (const day of retryDays.slice(0, scenario.retries)) {
    sim.now = () => noonOf(plusDays(day, -1));
    try {
      charge = await sim.retryMandateCharge(charge.id, day, `${key}:retry:${retriesRequested + 1}`);
    } catch {
      break; // paid, or ended: no retry
    }
    retriesRequested++;
    sights.push({ charge, retriesRequested });
    await sim.settleMandateCharges(day);
    await seeBoth();
  }
  await sim.settleMandateCharges(plusDays(settles, 8));
  await seeBoth();
  if (scenario.revokes && (await sim.getMandate(created.id))!.status === 'approved') {
    sights.push({ mandate: await sim.revokeMandate(created.id) });
  }
  return { sights, mandateId: created.id, chargeId: charge.id };
}

/** The same sights for another subscription: the gateway's ids and our reference relabelled. */
function relabel(sights: Sight[], from: string[], to: string[]): Sight[] {
  let json = JSON.stringify(sights);
  from.forEach((id, i) => (json = json.replaceAll(id, to[i]!)));
  return JSON.parse(json) as Sight[];
}
const otherId = (id: string) => `QB${id.slice(2)}`;

/** Writes sights as the notices' handler and the activities do; the failed attempts newly reported. */
async function write(owner: { subscriptionId: string; customerId: string }, sights: Sight[]): Promise<number> {
  let failures = 0;
  for (const sight of sights) {
    await orm.em.fork().transactional(async (tx) => {
      if ('mandate' in sight) {
        await upsertMandate(tx, { organizationId, currency: 'brl', ...owner, gateway: sight.mandate }, NOW);
        return;
      }
      const mandate = (await mandateOfGateway(tx, sight.charge.mandateId))!;
      const written = await upsertMandateCharge(
        tx,
        {
          organizationId,
          mandateId: mandate.id,
          subscriptionId: owner.subscriptionId,
          period: 2,
          settlementDate: bankingDayOnOrAfter(sight.charge.dueDate),
          retriesRequested: sight.retriesRequested,
          gateway: sight.charge,
        },
        NOW,
      );
      failures += written.newFailures.length;
    });
  }
  return failures;
}

/** What a reader of our rows sees of the mandate and its charge. */
async function rowsOf(gatewayMandateId: string) {
  const sql = (q: string, p: unknown[]) => orm.em.getConnection().execute(q, p);
  const mandate = (
    await sql(
      `select status, history, approved_at, ended_at, payer_maximum, cancelled_by, cancellation_code, rejection_code
     from mandates where gateway_mandate_id = ?`,
      [gatewayMandateId],
    )
  )[0]!;
  const charges = await sql(
    `select c.status, c.attempts, c.failure_reason, c.retries_requested, c.paid_at, c.amount::int as amount
     from mandate_charges c join mandates m on m.id = c.mandate_id where m.gateway_mandate_id = ?`,
    [gatewayMandateId],
  );
  return { mandate, charges };
}

let nextDay = 0;
const scenario = fc.record({
  persona: fc.constantFrom<PixPayerPersona>(
    'approves',
    'no_funds_morning',
    'no_funds_until_retry',
    'closed_account',
    'lowers_maximum',
    'rejects_authorization',
  ),
  retries: fc.integer({ min: 0, max: 3 }),
  revokes: fc.boolean(),
  /** Sort keys of the sights and the duplicated ones: a random order with repeats. */
  keys: fc.array(fc.nat(), { minLength: 64, maxLength: 64 }),
  duplicates: fc.array(fc.nat(), { maxLength: 12 }),
});

describe('mandate notices in any order', () => {
  it('end in the rows the notices make in order, and report each failed attempt once', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        // A due date of its own each run (weekends and holidays among them).
        const dueDate = new Date(NOW.getTime() + (30 + 11 * nextDay++) * DAY).toISOString().slice(0, 10);
        const a = await seedSubscription(orm, organizationId);
        const b = await seedSubscription(orm, organizationId);
        const { sights, mandateId, chargeId } = await sightsOf(a.subscriptionId, { ...s, dueDate });
        const ids = [mandateId, ...(chargeId ? [chargeId] : []), a.subscriptionId];
        const relabelled = relabel(sights, ids, [
          otherId(mandateId),
          ...(chargeId ? [otherId(chargeId)] : []),
          b.subscriptionId,
        ]);
        // Any order, some twice; the mandate's first sight comes first (it is ours before any charge).
        const picks = [...relabelled.keys(), ...s.duplicates.map((d) => d % relabelled.length)];
        const shuffled = picks
          .map((index, i) => ({ index, key: s.keys[i % s.keys.length]! }))
          .sort((x, y) => x.key - y.key)
          .map(({ index }) => relabelled[index]!);

        const inOrder = await write(a, sights);
        const anyOrder = await write(b, [relabelled[0]!, ...shuffled]);

        const [ordered, shuffledRows] = [await rowsOf(mandateId), await rowsOf(otherId(mandateId))];
        expect(shuffledRows).toEqual(ordered);
        // The rows say what the gateway last said.
        const lastMandate = [...sights].reverse().find((x) => 'mandate' in x) as { mandate: GatewayMandate };
        expect(ordered.mandate.status).toBe(lastMandate.mandate.status);
        const failed = chargeId
          ? (await sim.getMandateCharge(chargeId))!.attempts.filter(
              (x) => x.status === 'rejected' || x.status === 'expired',
            ).length
          : 0;
        if (chargeId) {
          const final = (await sim.getMandateCharge(chargeId))!;
          const [ours] = ordered.charges;
          expect(ordered.charges).toHaveLength(1);
          expect(ours!.status).toBe(final.status);
          expect(ours!.attempts.map((x: { status: string }) => x.status)).toEqual(final.attempts.map((x) => x.status));
        }
        // Each failed attempt reported once, in order or not.
        expect({ inOrder, anyOrder }).toEqual({ inOrder: failed, anyOrder: failed });
      }),
      { numRuns: 40, seed: 20_260_035, endOnFailure: true },
    );
  }, 120_000);
});
