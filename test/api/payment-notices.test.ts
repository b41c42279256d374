import { describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import { uuidv7 } from 'uuidv7';
import { sellerIdOf } from '../../api/seller-ids.ts';
import { CALLBACK_SIGNATURE_HEADER, signCallback } from '../../gateway/callback-signature.ts';
import { paymentNoticeWorkflowId } from '../../contracts/payment-notice.ts';
import { useApi, type TestApi } from '../helpers/api.ts';
import { makeOrganization } from '../helpers/fixtures.ts';
import { waitFor } from '../helpers/processes.ts';

/**
 * The simulator's signed callbacks reach a payment's owner after its workflow has ended (issue 33 §3,
 * decision 0071): a direct transaction's pix, paid at the bank once the request was answered, is
 * recorded as paid. The API listens on a port of its own, where the sandbox's callbacks go.
 */
let api: TestApi;
let temporal: Client;
useApi((started) => ({ api, temporal } = started), { callbacksHere: true });

const sql = (q: string, params: unknown[] = []): Promise<any[]> => api.orm.em.getConnection().execute(q, params);
const transactionOf = async (gatewayId: string) =>
  (
    await sql(
      `select status, captured_amount::int, confirmed_at is not null as confirmed
         from transactions where gateway_transaction_id = ?`,
      [gatewayId],
    )
  )[0];

/** A callback as the simulator signs and posts it. */
function callback(notice: Record<string, unknown>) {
  const body = JSON.stringify({ ...notice, occurredAt: new Date().toISOString() });
  return api.call('POST', '/api/v1/gateway/callbacks', {
    raw: body,
    headers: {
      'content-type': 'application/json',
      [CALLBACK_SIGNATURE_HEADER]: signCallback(api.config.gatewayCallbackSecret, body, new Date()),
    },
  });
}

describe('simulator callbacks after the owner’s workflow ended', () => {
  it('a direct transaction’s pix paid later is recorded as paid; the callback repeated changes nothing', async () => {
    const org = await makeOrganization(api.orm);
    const res = await api.call('POST', '/api/v1/transactions/direct', {
      body: { seller_id: sellerIdOf(org.id), amount: 3_300, payment_type: 'pix', customer_email: 'ana@example.com' },
      headers: { 'idempotency-key': uuidv7() },
    });
    expect([res.status, res.body.status]).toEqual([201, 'pending']);
    const id = res.body.transaction_id as string;
    expect(await transactionOf(id)).toEqual({ status: 'pending', captured_amount: 0, confirmed: false });

    const paid = await api.call('POST', `/api/v1/sandbox/transactions/${id}/pay`);
    expect([paid.status, paid.body.status]).toEqual([200, 'succeeded']);
    const run = temporal.workflow.getHandle(paymentNoticeWorkflowId(id, 'succeeded'));
    await waitFor(async () => (await transactionOf(id)).status === 'succeeded', {
      what: 'the paid pix recorded',
      timeoutMs: 20_000,
    });
    expect(await run.result()).toEqual({ owner: 'direct', synced: true, refunded: 0 });
    const firstRun = (await run.describe()).runId;
    expect(await transactionOf(id)).toEqual({ status: 'succeeded', captured_amount: 3_300, confirmed: true });

    // The same news again, in a callback of its own: a new run that finds nothing left to change.
    const res2 = await callback({
      id: `cb_${uuidv7()}`,
      type: 'transaction.updated',
      transactionId: id,
      status: 'succeeded',
    });
    expect([res2.status, res2.body]).toEqual([200, { received: true, duplicate: false }]);
    const rerun = temporal.workflow.getHandle(paymentNoticeWorkflowId(id, 'succeeded'));
    expect((await rerun.describe()).runId).not.toBe(firstRun);
    expect(await rerun.result()).toEqual({ owner: 'direct', synced: false, refunded: 0 });
    expect(await transactionOf(id)).toEqual({ status: 'succeeded', captured_amount: 3_300, confirmed: true });
  });
});
