import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { FastifyInstance } from 'fastify';
import { openOrm, type Orm } from '../../db/orm.ts';
import { HttpGateway } from '../../gateway/http-adapter.ts';
import { buildGatewayServer, GatewayFaults } from '@billing/simulated-gateway/server';
import { SimulatedGateway } from '@billing/simulated-gateway';
import { freePort } from '../../scripts/processes.ts';

/**
 * The standalone simulated gateway whose PostgreSQL is down (nothing listens at its address): every
 * call is a 503, which the HTTP adapter treats as retryable, never a 500.
 */
const API_KEY = 'gw_db_down_0123456789';
let orm: Orm;
let server: FastifyInstance;
let gateway: HttpGateway;

beforeAll(async () => {
  orm = await openOrm(`postgres://postgres@127.0.0.1:${await freePort()}/nowhere`, 1, { connectTimeoutMs: 500 });
  const simulator = new SimulatedGateway(orm);
  server = buildGatewayServer({ gateway: simulator, apiKey: API_KEY, faults: new GatewayFaults(), sandbox: simulator });
  await server.listen({ host: '127.0.0.1', port: 0 });
  const address = server.server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  gateway = new HttpGateway({ baseUrl: `http://127.0.0.1:${address.port}`, apiKey: API_KEY, timeoutMs: 5000 });
});
afterAll(async () => {
  await server?.close();
  await orm?.close();
});

describe('the simulated gateway with its database down', () => {
  it('answers 503 (retryable), not 500', async () => {
    const err = await gateway.getTransaction('tx_anything').then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ retryable: true, status: 503 });
  });
});
