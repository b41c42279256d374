import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { openOrm, type Orm } from '../../db/orm.ts';
import { SimulatedGateway } from '@billing/simulated-gateway';
import { TEST_DATABASE_URL } from '../helpers/env.ts';
import { capturedCardCharge } from '../helpers/gateway-server.ts';
import { unique } from '../helpers/fixtures.ts';

/**
 * A disputed payment shows its dispute (decision 0079), as Mercado Pago shows a payment `in_mediation`
 * while disputed and `charged_back` once lost: the simulator answers `dispute` while a chargeback is
 * open, `charged_back` once one is lost, and as its refunds leave it once won. Only the disputed money
 * is held from a refund; the rest can still be given back, and the payment still shows its dispute.
 */
let orm: Orm;
let sim: SimulatedGateway;

beforeAll(async () => {
  orm = await openOrm(TEST_DATABASE_URL, 3);
  sim = new SimulatedGateway(orm);
});
afterAll(async () => {
  await orm.close();
});

/** A captured card payment of R$ 100,00, and the key it was charged under. */
async function paid() {
  const key = unique('key');
  const t = await sim.chargeCard(capturedCardCharge('disputed'), key);
  expect(t.status).toBe('succeeded');
  return { id: t.id, key };
}
const statusOf = async (id: string) => (await sim.getTransaction(id))?.status;

describe('a disputed payment at the simulator', () => {
  it('is in dispute while the chargeback is open, then charged back once it is lost', async () => {
    const { id, key } = await paid();
    const opened = await sim.openChargeback(id);
    expect(await statusOf(id)).toBe('dispute');
    // The payment looked up by its charge's key says the same.
    expect((await sim.findTransactionByIdempotencyKey(key))?.status).toBe('dispute');
    await expect(sim.refund(id, 100, unique('key'))).rejects.toThrow('refund exceeds captured amount');
    await sim.decideChargeback(opened.id, 'lost');
    expect(await sim.getTransaction(id)).toMatchObject({ status: 'charged_back', capturedAmount: 10_000 });
    await expect(sim.refund(id, 100, unique('key'))).rejects.toThrow('refund exceeds captured amount');
  });

  it('succeeded again once won', async () => {
    const { id } = await paid();
    const opened = await sim.openChargeback(id);
    await sim.decideChargeback(opened.id, 'won');
    expect(await statusOf(id)).toBe('succeeded');
  });

  it('partly disputed: the rest is refunded meanwhile, and once won it is partly refunded', async () => {
    const { id } = await paid();
    const opened = await sim.openChargeback(id, 4_000);
    const refunded = await sim.refund(id, 1_000, unique('key'));
    expect(refunded).toMatchObject({ status: 'dispute', refundedAmount: 1_000 });
    await sim.decideChargeback(opened.id, 'won');
    expect(await statusOf(id)).toBe('partial_refunded');
  });

  it('partly charged back: what the dispute left is refunded, and the payment stays charged back', async () => {
    const { id } = await paid();
    const opened = await sim.openChargeback(id, 4_000);
    await sim.decideChargeback(opened.id, 'lost');
    await expect(sim.refund(id, 6_001, unique('key'))).rejects.toThrow('refund exceeds captured amount');
    expect(await sim.refund(id, 6_000, unique('key'))).toMatchObject({ status: 'charged_back', refundedAmount: 6_000 });
    expect(await statusOf(id)).toBe('charged_back');
  });
});
