import { describe, expect, it } from '@jest/globals';
import { request } from 'undici';
import { uuidv7 } from 'uuidv7';
import type { HttpGateway } from '../../gateway/http-adapter.ts';
import type { CardGateway, RecurringBilling } from '../../gateway/port.ts';
import type { SimulatedGateway } from '@billing/simulated-gateway';
import { useGatewayServer } from '../helpers/gateway-server.ts';

/**
 * The gateway's own recurrence: one invoice per cycle, due on the plan's dates from the start date,
 * charged to the subscription's card (the sandbox's `bill`), a refused cycle tried again in place,
 * and none after the subscription is canceled; listed by `listSubscriptionInvoices`, on the
 * simulator and through the HTTP adapter against the simulated-gateway server.
 */
const API_KEY = 'gw_test_key_recurrence_0123456789';
let sim: SimulatedGateway;
let baseUrl: string;
let http: HttpGateway;
useGatewayServer(API_KEY, (started) => ({ sim, baseUrl, http } = started));

const key = (label: string) => `test:${label}:${uuidv7()}`;

/** A monthly gateway subscription of R$ 29,90 starting on 31 January 2030. */
async function gatewaySubscription(gateway: CardGateway & RecurringBilling, cardNumber = '4111111111111111') {
  const plan = await gateway.createRecurrencePlan(
    { reference: uuidv7(), name: 'Club', amount: 2_990, currency: 'BRL', interval: 'month', intervalCount: 1 },
    key('plan'),
  );
  const buyer = await gateway.createBuyer({ email: 'cycles@example.com', name: 'Ana' }, key('buyer'));
  const token = await gateway.tokenizeCard(
    { number: cardNumber, holderName: 'ANA', expirationMonth: '12', expirationYear: '2035', cvv: '123' },
    key('card'),
  );
  return gateway.createSubscription(
    { reference: uuidv7(), planId: plan.id, buyerId: buyer.id, cardToken: token.id, startDate: '2030-01-31' },
    key('sub'),
  );
}

const bill = async (subscriptionId: string) => {
  const res = await request(`${baseUrl}/v1/_sandbox/subscriptions/${subscriptionId}/bill`, {
    method: 'POST',
    headers: { authorization: `Bearer ${API_KEY}` },
  });
  return { status: res.statusCode, body: (await res.body.json()) as Record<string, unknown> };
};

describe("the gateway's recurrence", () => {
  it('bills one cycle per call on the plan’s dates, each charged and listed with its charge', async () => {
    const sub = await gatewaySubscription(http);
    for (let i = 0; i < 3; i++) expect((await bill(sub.id)).status).toBe(200);
    const invoices = await http.listSubscriptionInvoices(sub.id);
    expect(invoices.map((i) => [i.cycle, i.dueDate, i.status, i.amount])).toEqual([
      [0, '2030-01-31', 'paid', 2_990],
      [1, '2030-02-28', 'paid', 2_990],
      [2, '2030-03-31', 'paid', 2_990],
    ]);
    for (const invoice of invoices) {
      const charge = await http.getTransaction(invoice.transactionId!);
      expect(charge).toMatchObject({ status: 'succeeded', capturedAmount: 2_990, reference: invoice.id });
    }
  });

  it('tries a refused cycle again in place, and never bills a canceled subscription', async () => {
    const sub = await gatewaySubscription(sim, '4000000000000002');
    const first = await sim.billSubscription(sub.id);
    const again = await sim.billSubscription(sub.id);
    expect([first.cycle, first.status, again.cycle, again.status]).toEqual([0, 'failed', 0, 'failed']);
    expect(again.transactionId).not.toBe(first.transactionId);
    expect(await sim.listSubscriptionInvoices(sub.id)).toHaveLength(1);
    await sim.cancelSubscription(sub.id, key('cancel'));
    await expect(sim.billSubscription(sub.id)).rejects.toThrow('Cannot bill a canceled subscription');
    expect((await bill(sub.id)).status).toBe(422); // the server's answer to a refusal
  });

  it('an unknown subscription has no invoices, and cannot be billed', async () => {
    expect(await http.listSubscriptionInvoices('sub_unknown')).toEqual([]);
    expect((await bill('sub_unknown')).status).toBe(422);
  });
});
