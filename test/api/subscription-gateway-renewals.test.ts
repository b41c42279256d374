import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import { CALLBACK_SIGNATURE_HEADER, signCallback } from '../../gateway/callback-signature.ts';
import type { SimulatedGateway } from '@billing/simulated-gateway';
import { createTemporalClient } from '../../temporal/client.ts';
import { startApi, type TestApi } from '../helpers/api.ts';
import { makeOat, makeOrganization } from '../helpers/fixtures.ts';
import { paidSubscription, subscriptionWhen } from '../helpers/subscriptions.ts';

/**
 * A gateway-billed subscription end to end: the real API, worker and simulated gateway. The gateway's
 * recurrence bills a period (the sandbox's `bill`), its signed notice reaches our callback endpoint,
 * which tells the subscription's workflow; the workflow asks the gateway and records the period.
 */
let api: TestApi;
let sim: SimulatedGateway;
let temporal: Client;
beforeAll(async () => {
  api = await startApi();
  sim = api.gateway as SimulatedGateway;
  // The simulator in this API process notifies this API.
  sim.callbacks.callbackUrl = `${api.baseUrl}/api/v1/gateway/callbacks`;
  temporal = createTemporalClient(api.config);
});
afterAll(async () => {
  await sim.settleCallbacks();
  await temporal.connection.close();
  await api.close();
});

const sql = <T = Record<string, any>>(q: string, params: unknown[] = []) =>
  api.orm.em.getConnection().execute<T[]>(q, params);

async function paidGatewaySubscription() {
  const org = await makeOrganization(api.orm);
  const { row } = await paidSubscription(api, temporal, { organizationId: org.id, recurrenceBilling: 'gateway' });
  return {
    id: row.id as string,
    gatewayId: row.gateway_subscription_id as string,
    oat: await makeOat(api.orm, org.id),
  };
}

describe('gateway-billed renewals through the callback endpoint', () => {
  it('a period the gateway bills is recorded from its notice: the next period, its charge and sale', async () => {
    const s = await paidGatewaySubscription();
    expect(s.gatewayId).toMatch(/^sub_/);
    const invoice = await api.call('POST', `/api/v1/sandbox/subscriptions/${s.gatewayId}/bill`);
    expect(invoice.status).toBe(200);
    expect(invoice.body).toMatchObject({ status: 'paid', cycle: 0, amount: 4_990 });
    const body = await subscriptionWhen(api, s, (b) => b.period_number === 2);
    expect(body.status).toBe('active');
    expect(body.charges).toEqual([
      expect.objectContaining({ period_number: 2, try_number: 1, amount: 4_990, outcome: 'succeeded' }),
    ]);
    const sales = await sql(
      'select amount::int as amount, status from sales where subscription_id = ? order by created_at',
      [s.id],
    );
    expect(sales).toEqual([
      { amount: 4_990, status: 'paid' },
      { amount: 4_990, status: 'paid' },
    ]);
  });

  it('a refused period is past due with the gateway’s reason', async () => {
    const s = await paidGatewaySubscription();
    // The card is refused from now on (the test card's scripted outcome, as if it were blocked since).
    await sql(
      `update gateway_sim.cards set outcome = 'decline:insufficient_funds' where id = (
      select card_id from gateway_sim.subscriptions where id = ?)`,
      [s.gatewayId],
    );
    const invoice = await api.call('POST', `/api/v1/sandbox/subscriptions/${s.gatewayId}/bill`);
    expect(invoice.body).toMatchObject({ status: 'failed', cycle: 0 });
    const body = await subscriptionWhen(api, s, (b) => b.status === 'past_due');
    expect(body.period_number).toBe(1);
    expect(body.charges).toEqual([
      expect.objectContaining({ period_number: 2, outcome: 'failed', decline_reason: 'insufficient_funds' }),
    ]);
  });

  it('a notice about an invoice that is none of ours is taken and ignored', async () => {
    const body = JSON.stringify({
      id: 'cb_unknown_invoice',
      type: 'invoice.updated',
      invoiceId: 'inv_unknown',
      status: 'paid',
      occurredAt: new Date().toISOString(),
    });
    const res = await api.call('POST', '/api/v1/gateway/callbacks', {
      raw: body,
      headers: {
        'content-type': 'application/json',
        [CALLBACK_SIGNATURE_HEADER]: signCallback(api.config.gatewayCallbackSecret, body, new Date()),
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ received: true, duplicate: false });
  });
});
