import { describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import { checkoutWorkflowId } from '../../contracts/checkout.ts';
import type { SimulatedGateway } from '@billing/simulated-gateway';
import { useApi, type TestApi } from '../helpers/api.ts';
import { ledgerOf, makeCheckout, waitForCheckoutStatus } from '../helpers/checkouts.ts';
import { until } from '../helpers/processes.ts';

/**
 * A buyer waiting on a pix or boleto pays by card instead: the pending charge is cancelled at the
 * gateway and the card is charged; a pix a bank pays anyway is refunded by the checkout's workflow.
 */
let api: TestApi;
let temporal: Client;
// The API listens on a port of its own: the sandbox's callbacks (a pix paid) go there.
useApi((started) => ({ api, temporal } = started), { callbacksHere: true });

const card = (number = '4111111111111111') => ({
  number,
  holder_name: 'ANA SOUZA',
  expiration_month: '12',
  expiration_year: '2030',
  cvv: '123',
  installments: 1,
});
const confirm = (secret: string, body: Record<string, unknown>) =>
  api.call('POST', `/api/v1/checkouts/client/${secret}/confirm-sdk`, { body });
const gatewayTransaction = async (id: string) => (await api.gateway.getTransaction(id))!;

async function pendingPix() {
  const c = await makeCheckout(api.orm, temporal, { amount: 7_500, email: 'ana@example.com' });
  const pix = await confirm(c.clientSecret, { payment_method: 'pix' });
  expect([pix.status, pix.body.status]).toEqual([200, 'confirmed']);
  return { ...c, pixId: pix.body.gateway_payment_data.transaction_id as string };
}

describe('paying by card a checkout that waits on a pix or boleto', () => {
  it('cancels the pix, charges the card once, and refunds the pix a bank pays anyway', async () => {
    const c = await pendingPix();
    const paid = await confirm(c.clientSecret, { payment_method: 'credit_card', card: card() });
    expect([paid.status, paid.body.status, paid.body.payment_method]).toEqual([200, 'succeeded', 'credit_card']);
    expect((await gatewayTransaction(c.pixId)).status).toBe('canceled');
    const sales = await api.orm.em.getConnection().execute('select amount from sales where checkout_id = ?', [c.id]);
    expect(sales).toEqual([{ amount: '7500' }]);

    // The buyer's bank pays the cancelled pix anyway: the checkout's workflow gives it back in full.
    const late = await api.call('POST', `/api/v1/sandbox/transactions/${c.pixId}/pay`);
    expect([late.status, late.body.status]).toEqual([200, 'succeeded']);
    await until(
      async () => (await gatewayTransaction(c.pixId)).refundedAmount === 7_500,
      20_000,
      'the late pix refunded',
    );
    expect(await ledgerOf(api.orm, c.id)).toEqual({ captures: 2, captured: 15_000, refunds: 1, refunded: 7_500 });
    expect(await api.orm.em.getConnection().execute('select id from sales where checkout_id = ?', [c.id])).toHaveLength(
      1,
    );
  });

  it('leaves a boleto for a declined card, then a good one: open again between, one sale', async () => {
    const c = await makeCheckout(api.orm, temporal, { amount: 5_000, email: 'bruno@example.com' });
    const boleto = await confirm(c.clientSecret, {
      payment_method: 'boleto',
      customer_name: 'Bruno Lima',
      customer_tax_id: '52998224725',
    });
    expect(boleto.body.status).toBe('confirmed');
    const boletoId = boleto.body.gateway_payment_data.transaction_id;
    const declined = await confirm(c.clientSecret, { payment_method: 'credit_card', card: card('4000000000000002') });
    expect([declined.status, declined.body.decline_reason]).toEqual([422, 'card_declined']);
    expect((await gatewayTransaction(boletoId)).status).toBe('canceled');
    // Open for another card; the boleto is gone, so a second move away from it is an ordinary confirmation.
    const paid = await confirm(c.clientSecret, { payment_method: 'credit_card', card: card() });
    expect(paid.body.status).toBe('succeeded');
    expect(await ledgerOf(api.orm, c.id)).toEqual({ captures: 1, captured: 5_000, refunds: 0, refunded: 0 });
  });

  it('keeps a pix paid before its cancellation as the sale, and refuses the card', async () => {
    const c = await pendingPix();
    const sim = api.gateway as SimulatedGateway;
    const url = sim.callbacks.callbackUrl;
    // Paid at the gateway, its notice not yet with us: the cancellation finds it paid.
    sim.callbacks.callbackUrl = undefined;
    try {
      await sim.pay(c.pixId);
    } finally {
      sim.callbacks.callbackUrl = url;
    }
    const refused = await confirm(c.clientSecret, { payment_method: 'credit_card', card: card() });
    expect([refused.status, refused.body.code]).toEqual([409, 'checkout_not_open']);
    const row = await waitForCheckoutStatus(api.orm, c.id, 'succeeded');
    expect(row.payment_method).toBe('pix');
    expect(await ledgerOf(api.orm, c.id)).toEqual({ captures: 1, captured: 7_500, refunds: 0, refunded: 0 });
  });

  it('refuses a pix or boleto in place of a pending pix (only a card replaces it)', async () => {
    const c = await pendingPix();
    const again = await confirm(c.clientSecret, { payment_method: 'pix' });
    expect([again.status, again.body.code]).toEqual([409, 'checkout_not_open']);
    expect((await gatewayTransaction(c.pixId)).status).toBe('pending');
    await temporal.workflow.getHandle(checkoutWorkflowId(c.id)).terminate('test over');
  });
});
