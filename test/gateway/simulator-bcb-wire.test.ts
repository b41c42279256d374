import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { FastifyInstance } from 'fastify';
import { createServer, type Server } from 'node:http';
import { request } from 'undici';
import { uuidv7 } from 'uuidv7';
import { z } from 'zod';
import type { Orm } from '../../db/orm.ts';
import {
  bcbCancelamento,
  bcbCobGerada,
  bcbCobRSolicitada,
  bcbCobSolicitada,
  bcbCobVGerada,
  bcbCobVSolicitada,
  bcbRecSolicitada,
  bcbSolicRecSolicitada,
  bcbWebhookSolicitado,
} from '../../gateway/bcb-pix-automatico-requests.ts';
import {
  bcbCobRCompleta,
  bcbDevolucao,
  bcbDevolucaoSolicitada,
  bcbLocRec,
  bcbRecCompleta,
  bcbSolicRecCompleta,
  bcbWebhookCobRBody,
  bcbWebhookRecBody,
} from '../../gateway/bcb-pix-automatico-schemas.ts';
import { GatewayHttpError, type HttpGateway } from '../../gateway/http-adapter.ts';
import { bcbProblema } from '../../gateway/bcb-pix-problems.ts';
import type { GatewayMandate, MandateInput, PixPayerPersona } from '../../gateway/port.ts';
import type { SimulatedGateway } from '../../packages/simulated-gateway/src/simulator.ts';
import { mandateInputOf, openSimulator, pixKey, serveSimulator, setSimDate } from './pix-automatico-setup.ts';

/**
 * The simulator's HTTP server speaks Pix Automático in the BCB's Pix API (bacen/pix-api openapi.yaml
 * 2.9): every answer of its /v2 routes and every webhook it posts, through a real HTTP server, parses
 * field for field (nothing missing, nothing the specification does not name) with the schemas written
 * from the specification (gateway/bcb-pix-automatico-schemas.ts, themselves checked against the
 * specification's examples), and so does every body the HTTP adapter sends it. The flows cover each
 * shape: the four journeys, approval, rejection, each cancellation, paid, expired and rejected
 * attempts, retries, and notices reordered and repeated.
 */
const API_KEY = 'gw_test_key_bcb_wire_0123456789abcdef';
let orm: Orm;
let sim: SimulatedGateway;
let server: FastifyInstance;
let baseUrl: string;
let http: HttpGateway;
let hooks: Server;

interface Exchange {
  route: string;
  status: number;
  sent: unknown;
  answered: unknown;
}
const exchanges: Exchange[] = [];
const webhooks: { path: string; body: unknown }[] = [];

/** Answers and request bodies of the BCB's routes, by `METHOD route`, with their specification's schema. */
const RETRY_ANSWER = bcbCobRCompleta.required({ tentativas: true });
const ANSWERS: Record<string, z.ZodType> = {
  'POST /v2/locrec': bcbLocRec,
  'PUT /v2/cob/:id': bcbCobGerada,
  'PUT /v2/cobv/:id': bcbCobVGerada,
  'POST /v2/rec': bcbRecCompleta,
  'GET /v2/rec/:id': bcbRecCompleta,
  'PATCH /v2/rec/:id': bcbRecCompleta,
  'POST /v2/solicrec': bcbSolicRecCompleta,
  'PUT /v2/cobr/:id': bcbCobRCompleta,
  'GET /v2/cobr/:id': bcbCobRCompleta,
  'PATCH /v2/cobr/:id': bcbCobRCompleta,
  'POST /v2/cobr/:id/retentativa/:data': RETRY_ANSWER,
  'PUT /v2/webhookrec': z.object({}),
  'PUT /v2/webhookcobr': z.object({}),
  'PUT /v2/pix/:id/devolucao/:data': bcbDevolucao,
  'GET /v2/pix/:id/devolucao/:data': bcbDevolucao,
};
const REQUESTS: Record<string, z.ZodType> = {
  'PUT /v2/cob/:id': bcbCobSolicitada,
  'PUT /v2/cobv/:id': bcbCobVSolicitada,
  'POST /v2/rec': bcbRecSolicitada,
  'PATCH /v2/rec/:id': bcbCancelamento,
  'POST /v2/solicrec': bcbSolicRecSolicitada,
  'PUT /v2/cobr/:id': bcbCobRSolicitada,
  'PATCH /v2/cobr/:id': bcbCancelamento,
  'PUT /v2/webhookrec': bcbWebhookSolicitado,
  'PUT /v2/webhookcobr': bcbWebhookSolicitado,
  'PUT /v2/pix/:id/devolucao/:data': bcbDevolucaoSolicitada,
};

/** `payload` is `schema`'s field for field: it parses, and parsing drops nothing (no field the schema lacks). */
function expectFieldForField(schema: z.ZodType, payload: unknown, what: string): void {
  const parsed = schema.safeParse(payload);
  expect({ what, issues: parsed.error?.issues ?? [] }).toEqual({ what, issues: [] });
  expect({ what, payload: parsed.data }).toEqual({ what, payload });
}

beforeAll(async () => {
  ({ orm, sim } = await openSimulator(4));
  ({ server, baseUrl, http } = await serveSimulator(sim, API_KEY, (app) => {
    app.addHook('onSend', async (req, reply, payload) => {
      const route = `${req.method} ${req.routeOptions.url ?? req.url}`;
      if (req.url.startsWith('/v2/')) {
        const answered = typeof payload === 'string' && payload.length > 0 ? JSON.parse(payload) : payload;
        exchanges.push({ route, status: reply.statusCode, sent: req.body, answered });
      }
      return payload;
    });
  }));
  hooks = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    req.on('end', () => {
      webhooks.push({ path: req.url ?? '', body: JSON.parse(text) });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => hooks.listen(0, '127.0.0.1', resolve));
  const hooksUrl = `http://127.0.0.1:${(hooks.address() as { port: number }).port}/pix`;
  for (const path of ['/v2/webhookrec', '/v2/webhookcobr']) {
    const res = await request(`${baseUrl}${path}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ webhookUrl: hooksUrl }),
    });
    expect(res.statusCode).toBe(200);
    await res.body.dump();
  }
});
afterAll(async () => {
  sim.faults.mandateNoticesTwiceReversed = false;
  await sim.settleCallbacks();
  await server.close();
  await new Promise((resolve) => hooks.close(resolve));
  await orm.close();
});

const key = (label: string) => pixKey('bcb-wire', label);

async function mandate(persona: PixPayerPersona, overrides: Partial<MandateInput> = {}): Promise<GatewayMandate> {
  setSimDate(sim, '2026-03-01');
  const created = await http.createMandate(mandateInputOf(overrides), key('mandate'));
  return http.authorizeMandate(created.id, persona);
}

async function chargeDue(of: GatewayMandate, dueDate: string, amount = 4_990) {
  setSimDate(sim, new Date(Date.parse(`${dueDate}T12:00:00Z`) - 4 * 86_400_000).toISOString().slice(0, 10));
  return http.createMandateCharge({ mandateId: of.id, reference: uuidv7(), dueDate, amount }, key('charge'));
}

async function settled(chargeId: string, asOf: string) {
  await http.settleMandateCharges(asOf);
  return (await http.getMandateCharge(chargeId))!;
}

describe('the simulator speaks Pix Automático in the BCB’s shapes', () => {
  it('journey 2: an expired attempt, a retry (RIFL) that is paid, the pix listed', async () => {
    const approved = await mandate('no_funds_until_retry');
    expect(approved.status).toBe('approved');
    const charge = await chargeDue(approved, '2026-03-10');
    expect((await settled(charge.id, '2026-03-10')).attempts[0]?.status).toBe('expired');
    await http.retryMandateCharge(charge.id, '2026-03-11', key('retry'));
    const paid = await settled(charge.id, '2026-03-11');
    expect(paid).toMatchObject({ status: 'completed', amount: 4_990 });
    expect(paid.attempts.map((a) => a.kind)).toEqual(['scheduled', 'retry']);
  });

  it('journey 3 names its first charge; journey 1 sends its solicrec and is rejected (AP13)', async () => {
    setSimDate(sim, '2026-03-01');
    const third = await http.createMandate(
      mandateInputOf({ journey: 'journey_3', firstCharge: { amount: 4_990, expiresInSeconds: 3600 } }),
      key('mandate'),
    );
    expect((await http.getTransaction(third.firstPaymentId!))?.status).toBe('pending');
    expect((await http.authorizeMandate(third.id, 'approves')).status).toBe('approved');
    const payerAccount = { ispb: '91193552', agency: '2569', account: '550689' };
    const first = await http.createMandate(
      mandateInputOf({ journey: 'journey_1', requestExpiresAt: '2026-03-05T12:00:00.000Z', payerAccount }),
      key('mandate'),
    );
    expect(first.request).toMatchObject({ status: 'sent', expiresAt: '2026-03-05T12:00:00.000Z' });
    // The payer's account given goes to the payer's bank as the solicrec's destinatario.
    const solicrec = exchanges.filter((e) => e.route === 'POST /v2/solicrec').at(-1);
    expect((solicrec?.sent as { destinatario?: unknown })?.destinatario).toMatchObject({
      ispbParticipante: '91193552',
      agencia: '2569',
      conta: '550689',
    });
    expect(await http.authorizeMandate(first.id, 'rejects_authorization')).toMatchObject({
      status: 'rejected',
      rejection: { code: 'AP13' },
    });
    expect((await http.getMandate(first.id))?.request?.status).toBe('rejected');
  });

  it('journey 4: a cobv and its rec in one QR code (JORNADA_4); paid and accepted, or paid and declined (AP14)', async () => {
    setSimDate(sim, '2026-03-01');
    const dueCharge = { amount: 4_990, dueDate: '2026-03-10', daysPayableAfterDue: 3 };
    const offered = await http.createMandate(
      mandateInputOf({ journey: 'journey_4', startDate: '2026-04-10', dueCharge }),
      key('mandate'),
    );
    expect(offered).toMatchObject({ status: 'created', journey: 'journey_4' });
    expect(offered.qrCode).toContain(`rec:${offered.id}`);
    const composed = exchanges.filter((e) => e.route === 'GET /v2/rec/:id').at(-1)?.answered;
    expect(composed).toMatchObject({ dadosQR: { jornada: 'JORNADA_4', pixCopiaECola: offered.qrCode } });
    expect(composed).not.toHaveProperty('ativacao.dadosJornada');
    const cobv = exchanges.filter((e) => e.route === 'PUT /v2/cobv/:id').at(-1)?.sent;
    expect(cobv).toMatchObject({ calendario: { dataDeVencimento: '2026-03-10', validadeAposVencimento: 3 } });
    expect(await http.getTransaction(offered.firstPaymentId!)).toMatchObject({ status: 'pending', amount: 4_990 });
    expect((await http.authorizeMandate(offered.id, 'approves')).status).toBe('approved');
    expect((await http.getTransaction(offered.firstPaymentId!))?.status).toBe('succeeded');

    const declined = await http.createMandate(
      mandateInputOf({ journey: 'journey_4', startDate: '2026-04-10', dueCharge }),
      key('mandate'),
    );
    expect(await http.authorizeMandate(declined.id, 'rejects_authorization')).toMatchObject({
      status: 'rejected',
      rejection: { code: 'AP14' },
    });
    expect((await http.getTransaction(declined.firstPaymentId!))?.status).toBe('succeeded');
  });

  it('a lowered maximum (AM02), a closed account (AC05, then ACCL and ACCT)', async () => {
    const lowered = await mandate('lowers_maximum');
    const refused = await settled((await chargeDue(lowered, '2026-03-10')).id, '2026-03-10');
    expect(refused.attempts[0]?.rejection?.code).toBe('AM02');

    const closed = await mandate('closed_account');
    const first = await chargeDue(closed, '2026-03-10');
    const second = await chargeDue(closed, '2026-04-10');
    expect((await settled(first.id, '2026-03-10')).attempts[0]?.rejection?.code).toBe('AC05');
    expect((await http.getMandate(closed.id))?.cancellation).toMatchObject({ code: 'ACCL', by: 'payer_psp' });
    expect((await http.getMandateCharge(second.id))?.cancellation).toMatchObject({ code: 'ACCT', by: 'payer_psp' });
  });

  it('the payer revokes (SLDB; its open charge SLBD), the receiver cancels (SLCR), notices reversed and twice', async () => {
    const revoked = await mandate('revokes');
    expect((await settled((await chargeDue(revoked, '2026-03-10')).id, '2026-03-10')).status).toBe('completed');
    const open = await chargeDue(revoked, '2026-04-10');
    expect((await settled(open.id, '2026-04-10')).cancellation).toMatchObject({ code: 'SLBD', by: 'payer' });

    sim.faults.mandateNoticesTwiceReversed = true;
    const kept = await mandate('approves');
    const charge = await chargeDue(kept, '2026-03-10');
    expect((await http.cancelMandateCharge(charge.id, key('cancel'))).cancellation).toMatchObject({ code: 'SLCR' });
    await chargeDue(kept, '2026-04-10');
    expect((await http.cancelMandate(kept.id, key('cancel'))).cancellation).toMatchObject({ code: 'SLCR' });
    sim.faults.mandateNoticesTwiceReversed = false;
  });

  it('a paid charge’s devolução (PUT and GET /pix/{e2eid}/devolucao/{id}): in part, repeated, and no more than paid', async () => {
    const approved = await mandate('approves');
    const paid = await settled((await chargeDue(approved, '2026-03-10')).id, '2026-03-10');
    const refundKey = key('refund');
    const part = await http.refundMandateCharge(paid.id, 1_990, refundKey);
    const e2eId = paid.attempts[0]!.endToEndId;
    expect(part).toMatchObject({ chargeId: paid.id, endToEndId: e2eId, amount: 1_990, status: 'refunded' });
    expect(part.id).toMatch(/^[A-Za-z0-9]{35}$/);
    expect(part.returnId).toMatch(/^D[A-Za-z0-9]{31}$/);
    expect(await http.refundMandateCharge(paid.id, 1_990, refundKey)).toEqual(part);
    const over = await http.refundMandateCharge(paid.id, 3_001, key('refund')).catch((e: unknown) => e);
    expect(over).toMatchObject({ retryable: false });
    const read = await request(`${baseUrl}/v2/pix/${e2eId}/devolucao/${part.id}`, {
      headers: { authorization: `Bearer ${API_KEY}` },
    });
    expect(read.statusCode).toBe(200);
    expect(await read.body.json()).toMatchObject({
      id: part.id,
      rtrId: part.returnId,
      valor: '19.90',
      status: 'DEVOLVIDO',
    });
    const unpaid = await chargeDue(approved, '2026-04-10');
    expect(await http.refundMandateCharge(unpaid.id, 100, key('refund')).catch((e: unknown) => e)).toMatchObject({
      retryable: false,
    });
  });

  it('errors are the BCB’s Problema, named per route; the adapter keeps a refusal final and an outage retryable', async () => {
    const raw = async (method: 'POST' | 'GET', path: string, body?: object, headers: Record<string, string> = {}) => {
      const res = await request(`${baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json', ...headers },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      return { status: res.statusCode, body: (await res.body.json()) as { type: string; violacoes?: unknown[] } };
    };
    const typeOf = (name: string) => `https://pix.bcb.gov.br/api/v2/error/${name}`;
    const badRec = await raw(
      'POST',
      '/v2/rec',
      { calendario: { periodicidade: 'DIARIA' } },
      { 'idempotency-key': 'k' },
    );
    expect([badRec.status, badRec.body.type]).toEqual([400, typeOf('RecOperacaoInvalida')]);
    expect(badRec.body.violacoes?.length).toBeGreaterThan(0);
    const approved = await mandate('approves');
    const charge = await chargeDue(approved, '2026-03-10');
    const unkeyed = await raw('POST', `/v2/cobr/${charge.id}/retentativa/2026-03-11`);
    expect([unkeyed.status, unkeyed.body.type]).toEqual([400, typeOf('RequisicaoInvalida')]);
    const noRec = await raw('GET', '/v2/rec/RR00000000000000000000000000');
    expect([noRec.status, noRec.body.type]).toEqual([404, typeOf('RecNaoEncontrada')]);
    const noCobr = await raw('GET', '/v2/cobr/0000000000000000000000000000');
    expect([noCobr.status, noCobr.body.type]).toEqual([404, typeOf('CobRNaoEncontrado')]);
    expect(await http.getMandateCharge('0000000000000000000000000000')).toBeNull();

    // A charge above the mandate's fixed amount is refused: final. An outage is worth repeating.
    const refused = await chargeDue(approved, '2026-04-10', 5_000).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(GatewayHttpError);
    expect(refused).toMatchObject({ status: 400, type: 'CobROperacaoInvalida', retryable: false });
    const fault = await raw('POST', '/v1/_faults', { fail_next: 1, status: 503, route: 'createMandate' });
    expect(fault.status).toBe(200);
    const outage = await http.createMandate(mandateInputOf(), key('mandate')).catch((e: unknown) => e);
    expect(outage).toMatchObject({ status: 503, type: 'ServicoIndisponivel', retryable: true });

    const errors = exchanges.filter((e) => e.status >= 400);
    expect(errors.length).toBeGreaterThanOrEqual(6);
    for (const error of errors) {
      expectFieldForField(bcbProblema, error.answered, `${error.route} error`);
      expect({ route: error.route, status: (error.answered as { status: number }).status }).toEqual({
        route: error.route,
        status: error.status,
      });
    }
  });

  it('every answer, request body and webhook was the specification’s, field for field', async () => {
    await sim.settleCallbacks();
    for (const exchange of exchanges.filter((e) => e.status < 300)) {
      const answer = ANSWERS[exchange.route];
      expect({ route: exchange.route, known: answer !== undefined }).toEqual({ route: exchange.route, known: true });
      expectFieldForField(answer!, exchange.answered, `${exchange.route} answer`);
      const sent = REQUESTS[exchange.route];
      if (sent) expectFieldForField(sent, exchange.sent, `${exchange.route} body`);
    }
    // Each route answered at least once, and each webhook, in every state a flow above reached.
    expect(new Set(exchanges.filter((e) => e.status < 300).map((e) => e.route))).toEqual(new Set(Object.keys(ANSWERS)));
    for (const { path, body } of webhooks) {
      expect(['/pix/rec', '/pix/cobr']).toContain(path);
      expectFieldForField(path === '/pix/rec' ? bcbWebhookRecBody : bcbWebhookCobRBody, body, `webhook ${path}`);
    }
    const statuses = (path: string, list: 'recs' | 'cobsr') =>
      new Set(
        webhooks
          .filter((w) => w.path === path)
          .flatMap((w) => (w.body as Record<string, { status: string }[]>)[list]!.map((n) => n.status)),
      );
    expect(statuses('/pix/rec', 'recs')).toEqual(new Set(['APROVADA', 'REJEITADA', 'CANCELADA']));
    expect(statuses('/pix/cobr', 'cobsr')).toEqual(new Set(['ATIVA', 'CONCLUIDA', 'REJEITADA', 'CANCELADA']));
    const paid = webhooks.flatMap(
      (w) => (w.body as { cobsr?: { status: string; pix?: { valor: string }[] }[] }).cobsr ?? [],
    );
    expect(paid.find((n) => n.status === 'CONCLUIDA')?.pix?.[0]?.valor).toBe('49.90');
  });
});
