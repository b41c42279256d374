import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { FastifyInstance } from 'fastify';
import { openOrm, type Orm } from '../../db/orm.ts';
import { HttpGateway } from '../../gateway/http-adapter.ts';
import type { CardChargeInput, LedgerWindow } from '../../gateway/port.ts';
import { buildGatewayServer, GatewayFaults } from '@billing/simulated-gateway/server';
import { SimulatedGateway } from '@billing/simulated-gateway';
import { TEST_DATABASE_URL } from '../helpers/env.ts';
import { unique } from '../helpers/fixtures.ts';

/**
 * The simulator's ledger (decision 0073), read over its HTTP protocol (`GET /v1/ledger`) by the
 * HTTP adapter: its fee schedule (card 3.99 % in one instalment, 4.99 % in several, pix 0.99 %,
 * boleto R$ 3,49) and its release calendar (one instalment on the day; n instalments each 30 days
 * apart, the first on the day), worked out by hand. The test database is shared by the run's
 * files, so rows are picked by this file's payment ids.
 */
const API_KEY = 'gw_test_key_ledger_0123';
const DAY = 86_400_000;
let orm: Orm;
let server: FastifyInstance;
let gateway: HttpGateway;

beforeAll(async () => {
  orm = await openOrm(TEST_DATABASE_URL, 5);
  const simulator = new SimulatedGateway(orm);
  server = buildGatewayServer({ gateway: simulator, apiKey: API_KEY, faults: new GatewayFaults(), sandbox: simulator });
  await server.listen({ host: '127.0.0.1', port: 0 });
  const address = server.server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  gateway = new HttpGateway({ baseUrl: `http://127.0.0.1:${address.port}`, apiKey: API_KEY, timeoutMs: 5000 });
});

afterAll(async () => {
  await server.close();
  await orm.close();
});

const charge = (amount: number, installments: number): CardChargeInput => ({
  reference: unique('ledger'),
  amount,
  currency: 'BRL',
  installments,
  noFeesInstallments: true,
  capture: true,
  card: { number: '4111111111111111', holderName: 'APRO', expirationMonth: '12', expirationYear: '2035', cvv: '123' },
});

const dayOf = (at: Date, plusDays = 0): LedgerWindow => {
  const from = new Date(new Date(at.toISOString().slice(0, 10)).getTime() + plusDays * DAY);
  return { from, to: new Date(from.getTime() + DAY) };
};

describe('the simulator keeps a ledger of fees, releases and refunds', () => {
  it('reports a day’s money as the fee schedule and release calendar say, over its protocol', async () => {
    const once = await gateway.chargeCard(charge(10_000, 1), unique('key'));
    const thrice = await gateway.chargeCard(charge(30_001, 3), unique('key'));
    await gateway.refund(once.id, 2_500, unique('key'));
    const mine = (rows: Awaited<ReturnType<HttpGateway['ledger']>>) =>
      rows
        .filter((r) => r.gatewayId === once.id || r.gatewayId === thrice.id)
        .map((r) => [r.gatewayId === once.id ? 'once' : 'thrice', r.kind, r.amount, r.installment ?? null]);

    const today = dayOf(new Date());
    expect(mine(await gateway.ledger(today))).toEqual([
      ['once', 'payment', 10_000, null],
      // 3.99 % of R$ 100,00.
      ['once', 'fee', -399, null],
      // The first of three shares of 300,01 (the odd cent on it), released on the day.
      ['thrice', 'payment', 10_001, { number: 1, of: 3 }],
      // 4.99 % of R$ 300,01 = 14,970499 → 14,97.
      ['thrice', 'fee', -1_497, null],
      ['once', 'refund', -2_500, null],
    ]);
    expect(mine(await gateway.ledger(dayOf(new Date(), 30)))).toEqual([
      ['thrice', 'payment', 10_000, { number: 2, of: 3 }],
    ]);
    expect(mine(await gateway.ledger(dayOf(new Date(), 60)))).toEqual([
      ['thrice', 'payment', 10_000, { number: 3, of: 3 }],
    ]);
    expect(mine(await gateway.ledger(dayOf(new Date(), 1)))).toEqual([]);
  });
});
