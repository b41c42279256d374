import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { checkoutStateQuery, checkoutWorkflowId } from '../../contracts/checkout.ts';
import { SimulatedGateway } from '@billing/simulated-gateway';
import { createTemporalClient } from '../../temporal/client.ts';
import { RETRY_AFTER_SECONDS } from '../../use-cases/errors.ts';
import { startApi, type TestApi } from '../helpers/api.ts';
import { checkoutRow, makeCheckout, waitForCheckoutStatus } from '../helpers/checkouts.ts';
import { fixture, mockMercadoPago, signedNotice } from '../helpers/mercadopago-mock.ts';
import { until } from '../helpers/processes.ts';
import { expectNothingWritten } from '../helpers/unchanged.ts';

/**
 * POST /api/v1/gateway/mercadopago/notifications on an API whose gateway is Mercado Pago, its HTTP API
 * mocked (undici MockAgent); PostgreSQL and Temporal are real.
 *
 * The checkouts' workflows run on the run's worker, whose gateway is the simulator: a pending pix is
 * made there (confirmed through this API, which calls no gateway for a pix), and the mocked Mercado
 * Pago answers for the same transaction id, so the route finds our transaction row as it would in
 * production. Woken, a workflow reads its own gateway (the simulator): for "approved", the simulator's
 * pix is paid too, quietly (no callback), so that only the notification can wake the checkout.
 */
const SECRET = 'mp-webhook-secret-for-api-tests';
const URL_PATH = '/api/v1/gateway/mercadopago/notifications';
const { sent, answer } = mockMercadoPago();
let api: TestApi;
let temporal: Client;
const started: string[] = [];

beforeAll(async () => {
  api = await startApi({
    GATEWAY: 'mercadopago',
    MERCADOPAGO_ACCESS_TOKEN: 'TEST-0000-token',
    MERCADOPAGO_WEBHOOK_SECRET: SECRET,
  });
  temporal = createTemporalClient(api.config);
});
afterAll(async () => {
  // The pix left pending would wait for their deadline.
  for (const id of started) {
    await temporal.workflow
      .getHandle(checkoutWorkflowId(id))
      .terminate('test over')
      .catch(() => undefined);
  }
  await temporal.connection.close();
  await api.close();
});

/** Mercado Pago's x-signature over the manifest, with its x-request-id. */
const signed = (dataId: string, options: { ts?: number; secret?: string } = {}) =>
  signedNotice(dataId, options.secret ?? SECRET, options.ts);

/** The body Mercado Pago posts (the fields of its reference). */
const noticeBody = (dataId: string, extra: Record<string, unknown> = {}) => ({
  action: 'payment.updated',
  api_version: 'v1',
  data: { id: dataId },
  date_created: new Date().toISOString(),
  id: 123456789,
  live_mode: false,
  type: 'payment',
  user_id: '1284876322',
  ...extra,
});

const notify = (query: string, body: object, headers: Record<string, string>) =>
  api.call('POST', `${URL_PATH}${query}`, { body, headers });

/** Mercado Pago's answer for a pix payment of ours (its id is the simulator's, see above). */
const mpPix = (id: string, checkoutId: string, status: 'pending' | 'in_process' | 'approved') => ({
  ...fixture('payment-pix-pending'),
  id,
  status,
  status_detail: status === 'approved' ? 'accredited' : 'pending_waiting_transfer',
  date_approved: status === 'approved' ? new Date().toISOString() : null,
  metadata: { reference: checkoutId },
  transaction_amount: 75,
});

async function pendingPix() {
  const c = await makeCheckout(api.orm, temporal, { amount: 7_500, email: 'ana@example.com' });
  started.push(c.id);
  const pix = await api.call('POST', `/api/v1/checkouts/client/${c.clientSecret}/confirm-sdk`, {
    body: { payment_method: 'pix' },
  });
  expect([pix.status, pix.body.status]).toEqual([200, 'confirmed']);
  return { ...c, pixId: pix.body.gateway_payment_data.transaction_id as string };
}

const sql = <T = Record<string, any>>(q: string, params: unknown[] = []) =>
  api.orm.em.getConnection().execute<T[]>(q, params);

/** What the checkout's workflow was told (paymentUpdated signals), from its history. */
async function paymentNotices(checkoutId: string): Promise<unknown[]> {
  const history = await temporal.workflow.getHandle(checkoutWorkflowId(checkoutId)).fetchHistory();
  return (history.events ?? []).flatMap((e) => {
    const s = e.workflowExecutionSignaledEventAttributes;
    if (s?.signalName !== 'paymentUpdated') return [];
    return (s.input?.payloads ?? []).map((p) => defaultPayloadConverter.fromPayload(p));
  });
}

/** The woken workflow asked its gateway about the payment (its syncPayment activity completed). */
async function askedItsGateway(checkoutId: string): Promise<boolean> {
  const history = await temporal.workflow.getHandle(checkoutWorkflowId(checkoutId)).fetchHistory();
  const events = history.events ?? [];
  const scheduled = new Set(
    events
      .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'syncPayment')
      .map((e) => String(e.eventId)),
  );
  return events.some((e) => scheduled.has(String(e.activityTaskCompletedEventAttributes?.scheduledEventId)));
}

/** A pending checkout's rows: a refused or ignored notice leaves them as they are. */
const checkoutRows = (checkoutId: string) =>
  [
    ['select status, payment_method, updated_at from checkouts where id = ?', [checkoutId]],
    ['select id, status from transactions where checkout_id = ? order by id', [checkoutId]],
    ['select id from sales where checkout_id = ?', [checkoutId]],
  ] as [string, unknown[]][];

describe('Mercado Pago notifications: the signature comes first', () => {
  it('refuses a missing or wrong signature with 401, asks Mercado Pago nothing and tells the checkout nothing', async () => {
    const c = await pendingPix();
    const refused = (query: string, body: object, headers: Record<string, string>) =>
      expectNothingWritten(sql, checkoutRows(c.id), () => notify(query, body, headers));
    const query = `?data.id=${c.pixId}&type=payment`;
    const cases = [
      refused(query, noticeBody(c.pixId), {}),
      refused(query, noticeBody(c.pixId), signed(c.pixId, { secret: 'not-the-webhook-secret' })),
      // Signed for another payment: the query's id is what the signature covers.
      refused(query, noticeBody(c.pixId), signed('20359978')),
      // No id in the query: the body's is the one signed, and it is not this one.
      refused('?type=payment', noticeBody(c.pixId), signed('20359978')),
    ];
    for (const res of await Promise.all(cases)) {
      expect([res.status, res.body]).toEqual([401, { error: 'Invalid Mercado Pago signature', code: 'unauthorized' }]);
    }
    expect(sent).toEqual([]);
    expect(await paymentNotices(c.id)).toEqual([]);
  });

  // Decision 0066: `ts` is seconds in the page's example and the SDK, milliseconds in its text, and a
  // retried notice may keep it; a replay changes nothing, the payment being read again.
  it.each([
    ['in seconds, an hour old (a retried notice)', Math.floor(Date.now() / 1000) - 3600],
    ['in milliseconds', Date.now()],
  ])('reads the payment of a correctly signed notice whose ts is %s', async (_, ts) => {
    answer('GET', '/v1/payments/20359978', 404, { message: 'Payment not found', error: 'not_found', status: 404 });
    const res = await notify('?data.id=20359978&type=payment', noticeBody('20359978'), signed('20359978', { ts }));
    expect([res.status, res.body]).toEqual([200, { received: true }]);
    expect(sent.map((s) => `${s.method} ${s.path}`)).toEqual(['GET /v1/payments/20359978']);
  });

  it('acknowledges an unsigned IPN notice (?topic=&id=) and acts on nothing', async () => {
    const c = await pendingPix();
    const res = await expectNothingWritten(sql, checkoutRows(c.id), () =>
      notify(`?topic=payment&id=${c.pixId}`, { resource: c.pixId, topic: 'payment' }, {}),
    );
    expect([res.status, res.body]).toEqual([200, { received: true }]);
    expect(sent).toEqual([]);
    expect(await paymentNotices(c.id)).toEqual([]);
  });

  it('acknowledges a signed notice of another type without reading anything', async () => {
    const res = await notify(
      '?data.id=777&type=merchant_order',
      noticeBody('777', { type: 'merchant_order' }),
      signed('777'),
    );
    expect([res.status, res.body]).toEqual([200, { received: true }]);
    expect(sent).toEqual([]);
  });
});

describe('Mercado Pago notifications: what Mercado Pago says, and only that', () => {
  it('tells the checkout of a pending payment that it is pending, and the checkout keeps waiting', async () => {
    const c = await pendingPix();
    answer('GET', `/v1/payments/${c.pixId}`, 200, mpPix(c.pixId, c.id, 'in_process'));
    // The id and type only in the body (the manifest then signs the body's id).
    const res = await expectNothingWritten(sql, checkoutRows(c.id), async () => {
      const answered = await notify('', noticeBody(c.pixId), signed(c.pixId));
      await until(() => askedItsGateway(c.id), 20_000, 'the checkout to ask its gateway');
      return answered;
    });
    expect([res.status, res.body]).toEqual([200, { received: true }]);
    expect(sent.map((s) => `${s.method} ${s.path}`)).toEqual([`GET /v1/payments/${c.pixId}`]);
    expect(await paymentNotices(c.id)).toEqual([{ transactionId: c.pixId, status: 'pending' }]);
    const state = await temporal.workflow.getHandle(checkoutWorkflowId(c.id)).query(checkoutStateQuery);
    expect([state.status, state.pendingTransactionId]).toEqual(['confirmed', c.pixId]);
  });

  it('settles the checkout of a payment Mercado Pago says is approved', async () => {
    const c = await pendingPix();
    // Paid at the gateway, with no notice of it yet: only this notification can wake the checkout.
    await new SimulatedGateway(api.orm).pay(c.pixId);
    answer('GET', `/v1/payments/${c.pixId}`, 200, mpPix(c.pixId, c.id, 'approved'));
    const res = await notify(`?data.id=${c.pixId}&type=payment`, noticeBody(c.pixId), signed(c.pixId));
    expect([res.status, res.body]).toEqual([200, { received: true }]);
    const row = await waitForCheckoutStatus(api.orm, c.id, 'succeeded');
    expect(row.payment_method).toBe('pix');
    expect(await sql('select amount from sales where checkout_id = ?', [c.id])).toEqual([{ amount: '7500' }]);
    expect(await paymentNotices(c.id)).toEqual([{ transactionId: c.pixId, status: 'succeeded' }]);
  });

  it('believes nothing of a forged body: only the signed payment is read, with the status Mercado Pago gives', async () => {
    const [a, b] = [await pendingPix(), await pendingPix()];
    answer('GET', `/v1/payments/${a.pixId}`, 200, mpPix(a.pixId, a.id, 'pending'));
    // Signed for A (a genuine notice), its body rewritten to claim B approved.
    const forged = noticeBody(b.pixId, { action: 'payment.approved', status: 'approved', transaction_amount: 75 });
    const res = await expectNothingWritten(sql, [...checkoutRows(a.id), ...checkoutRows(b.id)], async () => {
      const answered = await notify(`?data.id=${a.pixId}&type=payment`, forged, signed(a.pixId));
      await until(() => askedItsGateway(a.id), 20_000, 'checkout A to ask its gateway');
      return answered;
    });
    expect([res.status, res.body]).toEqual([200, { received: true }]);
    expect(sent.map((s) => s.path)).toEqual([`/v1/payments/${a.pixId}`]);
    expect(await paymentNotices(a.id)).toEqual([{ transactionId: a.pixId, status: 'pending' }]);
    expect(await paymentNotices(b.id)).toEqual([]);
    expect((await checkoutRow(api.orm, b.id)).status).toBe('confirmed');
  });

  it('finds the checkout by the payment’s own reference when our transaction row is not there yet', async () => {
    const c = await makeCheckout(api.orm, temporal, { amount: 7_500 });
    started.push(c.id);
    answer('GET', '/v1/payments/5466310457', 200, mpPix('5466310457', c.id, 'pending'));
    const res = await notify('?data.id=5466310457&type=payment', noticeBody('5466310457'), signed('5466310457'));
    expect(res.status).toBe(200);
    // One read: the record already read names the checkout.
    expect(sent).toHaveLength(1);
    // A signal that comes while a workflow task runs enters the history when that task completes.
    await until(async () => (await paymentNotices(c.id)).length > 0, 20_000, 'the signal in the history');
    expect(await paymentNotices(c.id)).toEqual([{ transactionId: '5466310457', status: 'pending' }]);
  });

  it('acknowledges a payment Mercado Pago does not know (a forged id is not retried forever)', async () => {
    answer('GET', '/v1/payments/404404', 404, {
      message: 'Payment not found',
      error: 'not_found',
      status: 404,
      cause: [{ code: 2000, description: 'Payment not found' }],
    });
    const res = await notify('?data.id=404404&type=payment', noticeBody('404404'), signed('404404'));
    expect([res.status, res.body]).toEqual([200, { received: true }]);
    expect(sent).toHaveLength(1);
  });

  it('answers 503 while Mercado Pago cannot be read, so that it notifies again', async () => {
    answer('GET', '/v1/payments/20359978', 500, { message: 'internal error', error: 'internal_error', status: 500 });
    const res = await notify('?data.id=20359978&type=payment', noticeBody('20359978'), signed('20359978'));
    expect([res.status, res.body.code, res.headers['retry-after']]).toEqual([
      503,
      'temporarily_unavailable',
      String(RETRY_AFTER_SECONDS),
    ]);
  });
});

describe('Mercado Pago notifications: where they are served', () => {
  it.each([
    ['the simulator', {}],
    ['Mercado Pago without a webhook secret', { GATEWAY: 'mercadopago', MERCADOPAGO_ACCESS_TOKEN: 'TEST-0000-token' }],
  ])('is an unknown route with %s', async (_, env) => {
    const other = await startApi(env);
    try {
      const res = await other.call('POST', `${URL_PATH}?data.id=1&type=payment`, {
        body: noticeBody('1'),
        headers: signed('1'),
      });
      expect([res.status, res.body.code]).toEqual([404, 'route_not_found']);
    } finally {
      await other.close();
    }
  });
});
