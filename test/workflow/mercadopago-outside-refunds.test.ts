import { beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import type { TestApi } from '../helpers/api.ts';
import { mercadoPagoTestbed } from '../helpers/mercadopago-testbed.ts';
import { makeOat } from '../helpers/fixtures.ts';
import { gatewayRefundsWorkflowId } from '../../contracts/refund.ts';
import { recordHistory } from '../helpers/histories.ts';
import { waitFor } from '../helpers/processes.ts';

/**
 * A refund made in Mercado Pago's panel (issue 33 §3, decision 0068): Mercado Pago sends a `payment`
 * notice, its payment shows the refund in `refunds[]` and `transaction_amount_refunded`, and the
 * engine records it as a refund of the sale, with the events a refund through the API gives. The API
 * and a worker of this file's own task queue, on the Mercado Pago adapter over the stateful fake.
 */
const QUEUE = 'billing-test-mercadopago-outside-refunds';
const WEBHOOK_SECRET = 'mp-webhook-secret-of-the-outside-refunds-test';
const { mp, stack, sql, paidSale, notifyPayment: notify } = mercadoPagoTestbed(QUEUE, WEBHOOK_SECRET);
let api: TestApi;
let temporal: Client;
beforeAll(() => {
  ({ api, temporal } = stack);
});

const refundsOf = (saleId: string) =>
  sql('select amount::int, status, reason from refunds where sale_id = ? order by created_at', [saleId]);
const saleOf = async (saleId: string) =>
  (await sql('select status, refunded_amount::int from sales where id = ?', [saleId]))[0];
const eventsOf = async (organizationId: string) =>
  (
    await sql(
      `select type, data from events where organization_id = ? and type in ('refund.created', 'sale.refunded')
        order by created_at, id`,
      [organizationId],
    )
  ).map((e) => ({ type: e.type, status: e.data.status, amount: e.data.amount, reason: e.data.reason }));

describe('Mercado Pago: a refund made in its panel', () => {
  it('a full refund is recorded as a refund of the sale, with its events; the same notice twice adds nothing', async () => {
    const { saleId, paymentId, c } = await paidSale(10_000);
    const refundId = mp.refundAtPanel(paymentId);
    await notify(paymentId);
    await waitFor(async () => (await refundsOf(saleId)).length > 0, { what: "the panel's refund", timeoutMs: 20_000 });
    expect(await refundsOf(saleId)).toEqual([
      { amount: 10_000, status: 'succeeded', reason: `gateway: refunded at the gateway (refund ${refundId})` },
    ]);
    expect(await saleOf(saleId)).toEqual({ status: 'refunded', refunded_amount: 10_000 });
    const [t] = await sql('select status, refunded_amount::int from transactions where gateway_transaction_id = ?', [
      paymentId,
    ]);
    expect(t).toEqual({ status: 'refunded', refunded_amount: 10_000 });
    expect(await eventsOf(c.organizationId)).toEqual([
      { type: 'refund.created', status: 'succeeded', amount: 10_000, reason: expect.stringContaining(refundId) },
      { type: 'sale.refunded', status: 'refunded', amount: 10_000, reason: undefined },
    ]);

    // Mercado Pago sends it again (and again): the runs they start record nothing more.
    const run = temporal.workflow.getHandle(gatewayRefundsWorkflowId(paymentId, 10_000));
    await run.result();
    await recordHistory(temporal, 'gateway-refunds-recorded', run.workflowId);
    await notify(paymentId);
    await notify(paymentId);
    expect(await run.result()).toMatchObject({ recorded: null });
    expect(await refundsOf(saleId)).toHaveLength(1);
    expect(await eventsOf(c.organizationId)).toHaveLength(2);
  });

  it('a partial one leaves the sale partly refunded; a refund through the API after it is sized by what is left', async () => {
    const { saleId, paymentId, c } = await paidSale(10_000);
    mp.refundAtPanel(paymentId, 30);
    await notify(paymentId);
    await waitFor(async () => (await refundsOf(saleId)).length > 0, { what: "the panel's refund", timeoutMs: 20_000 });
    expect(await refundsOf(saleId)).toMatchObject([{ amount: 3_000, status: 'succeeded' }]);
    expect(await saleOf(saleId)).toEqual({ status: 'partially_refunded', refunded_amount: 3_000 });
    expect((await eventsOf(c.organizationId)).map((e) => e.type)).toEqual(['refund.created', 'sale.refunded']);

    // The engine's own refund of the rest: Mercado Pago notifies it too, and it is not counted twice.
    const oat = await makeOat(api.orm, c.organizationId, ['web:write', 'web:read']);
    const rest = await api.call('POST', '/api/v1/refunds/', { token: oat, body: { sale_id: saleId } });
    expect(rest.body).toMatchObject({ amount: 7_000, status: 'succeeded' });
    await notify(paymentId);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect((await refundsOf(saleId)).map((r) => r.amount)).toEqual([3_000, 7_000]);
    expect(await saleOf(saleId)).toEqual({ status: 'refunded', refunded_amount: 10_000 });
  });
});
