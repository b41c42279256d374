import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { FastifyInstance } from 'fastify';
import { request } from 'undici';
import { uuidv7 } from 'uuidv7';
import type { Orm } from '../../db/orm.ts';
import { offersSandboxPixAutomatico } from '../../gateway/capabilities.ts';
import { GatewayHttpError, type HttpGateway } from '../../gateway/http-adapter.ts';
import type { MandateInput } from '../../gateway/port.ts';
import type { SimulatedGateway } from '../../packages/simulated-gateway/src/simulator.ts';
import { mandateInputOf, openSimulator, pixKey, serveSimulator, setSimDate } from './pix-automatico-setup.ts';

/**
 * Pix Automático over HTTP: the HTTP adapter against the simulated-gateway server (which speaks the
 * BCB's Pix API, test/gateway/simulator-bcb-wire.test.ts) answers what the embedded simulator answers
 * (mandates, charges, attempts and their nested records, key for key), refusals stay final, and the
 * sandbox's payer and bank work over the wire.
 */
const API_KEY = 'gw_test_key_pix_automatico_0123456789';
let orm: Orm;
let sim: SimulatedGateway;
let server: FastifyInstance;
let baseUrl: string;
let http: HttpGateway;

beforeAll(async () => {
  ({ orm, sim } = await openSimulator(4));
  ({ server, baseUrl, http } = await serveSimulator(sim, API_KEY));
});
afterEach(() => {
  sim.now = () => new Date();
});
afterAll(async () => {
  await server.close();
  await orm.close();
});

const key = (label: string) => pixKey('http-pix-automatico', label);
const on = (date: string) => setSimDate(sim, date);
const mandateInput = (overrides: Partial<MandateInput> = {}): MandateInput => mandateInputOf(overrides);

describe('Pix Automático through the HTTP adapter', () => {
  it('offers the sandbox; a mandate and its charge read the same over HTTP as embedded', async () => {
    expect(offersSandboxPixAutomatico(http)).toBe(true);
    on('2026-03-01');
    const mandateKey = key('mandate');
    const input = mandateInput();
    const created = await http.createMandate(input, mandateKey);
    expect((await http.createMandate(input, mandateKey)).id).toBe(created.id);
    const approved = await http.authorizeMandate(created.id, 'no_funds_until_retry');
    expect(approved.status).toBe('approved');
    expect(await http.getMandate(created.id)).toEqual(await sim.getMandate(created.id));

    on('2026-03-06');
    const charge = await http.createMandateCharge(
      { mandateId: created.id, reference: uuidv7(), dueDate: '2026-03-10', amount: 4_990 },
      key('charge'),
    );
    expect(charge.attempts[0]).toMatchObject({ settlementDate: '2026-03-10', status: 'scheduled' });
    const settled = await http.settleMandateCharges('2026-03-10');
    expect(settled.find((c) => c.id === charge.id)?.attempts[0]?.status).toBe('expired');
    await http.retryMandateCharge(charge.id, '2026-03-11', key('retry'));
    await http.settleMandateCharges('2026-03-11');
    const paid = (await http.getMandateCharge(charge.id))!;
    expect(paid.status).toBe('completed');
    expect(paid.attempts.map((a) => a.status)).toEqual(['expired', 'paid']);
    expect(paid).toEqual(await sim.getMandateCharge(charge.id));
    expect(await http.getMandateCharge('0000000000000000000000000000')).toBeNull();
  });

  it('a refusal is final (400, the BCB’s CobROperacaoInvalida), and the receiver and payer cancel over HTTP', async () => {
    on('2026-03-01');
    const mandate = await http.createMandate(mandateInput(), key('mandate'));
    await http.authorizeMandate(mandate.id, 'approves');
    on('2026-03-06');
    const err = await http
      .createMandateCharge(
        { mandateId: mandate.id, reference: uuidv7(), dueDate: '2026-03-10', amount: 5_000 },
        key('c'),
      )
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(GatewayHttpError);
    expect(err).toMatchObject({ status: 400, type: 'CobROperacaoInvalida', retryable: false });
    const charge = await http.createMandateCharge(
      { mandateId: mandate.id, reference: uuidv7(), dueDate: '2026-03-10', amount: 4_990 },
      key('charge'),
    );
    expect((await http.cancelMandateCharge(charge.id, key('cancel'))).status).toBe('cancelled');
    const lowered = await http.setPayerMaximum(mandate.id, 3_000);
    expect(lowered.payerMaximum).toBe(3_000);
    expect(await http.revokeMandate(mandate.id)).toMatchObject({
      status: 'cancelled',
      cancellation: { code: 'SLDB', by: 'payer' },
    });
  });

  it('journey 3 over HTTP: the first charge is an ordinary pix; journey 1 carries its request', async () => {
    on('2026-03-01');
    const third = await http.createMandate(
      mandateInput({ journey: 'journey_3', firstCharge: { amount: 4_990, expiresInSeconds: 3600 } }),
      key('mandate'),
    );
    expect((await http.getTransaction(third.firstPaymentId!))?.status).toBe('pending');
    expect((await http.authorizeMandate(third.id, 'approves')).status).toBe('approved');
    expect((await http.getTransaction(third.firstPaymentId!))?.status).toBe('succeeded');
    const first = await http.createMandate(
      mandateInput({ journey: 'journey_1', requestExpiresAt: '2026-03-05T12:00:00.000Z' }),
      key('mandate'),
    );
    expect(first.request).toMatchObject({ status: 'sent', expiresAt: '2026-03-05T12:00:00.000Z' });
    expect((await http.cancelMandate(first.id, key('cancel'))).cancellation).toMatchObject({ code: 'SLCR' });
  });

  it('POST /v1/_faults turns the reordered, repeated notices on, and the next one off', async () => {
    const faults = async (body: object) => {
      const res = await request(`${baseUrl}/v1/_faults`, {
        method: 'POST',
        headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      await res.body.dump();
      return res.statusCode;
    };
    expect(await faults({ mandate_notices_twice_reversed: true })).toBe(200);
    expect(sim.faults.mandateNoticesTwiceReversed).toBe(true);
    expect(await faults({})).toBe(200);
    expect(sim.faults.mandateNoticesTwiceReversed).toBe(false);
  });

  it('a body the protocol does not allow is a 400, before the simulator sees it', async () => {
    const res = await request(`${baseUrl}/v2/rec`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json', 'idempotency-key': 'k1' },
      body: JSON.stringify({ reference: 'x', periodicity: 'daily' }),
    });
    expect(res.statusCode).toBe(400);
    await res.body.dump();
  });
});
