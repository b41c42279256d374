import { afterAll, beforeAll } from '@jest/globals';
import type { FastifyInstance } from 'fastify';
import { request } from 'undici';
import { openOrm, type Orm } from '../../db/orm.ts';
import { HttpGateway } from '../../gateway/http-adapter.ts';
import type { CardChargeInput } from '../../gateway/port.ts';
import { buildGatewayServer } from '@billing/simulated-gateway/server';
import { SimulatedGateway } from '@billing/simulated-gateway';
import { TEST_DATABASE_URL } from './env.ts';
import { unique } from './fixtures.ts';

export interface GatewayServerStack {
  sim: SimulatedGateway;
  /** The simulated-gateway server's address (its sandbox routes included). */
  baseUrl: string;
  /** The HTTP adapter, talking to that server. */
  http: HttpGateway;
}

/**
 * A test file's simulator and the simulated-gateway server over it, with the HTTP adapter pointed at
 * it: started before its tests (`started` hands them over), closed after them.
 */
export function useGatewayServer(apiKey: string, started: (stack: GatewayServerStack) => void): void {
  let orm: Orm | null = null;
  let server: FastifyInstance | null = null;
  beforeAll(async () => {
    orm = await openOrm(TEST_DATABASE_URL, 4);
    const sim = new SimulatedGateway(orm);
    server = buildGatewayServer({ gateway: sim, apiKey, sandbox: sim });
    await server.listen({ host: '127.0.0.1', port: 0 });
    const address = server.server.address();
    if (!address || typeof address === 'string') throw new Error('no address');
    const baseUrl = `http://127.0.0.1:${address.port}`;
    started({ sim, baseUrl, http: new HttpGateway({ baseUrl, apiKey, timeoutMs: 5000 }) });
  });
  afterAll(async () => {
    await server?.close();
    await orm?.close();
  });
}

/** A POST to the simulated-gateway server's sandbox routes (`/v1/_sandbox…`): its status and JSON body. */
export async function sandboxCall(baseUrl: string, apiKey: string, path: string, body: unknown) {
  const res = await request(`${baseUrl}/v1/_sandbox${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.statusCode, body: (await res.body.json()) as any };
}

/** A card charge of R$ 100,00 in one instalment, captured at once, under a reference of its own. */
export const capturedCardCharge = (referencePrefix: string): CardChargeInput => ({
  reference: unique(referencePrefix),
  amount: 10_000,
  currency: 'BRL',
  installments: 1,
  noFeesInstallments: false,
  card: { number: '4111111111111111', holderName: 'ANA', expirationMonth: '12', expirationYear: '2035', cvv: '123' },
  capture: true,
});
