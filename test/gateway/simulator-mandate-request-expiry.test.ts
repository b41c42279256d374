import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { FastifyInstance } from 'fastify';
import { createServer, type Server } from 'node:http';
import { request } from 'undici';
import type { Orm } from '../../db/orm.ts';
import { GatewayError, type GatewayCallback } from '../../gateway/port.ts';
import type { SimulatedGateway } from '../../packages/simulated-gateway/src/simulator.ts';
import { mandateInputOf, openSimulator, pixKey, serveSimulator, setSimDate } from './pix-automatico-setup.ts';

/**
 * A journey 1 request (the BCB's solicrec) nobody answers expires on its own at the simulator, as at a
 * real PSP: the first read past its expiry on the simulator's clock (not wall time) shows the rec and
 * its request EXPIRADA, notified once; the receiver can no longer cancel it.
 */
const API_KEY = 'gw_test_key_request_expiry_0123456789';
let orm: Orm;
let sim: SimulatedGateway;
let gatewayServer: FastifyInstance;
let baseUrl: string;
let callbackServer: Server;
const received: GatewayCallback[] = [];

beforeAll(async () => {
  ({ orm, sim } = await openSimulator(4));
  ({ server: gatewayServer, baseUrl } = await serveSimulator(sim, API_KEY));
  callbackServer = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push(JSON.parse(body) as GatewayCallback);
      res.statusCode = 204;
      res.end();
    });
  });
  await new Promise<void>((resolve) => callbackServer.listen(0, '127.0.0.1', resolve));
  const { port } = callbackServer.address() as { port: number };
  sim.callbacks.callbackUrl = `http://127.0.0.1:${port}/callbacks`;
  sim.callbacks.callbackSecret = 'request-expiry-notices';
});
afterEach(() => {
  sim.now = () => new Date();
});
afterAll(async () => {
  await sim.settleCallbacks();
  await gatewayServer.close();
  await new Promise((resolve) => callbackServer.close(resolve));
  await orm.close();
});

const key = (label: string) => pixKey('request-expiry', label);
const on = (date: string) => setSimDate(sim, date);

/** A journey 1 mandate made on 2026-03-01 whose request expires on 2026-03-02 at noon UTC. */
async function requestExpiringOnMarch2() {
  on('2026-03-01');
  const input = mandateInputOf({ journey: 'journey_1', requestExpiresAt: '2026-03-02T12:00:00.000Z' });
  return sim.createMandate(input, key('mandate'));
}

const recOverHttp = async (id: string) => {
  const res = await request(`${baseUrl}/v2/rec/${id}`, { headers: { authorization: `Bearer ${API_KEY}` } });
  return { status: res.statusCode, body: (await res.body.json()) as Record<string, any> };
};

describe('a journey 1 request nobody answers', () => {
  it('reads as created before its expiry, and expired (with its request) on the first read after it', async () => {
    const mandate = await requestExpiringOnMarch2();
    // Wall time is long past 2026-03-02: only the simulator's clock counts.
    on('2026-03-02');
    sim.now = () => new Date('2026-03-02T11:59:59.000Z');
    expect(await sim.getMandate(mandate.id)).toMatchObject({ status: 'created', request: { status: 'sent' } });

    sim.now = () => new Date('2026-03-02T12:00:00.000Z');
    const expired = await sim.getMandate(mandate.id);
    expect(expired).toMatchObject({ status: 'expired', request: { status: 'expired' } });
    expect(expired!.history.map((h) => h.status)).toEqual(['created', 'expired']);
    // Read again (and later): the same, not expired twice.
    on('2026-03-05');
    expect(await sim.getMandate(mandate.id)).toEqual(expired);

    await sim.settleCallbacks();
    const notices = received.filter((n) => n.mandateId === mandate.id);
    expect(notices.map((n) => `${n.type}:${n.status}`)).toEqual(['mandate.updated:expired']);
  });

  it('over the BCB API, GET /v2/rec/{idRec} past its expiry shows the rec and its solicrec EXPIRADA', async () => {
    const mandate = await requestExpiringOnMarch2();
    const before = await recOverHttp(mandate.id);
    expect(before.status).toBe(200);
    expect(before.body.status).toBe('CRIADA');

    on('2026-03-03');
    const after = await recOverHttp(mandate.id);
    expect(after.status).toBe(200);
    expect(after.body.status).toBe('EXPIRADA');
    expect(after.body.solicitacao).toEqual([expect.objectContaining({ status: 'EXPIRADA' })]);
    expect(await sim.getMandate(mandate.id)).toMatchObject({ status: 'expired', request: { status: 'expired' } });
  });

  it('the receiver cannot cancel an expired request (it is not turned into a cancellation)', async () => {
    const mandate = await requestExpiringOnMarch2();
    on('2026-03-04');
    const err = await sim.cancelMandate(mandate.id, key('cancel')).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(GatewayError);
    expect((err as GatewayError).retryable).toBe(false);
    expect(await sim.getMandate(mandate.id)).toMatchObject({ status: 'expired', cancellation: null });
  });
});
