import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { uuidv7 } from 'uuidv7';
import { openOrm, type Orm } from '../../db/orm.ts';
import type { MandateInput } from '../../gateway/port.ts';
// The package by path: node_modules' @billing/simulated-gateway is main's copy (helper brief).
import { migrateSimulator } from '../../packages/simulated-gateway/src/migrate.ts';
import { SimulatedGateway } from '../../packages/simulated-gateway/src/simulator.ts';
import { TEST_DATABASE_URL } from '../helpers/env.ts';

/**
 * The sandbox's bank settles one merchant's charges when told which mandates are theirs (the API's
 * POST /sandbox/mandate-charges/settle): another merchant's charge due the same day stays open.
 */
let orm: Orm;
let sim: SimulatedGateway;
beforeAll(async () => {
  orm = await openOrm(TEST_DATABASE_URL, 5);
  await migrateSimulator(orm);
  sim = new SimulatedGateway(orm);
});
afterAll(async () => {
  await sim.settleCallbacks();
  await orm.close();
});

const key = () => `test:settle-scope:${uuidv7()}`;
const on = (date: string) => {
  sim.now = () => new Date(`${date}T12:00:00Z`);
};
const input = (): MandateInput => ({
  reference: uuidv7(),
  objectLabel: 'Plano Mensal',
  debtor: { name: 'Ana Souza', taxId: '12345678909', email: 'ana@example.com' },
  startDate: '2026-03-10',
  endDate: null,
  periodicity: 'monthly',
  fixedAmount: 4_990,
  minimumAmount: null,
  retryPolicy: 'three_in_seven_days',
  journey: 'journey_2',
});

/** An approved mandate with a charge due on 10 March 2026 (a Tuesday), sent on the 6th. */
async function chargeDueTenthOfMarch() {
  on('2026-03-01');
  const mandate = await sim.authorizeMandate((await sim.createMandate(input(), key())).id, 'approves');
  on('2026-03-06');
  const charge = await sim.createMandateCharge(
    { mandateId: mandate.id, reference: uuidv7(), dueDate: '2026-03-10', amount: 4_990 },
    key(),
  );
  return { mandate, charge };
}

it("settles only the named mandates' charges; none when the list is empty", async () => {
  const ours = await chargeDueTenthOfMarch();
  const theirs = await chargeDueTenthOfMarch();
  const status = async (id: string) => (await sim.getMandateCharge(id))!.status;

  expect(await sim.settleMandateCharges('2026-03-10', [])).toEqual([]);
  expect([await status(ours.charge.id), await status(theirs.charge.id)]).toEqual(['active', 'active']);

  const settled = await sim.settleMandateCharges('2026-03-10', [ours.mandate.id]);
  expect(settled.map((c) => [c.id, c.status])).toEqual([[ours.charge.id, 'completed']]);
  expect(await status(theirs.charge.id)).toBe('active');
  // Without a list, every mandate's (the subscription workflows' own settling).
  await sim.settleMandateCharges('2026-03-10');
  expect(await status(theirs.charge.id)).toBe('completed');
});
