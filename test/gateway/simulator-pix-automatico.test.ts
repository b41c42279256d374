import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import { uuidv7 } from 'uuidv7';
import type { Orm } from '../../db/orm.ts';
import { offersSandboxPixAutomatico } from '../../gateway/capabilities.ts';
import {
  GatewayError,
  type GatewayCallback,
  type GatewayMandate,
  type MandateInput,
  type PixPayerPersona,
} from '../../gateway/port.ts';
// The package by path: node_modules' @billing/simulated-gateway is main's copy (helper brief).
import { plainSql } from '../../packages/simulated-gateway/src/database.ts';
import type { SimulatedGateway } from '../../packages/simulated-gateway/src/simulator.ts';
import { mandateInputOf, openSimulator, pixKey, setSimDate } from './pix-automatico-setup.ts';

/**
 * Pix Automático at the simulator (decision 0096): mandates answered by each payer persona, cycle
 * charges settled by the payer's bank on the business day, later-day retries the receiver asks for,
 * the refusals of the rail's rules, idempotency, and the notices (reordered and repeated under a fault).
 * Expected dates are written out from the calendar (2026: Carnival 16–17 February), not computed.
 */
let orm: Orm;
let sim: SimulatedGateway;

beforeAll(async () => {
  ({ orm, sim } = await openSimulator(5));
});
afterEach(() => {
  sim.now = () => new Date();
  sim.faults.mandateNoticesTwiceReversed = false;
});
afterAll(async () => {
  await sim.settleCallbacks();
  await orm.close();
});

const key = (label: string) => pixKey('pix-automatico', label);
const on = (date: string) => setSimDate(sim, date);
const mandateInput = (overrides: Partial<MandateInput> = {}): MandateInput =>
  mandateInputOf(overrides, 'ana@example.com');

async function approvedMandate(persona: PixPayerPersona, overrides: Partial<MandateInput> = {}) {
  on('2026-03-01');
  const created = await sim.createMandate(mandateInput(overrides), key('mandate'));
  return sim.authorizeMandate(created.id, persona);
}

/** The cycle charge due on `dueDate`, sent four days before it. */
async function chargeDue(mandate: GatewayMandate, dueDate: string, amount = 4_990, sentOn?: string) {
  const sent = new Date(Date.parse(`${dueDate}T12:00:00Z`) - 4 * 86_400_000).toISOString().slice(0, 10);
  on(sentOn ?? sent);
  return sim.createMandateCharge({ mandateId: mandate.id, reference: uuidv7(), dueDate, amount }, key('charge'));
}

async function settled(chargeId: string, asOf: string) {
  await sim.settleMandateCharges(asOf);
  return (await sim.getMandateCharge(chargeId))!;
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

const statuses = (history: { status: string }[]) => history.map((h) => h.status);

describe('mandates and their journeys', () => {
  it('offers the sandbox Pix Automático; a mandate has a BCB idRec and, on journey 2, a QR code', async () => {
    expect(offersSandboxPixAutomatico(sim)).toBe(true);
    on('2026-03-01');
    const mandate = await sim.createMandate(mandateInput(), key('mandate'));
    expect(mandate.id).toMatch(/^RR\d{8}20260301[0-9A-Za-z]{11}$/);
    const noRetries = await sim.createMandate(mandateInput({ retryPolicy: 'none' }), key('mandate'));
    expect(noRetries.id).toMatch(/^RN\d{8}20260301[0-9A-Za-z]{11}$/);
    expect(mandate.id).toHaveLength(29);
    expect(mandate).toMatchObject({ status: 'created', journey: 'journey_2', request: null, firstPaymentId: null });
    expect(mandate.qrCode).toContain('br.gov.bcb.pix');
    const approved = await sim.authorizeMandate(mandate.id, 'approves');
    expect(approved.status).toBe('approved');
    expect(statuses(approved.history)).toEqual(['created', 'approved']);
    expect(await sim.getMandate(mandate.id)).toEqual(approved);
  });

  it('journey 1: a request with its expiry, which the payer who rejects refuses (AP13)', async () => {
    on('2026-03-01');
    const mandate = await sim.createMandate(
      mandateInput({ journey: 'journey_1', requestExpiresAt: '2026-03-05T12:00:00.000Z' }),
      key('mandate'),
    );
    expect(mandate.qrCode).toBeNull();
    expect(mandate.request).toMatchObject({ status: 'sent', expiresAt: '2026-03-05T12:00:00.000Z' });
    const rejected = await sim.authorizeMandate(mandate.id, 'rejects_authorization');
    expect(rejected).toMatchObject({
      status: 'rejected',
      rejection: { code: 'AP13' },
      request: { status: 'rejected' },
    });
    const err = await refusal(
      sim.createMandateCharge(
        { mandateId: mandate.id, reference: uuidv7(), dueDate: '2026-03-10', amount: 4_990 },
        key('c'),
      ),
    );
    expect(err.message).toMatch(/rejected/);
  });

  it('journey 3: paying the first charge (an ordinary pix) approves the mandate', async () => {
    on('2026-03-01');
    const mandate = await sim.createMandate(
      mandateInput({ journey: 'journey_3', firstCharge: { amount: 4_990, expiresInSeconds: 3600 } }),
      key('mandate'),
    );
    expect(mandate.qrCode).not.toBeNull();
    const first = (await sim.getTransaction(mandate.firstPaymentId!))!;
    expect(first).toMatchObject({ status: 'pending', paymentType: 'pix', amount: 4_990 });
    await sim.pay(first.id);
    expect((await sim.getMandate(mandate.id))!.status).toBe('approved');
  });

  it('journey 3: the payer who rejects pays the first charge but refuses the recurrence (AP14)', async () => {
    on('2026-03-01');
    const mandate = await sim.createMandate(
      mandateInput({ journey: 'journey_3', firstCharge: { amount: 4_990, expiresInSeconds: 3600 } }),
      key('mandate'),
    );
    const rejected = await sim.authorizeMandate(mandate.id, 'rejects_authorization');
    expect(rejected).toMatchObject({ status: 'rejected', rejection: { code: 'AP14' } });
    expect((await sim.getTransaction(mandate.firstPaymentId!))!.status).toBe('succeeded');
  });

  it('journey 3 read after its pix lapsed: nothing is paid, the mandate expires', async () => {
    on('2026-03-01');
    const mandate = await sim.createMandate(
      mandateInput({ journey: 'journey_3', firstCharge: { amount: 4_990, expiresInSeconds: 3600 } }),
      key('mandate'),
    );
    sim.now = () => new Date('2026-03-01T13:00:01Z');
    expect((await sim.authorizeMandate(mandate.id, 'approves')).status).toBe('expired');
    expect((await sim.getTransaction(mandate.firstPaymentId!))!.capturedAmount).toBe(0);
  });

  it('the receiver cancels a mandate (SLCR), and its open charge with it', async () => {
    const mandate = await approvedMandate('approves');
    const charge = await chargeDue(mandate, '2026-03-10');
    const cancelled = await sim.cancelMandate(mandate.id, key('cancel'));
    expect(cancelled).toMatchObject({ status: 'cancelled', cancellation: { code: 'SLCR', by: 'receiver' } });
    const after = (await sim.getMandateCharge(charge.id))!;
    expect(after.status).toBe('cancelled');
    expect(after.attempts[0]!.status).toBe('cancelled');
    expect((await settled(charge.id, '2026-03-10')).status).toBe('cancelled');
  });
});

describe('each payer persona, end to end', () => {
  it('approves: the charge is paid on its due date', async () => {
    const mandate = await approvedMandate('approves');
    const charge = await chargeDue(mandate, '2026-03-10');
    expect(charge.id).toMatch(/^[A-Za-z0-9]{26,35}$/);
    expect(charge).toMatchObject({ status: 'active', amount: 4_990, dueDate: '2026-03-10', paidAt: null });
    const [attempt] = charge.attempts;
    expect(attempt).toMatchObject({ settlementDate: '2026-03-10', kind: 'scheduled', status: 'scheduled' });
    expect(attempt!.endToEndId).toMatch(/^E[0-9A-Za-z]{8}\d{12}[0-9A-Za-z]{11}$/);
    expect((await settled(charge.id, '2026-03-09')).status).toBe('active');
    const paid = await settled(charge.id, '2026-03-10');
    expect(paid).toMatchObject({ status: 'completed', amount: 4_990, paidAt: '2026-03-10T09:00:00.000Z' });
    expect(paid.attempts).toHaveLength(1);
    expect(paid.attempts[0]).toMatchObject({ status: 'paid', rejection: null });
  });

  it('lowers_maximum: each attempt above the maximum is refused (AM02) until the payer raises it', async () => {
    const mandate = await approvedMandate('lowers_maximum');
    expect(mandate.payerMaximum).toBe(4_989);
    const charge = await chargeDue(mandate, '2026-03-10');
    const refused = await settled(charge.id, '2026-03-10');
    expect(refused.status).toBe('active');
    expect(refused.attempts[0]).toMatchObject({ status: 'rejected', rejection: { code: 'AM02' } });
    await sim.retryMandateCharge(charge.id, '2026-03-11', key('retry'));
    expect((await settled(charge.id, '2026-03-11')).attempts[1]).toMatchObject({
      kind: 'retry',
      status: 'rejected',
      rejection: { code: 'AM02' },
    });
    await sim.setPayerMaximum(mandate.id, 10_000);
    await sim.retryMandateCharge(charge.id, '2026-03-13', key('retry'));
    const paid = await settled(charge.id, '2026-03-13');
    expect(paid.status).toBe('completed');
    expect(paid.attempts.map((a) => [a.settlementDate, a.status])).toEqual([
      ['2026-03-10', 'rejected'],
      ['2026-03-11', 'rejected'],
      ['2026-03-13', 'paid'],
    ]);
  });

  it('a variable mandate takes a charge above the payer maximum, and their bank refuses it (AM02)', async () => {
    const mandate = await approvedMandate('approves', { fixedAmount: null, minimumAmount: 1_000 });
    await sim.setPayerMaximum(mandate.id, 3_000);
    const charge = await chargeDue(mandate, '2026-03-10', 5_000);
    expect(charge.status).toBe('active');
    const refused = await settled(charge.id, '2026-03-10');
    expect(refused.attempts[0]!.rejection?.code).toBe('AM02');
    await refusal(chargeDue(mandate, '2026-04-10', 999));
  });

  it('revokes: pays the first cycle, then revokes before the second settles (SLDB), cancelling its charge', async () => {
    const mandate = await approvedMandate('revokes');
    const first = await chargeDue(mandate, '2026-03-10');
    expect((await settled(first.id, '2026-03-10')).status).toBe('completed');
    const second = await chargeDue(mandate, '2026-04-10');
    const cancelled = await settled(second.id, '2026-04-10');
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.attempts[0]!.status).toBe('cancelled');
    expect(await sim.getMandate(mandate.id)).toMatchObject({
      status: 'cancelled',
      cancellation: { code: 'SLDB', by: 'payer' },
    });
  });

  it('no_funds_morning: the attempt has no funds in the morning and is paid at 20:00', async () => {
    const mandate = await approvedMandate('no_funds_morning');
    const charge = await chargeDue(mandate, '2026-03-10');
    const paid = await settled(charge.id, '2026-03-10');
    expect(paid).toMatchObject({ status: 'completed', paidAt: '2026-03-10T23:00:00.000Z' });
    const history = paid.attempts[0]!.history;
    expect(statuses(history)).toEqual(['scheduled', 'scheduled', 'paid']);
    expect(history[1]!.at).toBe('2026-03-10T09:00:00.000Z');
    expect(history[2]!.at).toBe('2026-03-10T23:00:00.000Z');
  });

  it('no_funds_until_retry: the due-date attempt expires without a code, the first retry is paid', async () => {
    const mandate = await approvedMandate('no_funds_until_retry');
    const charge = await chargeDue(mandate, '2026-03-10');
    const failed = await settled(charge.id, '2026-03-10');
    expect(failed.status).toBe('active');
    expect(failed.attempts[0]).toMatchObject({ status: 'expired', rejection: null });
    await sim.retryMandateCharge(charge.id, '2026-03-11', key('retry'));
    const paid = await settled(charge.id, '2026-03-11');
    expect(paid.status).toBe('completed');
    expect(paid.attempts.map((a) => [a.kind, a.status])).toEqual([
      ['scheduled', 'expired'],
      ['retry', 'paid'],
    ]);
  });

  it('no_funds_until_retry with no retry asked: the charge expires after its last retry day', async () => {
    const mandate = await approvedMandate('no_funds_until_retry');
    const charge = await chargeDue(mandate, '2026-03-10');
    // 2026-03-17 is seven days after the settlement date, a Tuesday: the last day a retry may settle.
    expect((await settled(charge.id, '2026-03-16')).status).toBe('active');
    expect((await settled(charge.id, '2026-03-17')).status).toBe('expired');
  });

  it('a mandate allowing no retry: the failed charge ends at once', async () => {
    const mandate = await approvedMandate('no_funds_until_retry', { retryPolicy: 'none' });
    const charge = await chargeDue(mandate, '2026-03-10');
    const expired = await settled(charge.id, '2026-03-10');
    expect(expired).toMatchObject({ status: 'expired', retryPolicy: 'none' });
    await refusal(sim.retryMandateCharge(charge.id, '2026-03-11', key('retry')));
  });

  it('closed_account: the attempt is refused AC05, the charge rejected, the mandate cancelled by the PSP (ACCL)', async () => {
    const mandate = await approvedMandate('closed_account');
    const charge = await chargeDue(mandate, '2026-03-10');
    const rejected = await settled(charge.id, '2026-03-10');
    expect(rejected).toMatchObject({ status: 'rejected', rejection: { code: 'AC05' } });
    expect(rejected.attempts[0]).toMatchObject({ status: 'rejected', rejection: { code: 'AC05' } });
    expect(await sim.getMandate(mandate.id)).toMatchObject({
      status: 'cancelled',
      cancellation: { code: 'ACCL', by: 'payer_psp' },
    });
    await refusal(sim.retryMandateCharge(charge.id, '2026-03-11', key('retry')));
  });

  it('a charge due on Carnival Monday (2026-02-16) settles on Ash Wednesday (2026-02-18)', async () => {
    const mandate = await approvedMandate('approves', { startDate: '2026-02-16' });
    const charge = await chargeDue(mandate, '2026-02-16');
    expect(charge.attempts[0]!.settlementDate).toBe('2026-02-18');
    expect((await settled(charge.id, '2026-02-17')).status).toBe('active');
    expect((await settled(charge.id, '2026-02-18')).status).toBe('completed');
  });
});

describe('idempotency', () => {
  it('the same key answers the first mandate and the first charge; no second charge is made', async () => {
    on('2026-03-01');
    const mandateKey = key('mandate');
    const input = mandateInput();
    const first = await sim.createMandate(input, mandateKey);
    const again = await sim.createMandate(input, mandateKey);
    expect(again.id).toBe(first.id);
    await sim.authorizeMandate(first.id, 'approves');
    on('2026-03-06');
    const chargeKey = key('charge');
    const chargeInput = { mandateId: first.id, reference: uuidv7(), dueDate: '2026-03-10', amount: 4_990 };
    const charge = await sim.createMandateCharge(chargeInput, chargeKey);
    const repeated = await sim.createMandateCharge(chargeInput, chargeKey);
    expect(repeated).toEqual(charge);
    const [row] = await plainSql(orm).query<{ n: number }>(
      'select count(*)::int as n from gateway_sim.mandate_charges where mandate_id = ?',
      [first.id],
    );
    expect(row!.n).toBe(1);
  });
});

describe('refusals', () => {
  it('a charge of a mandate not approved yet, or of another amount than a fixed mandate’s', async () => {
    on('2026-03-01');
    const created = await sim.createMandate(mandateInput(), key('mandate'));
    await refusal(chargeDue(created, '2026-03-10'));
    const approved = await sim.authorizeMandate(created.id, 'approves');
    const err = await refusal(chargeDue(approved, '2026-03-10', 5_000));
    expect(err.message).toMatch(/does not allow/);
  });

  it('one live charge per cycle: a second charge of the mandate for the same due date is refused under another key', async () => {
    const mandate = await approvedMandate('approves');
    const first = await chargeDue(mandate, '2026-03-20');
    const err = await refusal(chargeDue(mandate, '2026-03-20'));
    expect(err.message).toMatch(/already/);
    expect((await sim.getMandateCharge(first.id))!.status).toBe('active');
  });

  it('a charge sent too late for its window (less than 2 days before its due date) is refused; an early one is taken, for test clocks', async () => {
    const mandate = await approvedMandate('approves');
    await refusal(chargeDue(mandate, '2026-03-20', 4_990, '2026-03-19'));
    await refusal(chargeDue(mandate, '2026-03-22', 4_990, '2026-03-21'));
    expect((await chargeDue(mandate, '2026-03-25', 4_990, '2026-03-09')).status).toBe('active');
    expect((await chargeDue(mandate, '2026-03-20', 4_990, '2026-03-10')).status).toBe('active');
    expect((await chargeDue(mandate, '2026-03-21', 4_990, '2026-03-19')).status).toBe('active');
  });

  it('retries: not before a failure, not on a day outside seven days or not a business day, never a fourth', async () => {
    const mandate = await approvedMandate('lowers_maximum');
    const charge = await chargeDue(mandate, '2026-03-10');
    await refusal(sim.retryMandateCharge(charge.id, '2026-03-11', key('retry')));
    await settled(charge.id, '2026-03-10');
    await refusal(sim.retryMandateCharge(charge.id, '2026-03-18', key('retry')));
    await refusal(sim.retryMandateCharge(charge.id, '2026-03-14', key('retry')));
    await refusal(sim.retryMandateCharge(charge.id, '2026-03-10', key('retry')));
    for (const day of ['2026-03-11', '2026-03-12', '2026-03-13']) {
      await sim.retryMandateCharge(charge.id, day, key('retry'));
      await settled(charge.id, day);
    }
    await refusal(sim.retryMandateCharge(charge.id, '2026-03-17', key('retry')));
    const ended = (await sim.getMandateCharge(charge.id))!;
    expect(ended.attempts).toHaveLength(4);
    expect(ended).toMatchObject({ status: 'rejected', rejection: { code: 'AM02' } });
  });

  it('a weekly charge never retries into its next cycle: the day the next one settles is refused', async () => {
    const mandate = await approvedMandate('no_funds_until_retry', { periodicity: 'weekly' });
    const charge = await chargeDue(mandate, '2026-03-10');
    await settled(charge.id, '2026-03-10');
    // The next cycle is due (and settles) on Tuesday 2026-03-17: the last retry day is the Monday before.
    await refusal(sim.retryMandateCharge(charge.id, '2026-03-17', key('retry')));
    expect((await sim.retryMandateCharge(charge.id, '2026-03-16', key('retry'))).attempts).toHaveLength(2);
  });

  it('a journey 1 request answered after its expiry: the mandate expires', async () => {
    on('2026-03-01');
    const mandate = await sim.createMandate(
      mandateInput({ journey: 'journey_1', requestExpiresAt: '2026-03-02T12:00:00.000Z' }),
      key('mandate'),
    );
    on('2026-03-03');
    const expired = await sim.authorizeMandate(mandate.id, 'approves');
    expect(expired).toMatchObject({ status: 'expired', request: { status: 'expired' } });
  });

  it('a retry of a paid charge, and the cancellation of a paid one', async () => {
    const mandate = await approvedMandate('approves');
    const charge = await chargeDue(mandate, '2026-03-10');
    await settled(charge.id, '2026-03-10');
    await refusal(sim.retryMandateCharge(charge.id, '2026-03-11', key('retry')));
    await refusal(sim.cancelMandateCharge(charge.id, key('cancel')));
  });

  it('the receiver cancels an open charge: it is never settled', async () => {
    const mandate = await approvedMandate('approves');
    const charge = await chargeDue(mandate, '2026-03-10');
    const cancelled = await sim.cancelMandateCharge(charge.id, key('cancel'));
    expect(cancelled).toMatchObject({ status: 'cancelled', cancellation: { code: 'SLCR', by: 'receiver' } });
    expect((await settled(charge.id, '2026-03-10')).attempts[0]!.status).toBe('cancelled');
  });
});

describe('notices', () => {
  let server: Server;
  const received: GatewayCallback[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        received.push(JSON.parse(body) as GatewayCallback);
        res.statusCode = 204;
        res.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    sim.callbacks.callbackUrl = `http://127.0.0.1:${port}/callbacks`;
    sim.callbacks.callbackSecret = 'pix-automatico-notices';
  });
  afterAll(async () => {
    await sim.settleCallbacks();
    sim.callbacks.callbackUrl = undefined;
    await new Promise((resolve) => server.close(resolve));
  });
  const noticesOf = (mandateId: string) => received.filter((n) => n.mandateId === mandateId);

  it('each change is notified: mandate.updated and mandate_charge.updated with their ids', async () => {
    const mandate = await approvedMandate('closed_account');
    const charge = await chargeDue(mandate, '2026-03-10');
    await sim.settleMandateCharges('2026-03-10');
    await sim.settleCallbacks();
    const notices = noticesOf(mandate.id);
    expect(notices).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'mandate.updated', status: 'approved' }),
        expect.objectContaining({ type: 'mandate_charge.updated', mandateChargeId: charge.id, status: 'active' }),
        expect.objectContaining({ type: 'mandate_charge.updated', mandateChargeId: charge.id, status: 'rejected' }),
        expect.objectContaining({ type: 'mandate.updated', status: 'cancelled' }),
      ]),
    );
    expect(notices).toHaveLength(4);
  });

  it('under the fault, a change’s notices come in reverse order and twice', async () => {
    const mandate = await approvedMandate('closed_account');
    const charge = await chargeDue(mandate, '2026-03-10');
    await sim.settleCallbacks();
    const before = noticesOf(mandate.id).length;
    sim.faults.mandateNoticesTwiceReversed = true;
    await sim.settleMandateCharges('2026-03-10');
    await sim.settleCallbacks();
    const settling = noticesOf(mandate.id).slice(before);
    expect(settling.map((n) => `${n.type}:${n.status}`)).toEqual([
      'mandate.updated:cancelled',
      'mandate_charge.updated:rejected',
      'mandate.updated:cancelled',
      'mandate_charge.updated:rejected',
    ]);
    expect(new Set(settling.map((n) => n.id)).size).toBe(4);
    expect(settling[1]!.mandateChargeId).toBe(charge.id);
  });
});
