import { beforeAll, describe, expect, it } from '@jest/globals';
import { chargebackBooks, type ChargebackBed } from '../helpers/chargebacks.ts';
import { makeOat } from '../helpers/fixtures.ts';
import { sandboxCall } from '../helpers/gateway-server.ts';
import { httpSimulatorStack } from '../helpers/mercadopago-stack.ts';

/**
 * Chargebacks over GATEWAY=http (issue 33 §3/§6, decisions 0047, 0072 and 0079): the API and a worker
 * of this file's own task queue talk to the standalone simulated-gateway server, whose sandbox routes
 * open and decide a dispute of a card sale paid through the API. The simulator behind it posts its
 * signed `chargeback.updated` callback; the engine reads the chargeback back through the HTTP adapter
 * and records it against the sale as on the embedded simulator (simulator-chargebacks.test.ts). The
 * payment shows its dispute at the gateway meanwhile; a notice of it, a refund and the ledger still
 * behave.
 */
const QUEUE = 'billing-test-http-chargebacks';
const API_KEY = 'gw_http_chargebacks_0123456789';
const stack = httpSimulatorStack(QUEUE, API_KEY);
let bed: ChargebackBed;
beforeAll(() => {
  bed = { ...stack, queue: QUEUE };
});

const { recorded, paidSale, expectDisputeRecorded, disputeRows, noticeChangesNothing } = chargebackBooks(() => bed);
const sandbox = (path: string, body: unknown) => sandboxCall(stack.baseUrl, API_KEY, path, body);
const gatewayStatus = async (paymentId: string) => (await stack.api.gateway.getTransaction(paymentId))?.status;
const refund = (sale: { saleId: string; c: { organizationId: string } }, amount?: number) =>
  makeOat(stack.api.orm, sale.c.organizationId).then((token) =>
    stack.api.call('POST', '/api/v1/refunds/', {
      token,
      body: { sale_id: sale.saleId, ...(amount ? { amount } : {}) },
    }),
  );

/** A chargeback opened, or decided, through the standalone server's sandbox routes. */
async function openChargeback(paymentId: string, body: { amount?: number } = {}) {
  const opened = await sandbox(`/transactions/${paymentId}/chargebacks`, body);
  expect(opened).toMatchObject({ status: 200, body: { transaction_id: paymentId, status: 'opened' } });
  return opened.body.id as string;
}
async function decide(chargebackId: string, outcome: 'won' | 'lost') {
  const decided = await sandbox(`/chargebacks/${chargebackId}/decide`, { outcome });
  expect(decided).toMatchObject({ status: 200, body: { status: outcome } });
}

describe('chargebacks over GATEWAY=http', () => {
  it('opened, then lost: the sale is disputed, then its money is charged back', async () => {
    const sale = await paidSale(10_000);
    const chargebackId = await openChargeback(sale.paymentId);
    expect(await recorded(chargebackId, 'opened')).toMatchObject({ status: 'opened' });
    await expectDisputeRecorded(sale, 'opened', 10_000);
    expect(await gatewayStatus(sale.paymentId)).toBe('dispute');
    // While open: no refund, and a notice of the payment changes nothing of the sold payment.
    const whileOpen = await refund(sale, 1_000);
    expect([whileOpen.status, whileOpen.body.code]).toEqual([422, 'sale_disputed']);
    await noticeChangesNothing(sale.paymentId, 'dispute');
    await expectDisputeRecorded(sale, 'opened', 10_000);

    await decide(chargebackId, 'lost');
    expect(await recorded(chargebackId, 'lost')).toMatchObject({ status: 'lost' });
    await expectDisputeRecorded(sale, 'lost', 10_000);
    expect(await gatewayStatus(sale.paymentId)).toBe('charged_back');
    expect(await disputeRows(sale.paymentId)).toEqual([-10_000]);
    await noticeChangesNothing(sale.paymentId, 'charged_back');
    const afterLost = await refund(sale);
    expect([afterLost.status, afterLost.body.code]).toEqual([422, 'nothing_to_refund']);
  });

  it('won: nothing is taken, the hold is released, and the sale can be refunded again', async () => {
    const sale = await paidSale(5_000);
    const chargebackId = await openChargeback(sale.paymentId, { amount: 2_000 });
    await recorded(chargebackId, 'opened');
    await decide(chargebackId, 'won');
    expect(await recorded(chargebackId, 'won')).toMatchObject({ status: 'won' });
    await expectDisputeRecorded(sale, 'won', 2_000);
    expect(await gatewayStatus(sale.paymentId)).toBe('succeeded');
    expect(await disputeRows(sale.paymentId)).toEqual([-2_000, 2_000]);
    const refunded = await refund(sale);
    expect(refunded).toMatchObject({ status: 201, body: { amount: 5_000, status: 'succeeded' } });
    expect(await gatewayStatus(sale.paymentId)).toBe('refunded');
  });
});
