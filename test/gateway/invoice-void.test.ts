import { describe, expect, it } from '@jest/globals';
import { request } from 'undici';
import { uuidv7 } from 'uuidv7';
import type { HttpGateway } from '../../gateway/http-adapter.ts';
import { GatewayError, type CardGateway, type RecurringBilling } from '../../gateway/port.ts';
import type { SimulatedGateway } from '@billing/simulated-gateway';
import { useGatewayServer } from '../helpers/gateway-server.ts';

/**
 * Voiding a gateway invoice (`cancelInvoice`, so that an unpaid extra charge can never be paid late)
 * and the sandbox's refused invoice charge (`failInvoice`), on the simulator and through the HTTP
 * adapter against the simulated-gateway server.
 */
const API_KEY = 'gw_test_key_invoices_0123456789';
let sim: SimulatedGateway;
let baseUrl: string;
let http: HttpGateway;
useGatewayServer(API_KEY, (started) => ({ sim, baseUrl, http } = started));

const key = (label: string) => `test:${label}:${uuidv7()}`;

/** A pending extra-charge invoice of a new gateway subscription (card approved). */
async function pendingInvoice(gateway: CardGateway & RecurringBilling, expirationDate: string | null = null) {
  const plan = await gateway.createRecurrencePlan(
    { reference: uuidv7(), name: 'Club', amount: 2_990, currency: 'BRL', interval: 'month', intervalCount: 1 },
    key('plan'),
  );
  const buyer = await gateway.createBuyer({ email: 'void@example.com', name: 'Ana' }, key('buyer'));
  const token = await gateway.tokenizeCard(
    { number: '4111111111111111', holderName: 'ANA', expirationMonth: '12', expirationYear: '2035', cvv: '123' },
    key('card'),
  );
  const sub = await gateway.createSubscription(
    { reference: uuidv7(), planId: plan.id, buyerId: buyer.id, cardToken: token.id, startDate: '2030-02-01' },
    key('sub'),
  );
  return gateway.createInvoice(
    {
      subscriptionId: sub.id,
      amount: 1_500,
      currency: 'BRL',
      description: 'Setup',
      dueDate: '2030-02-10',
      expirationDate,
      noFeesInstallments: false,
    },
    key('inv'),
  );
}

async function refusal(promise: Promise<unknown>): Promise<GatewayError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(GatewayError);
  return err as GatewayError;
}

describe('voiding an invoice', () => {
  it('voids a pending invoice, which can then not be paid; the same key answers the same', async () => {
    const invoice = await pendingInvoice(sim);
    const k = key('void');
    const voided = await sim.cancelInvoice(invoice.id, k);
    expect(voided).toEqual({ ...invoice, status: 'voided' });
    expect(await sim.cancelInvoice(invoice.id, k)).toEqual(voided);
    expect(await sim.cancelInvoice(invoice.id, key('void-again'))).toEqual(voided);
    expect((await refusal(sim.payInvoice(invoice.id))).retryable).toBe(false);
    expect(await sim.getInvoice(invoice.id)).toEqual(voided);
  });

  it('refuses to void a paid invoice (not retryable), and voids one that lapsed unpaid', async () => {
    const paid = await pendingInvoice(sim);
    await sim.payInvoice(paid.id);
    const err = await refusal(sim.cancelInvoice(paid.id, key('void')));
    expect(err.retryable).toBe(false);
    expect((await sim.getInvoice(paid.id))!.status).toBe('paid');

    const lapsing = await pendingInvoice(sim, '2030-02-12');
    sim.now = () => new Date('2030-02-13T00:00:00Z');
    try {
      expect(await sim.getInvoice(lapsing.id)).toMatchObject({ status: 'failed', transactionId: null });
      expect((await sim.cancelInvoice(lapsing.id, key('void'))).status).toBe('voided');
    } finally {
      sim.now = () => new Date();
    }
  });

  it('refuses an unknown invoice', async () => {
    expect((await refusal(sim.cancelInvoice('inv_nope', key('void')))).retryable).toBe(false);
  });
});

describe('a refused invoice charge (sandbox)', () => {
  it('fails a pending invoice with the declined transaction, once', async () => {
    const invoice = await pendingInvoice(sim);
    const failed = await sim.failInvoice(invoice.id);
    expect(failed).toMatchObject({ status: 'failed', paidAt: null, transactionId: expect.any(String) });
    expect(await sim.getTransaction(failed.transactionId!)).toMatchObject({
      status: 'failed',
      declineReason: 'card_declined',
      amount: 1_500,
      reference: invoice.id,
      capturedAmount: 0,
    });
    expect(await sim.failInvoice(invoice.id)).toEqual(failed);
    expect((await refusal(sim.payInvoice(invoice.id))).retryable).toBe(false);
  });

  it('cannot fail a paid invoice', async () => {
    const invoice = await pendingInvoice(sim);
    await sim.payInvoice(invoice.id);
    expect((await refusal(sim.failInvoice(invoice.id))).retryable).toBe(false);
  });
});

describe('over HTTP', () => {
  it('voids through the adapter and fails through the server’s sandbox route', async () => {
    const voiding = await pendingInvoice(http);
    const voided = await http.cancelInvoice(voiding.id, key('void'));
    expect(voided).toEqual({ ...voiding, status: 'voided' });
    expect(await http.getInvoice(voiding.id)).toEqual(voided);

    const paid = await pendingInvoice(http);
    await sim.payInvoice(paid.id);
    expect((await refusal(http.cancelInvoice(paid.id, key('void')))).retryable).toBe(false);

    const failing = await pendingInvoice(http);
    const res = await request(`${baseUrl}/v1/_sandbox/invoices/${failing.id}/fail`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.statusCode).toBe(200);
    expect(await res.body.json()).toMatchObject({
      id: failing.id,
      status: 'failed',
      transaction_id: expect.any(String),
    });
    expect(await http.getInvoice(failing.id)).toMatchObject({ status: 'failed' });
  });
});
