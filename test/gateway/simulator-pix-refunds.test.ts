import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { uuidv7 } from 'uuidv7';
import type { Orm } from '../../db/orm.ts';
import { GatewayError, type GatewayMandate } from '../../gateway/port.ts';
import type { SimulatedGateway } from '../../packages/simulated-gateway/src/simulator.ts';
import { mandateInputOf, openSimulator, pixKey, setSimDate } from './pix-automatico-setup.ts';

/**
 * Refunds of paid Pix Automático charges at the simulator (decision 0099): the paid attempt's pix
 * devolução, in part and repeated, never more than was paid, never of a charge not paid. The money is
 * read from the simulator's own table (gateway_sim.mandate_refunds).
 */
let orm: Orm;
let sim: SimulatedGateway;

beforeAll(async () => {
  ({ orm, sim } = await openSimulator(3));
});
afterAll(async () => {
  await sim.settleCallbacks();
  await orm.close();
});

const key = (label: string) => pixKey('pix-refunds', label);

async function approvedMandate(): Promise<GatewayMandate> {
  setSimDate(sim, '2026-03-01');
  const created = await sim.createMandate(mandateInputOf(), key('mandate'));
  return sim.authorizeMandate(created.id, 'approves');
}

async function chargeDue(mandate: GatewayMandate, dueDate: string) {
  setSimDate(sim, new Date(Date.parse(`${dueDate}T12:00:00Z`) - 4 * 86_400_000).toISOString().slice(0, 10));
  return sim.createMandateCharge({ mandateId: mandate.id, reference: uuidv7(), dueDate, amount: 4_990 }, key('charge'));
}

async function refusal(promise: Promise<unknown>): Promise<GatewayError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(GatewayError);
  expect((err as GatewayError).retryable).toBe(false);
  return err as GatewayError;
}

/** What the simulator gave back of a charge, by amount (its clock is fixed here, so their times tie). */
const given = async (chargeId: string) =>
  (await sim.mandateChargeRefunds(chargeId)).map((r) => [r.amount, r.status]).sort((a, b) => +a[0]! - +b[0]!);

describe('refunds of a paid mandate charge', () => {
  it('gives back in parts up to what was paid; a repeated key answers the first; more is refused', async () => {
    const charge = await chargeDue(await approvedMandate(), '2026-03-10');
    await sim.settleMandateCharges('2026-03-10');
    const paid = (await sim.getMandateCharge(charge.id))!;
    expect(paid.status).toBe('completed');

    const firstKey = key('refund');
    const first = await sim.refundMandateCharge(charge.id, 1_000, firstKey);
    expect(first).toMatchObject({
      chargeId: charge.id,
      endToEndId: paid.attempts[0]!.endToEndId,
      amount: 1_000,
      status: 'refunded',
    });
    // The same key again (a retry after a lost answer), even with another amount: the first refund.
    expect(await sim.refundMandateCharge(charge.id, 1_000, firstKey)).toEqual(first);
    expect(await sim.refundMandateCharge(charge.id, 4_990, firstKey)).toEqual(first);

    const over = await refusal(sim.refundMandateCharge(charge.id, 3_991, key('refund')));
    expect(over.message).toContain('3990 cents are left');
    await sim.refundMandateCharge(charge.id, 3_990, key('refund'));
    await refusal(sim.refundMandateCharge(charge.id, 1, key('refund')));
    expect(await given(charge.id)).toEqual([
      [1_000, 'refunded'],
      [3_990, 'refunded'],
    ]);
  });

  it('refuses a charge not paid (scheduled, or refused by the payer’s bank) and one it does not know', async () => {
    const mandate = await approvedMandate();
    const scheduled = await chargeDue(mandate, '2026-03-10');
    expect((await refusal(sim.refundMandateCharge(scheduled.id, 100, key('refund')))).message).toContain('not paid');
    await sim.cancelMandateCharge(scheduled.id, key('cancel'));
    await refusal(sim.refundMandateCharge(scheduled.id, 100, key('refund')));
    await refusal(sim.refundMandateCharge('UNKNOWNCHARGE0000000000000000', 100, key('refund')));
    await refusal(sim.refundMandateCharge(scheduled.id, 0, key('refund')));
    expect(await given(scheduled.id)).toEqual([]);
  });
});
