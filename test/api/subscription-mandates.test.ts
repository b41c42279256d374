import { describe, expect, it } from '@jest/globals';
import { useApi, type TestApi } from '../helpers/api.ts';
import { makeTenant } from '../helpers/fixtures.ts';
import { waitForCheckoutStatus } from '../helpers/checkouts.ts';
import { waitFor } from '../helpers/processes.ts';

/**
 * POST /subscriptions/{id}/mandates (decision 0098): a manual subscription's payer asked for a Pix
 * Automático mandate through the API, against the worker, the simulator and its callbacks. The 201
 * is the mandate's workflow's answer (journey 2's QR code, journey 1's request and expiry); a second
 * while one waits is a 409; a rejected one is replaced; the approved one switches the subscription.
 */
let api: TestApi;
useApi((started) => ({ api } = started), { callbacksHere: true });

type Tenant = Awaited<ReturnType<typeof makeTenant>>;
const sql = (q: string, params: unknown[] = []): Promise<any[]> => api.orm.em.getConnection().execute(q, params);

/** A monthly subscription billed manually, its first period paid by pix by Ana Souza (CPF given). */
async function manualPixSubscription(tenant: Tenant) {
  const product = await api.call('POST', '/api/v1/products/', {
    token: tenant.oat,
    body: {
      organization_id: tenant.org.id,
      name: 'Clube do livro',
      prices: [{ currency: 'brl', type: 'recurring', interval: 'month', unit_amount: 3_990 }],
    },
  });
  const created = await api.call('POST', '/api/v1/checkouts/', {
    token: tenant.oat,
    body: { customer_email: 'ana@example.com', recurrence_billing: 'manual', product_id: product.body.id },
  });
  expect(created.status).toBe(201);
  const confirmed = await api.call('POST', `/api/v1/checkouts/client/${created.body.client_secret}/confirm-sdk`, {
    body: { payment_method: 'pix', customer_name: 'Ana Souza', customer_tax_id: '529.982.247-25' },
  });
  expect(confirmed.status).toBe(200);
  await api.call('POST', `/api/v1/sandbox/transactions/${confirmed.body.gateway_payment_data.transaction_id}/pay`);
  const checkout = await waitForCheckoutStatus(api.orm, created.body.id, 'succeeded');
  const [subscription] = await sql('select id from subscriptions where checkout_id = ?', [checkout.id]);
  return subscription.id as string;
}

const askFor = (tenant: Tenant, subscriptionId: string, body: Record<string, unknown>) =>
  api.call('POST', `/api/v1/subscriptions/${subscriptionId}/mandates`, { token: tenant.oat, body });

const statusOf = async (mandateId: string) =>
  (await sql('select status from mandates where id = ?', [mandateId]))[0]?.status;

describe('POST /subscriptions/{id}/mandates', () => {
  it('asks the payer by QR code and by request; refuses a second while one waits; the approved one bills the subscription', async () => {
    const tenant = await makeTenant(api.orm);
    const subscriptionId = await manualPixSubscription(tenant);

    const qr = await askFor(tenant, subscriptionId, { journey: 'qr_code' });
    expect(qr.status).toBe(201);
    expect(qr.body).toMatchObject({
      subscription_id: subscriptionId,
      status: 'created',
      journey: 'journey_2',
      periodicity: 'monthly',
      debtor: { name: 'Ana Souza', tax_id: '52998224725' },
      request: null,
    });
    expect(qr.body.qr_code).toContain(qr.body.gateway_mandate_id);
    // The row was there before the payer said anything, as answered.
    const stored = await api.call('GET', `/api/v1/mandates/${qr.body.id}`, { token: tenant.oat });
    expect(stored.body).toMatchObject({ id: qr.body.id, status: 'created', qr_code: qr.body.qr_code });

    const again = await askFor(tenant, subscriptionId, { journey: 'request' });
    expect([again.status, again.body.code]).toEqual([409, 'mandate_exists']);

    // The payer rejects it in their bank's app: the subscription may ask again.
    const rejected = await api.call('POST', `/api/v1/sandbox/mandates/${qr.body.id}/authorize`, {
      token: tenant.oat,
      body: { persona: 'rejects_authorization' },
    });
    expect(rejected.body.status).toBe('rejected');

    const request = await askFor(tenant, subscriptionId, { journey: 'request', expires_in_days: 2 });
    expect(request.status).toBe(201);
    expect(request.body).toMatchObject({ status: 'created', journey: 'journey_1', qr_code: null });
    expect(request.body.request).toMatchObject({ status: 'sent' });
    const expiresIn = Date.parse(request.body.request.expires_at) - Date.now();
    expect(expiresIn).toBeGreaterThan(2 * 86_400_000 - 60_000);
    expect(expiresIn).toBeLessThanOrEqual(2 * 86_400_000);

    // Approved: the subscription bills its next period through it.
    await api.call('POST', `/api/v1/sandbox/mandates/${request.body.id}/authorize`, {
      token: tenant.oat,
      body: { persona: 'approves' },
    });
    await waitFor(
      async () =>
        (await sql('select recurrence_billing from subscriptions where id = ?', [subscriptionId]))[0]
          .recurrence_billing === 'pix_automatico',
      { what: 'the subscription to adopt the approved mandate', timeoutMs: 30_000 },
    );
    expect(await statusOf(qr.body.id)).toBe('rejected');
    expect(await statusOf(request.body.id)).toBe('approved');
    const events = await sql(
      `select type from events where organization_id = ? and (type like 'mandate.%' or type = 'subscription.updated')
       order by id`,
      [tenant.org.id],
    );
    expect(events.map((e) => e.type)).toEqual([
      'mandate.created',
      'mandate.rejected',
      'mandate.created',
      'mandate.approved',
      'subscription.updated',
    ]);
  }, 60_000);

  it('answers the spec’s refusals', async () => {
    const tenant = await makeTenant(api.orm);
    const subscriptionId = await manualPixSubscription(tenant);
    const bad = await askFor(tenant, subscriptionId, { journey: 'push' });
    expect([bad.status, bad.body.code]).toEqual([400, 'validation_error']);
    const tooLong = await askFor(tenant, subscriptionId, { journey: 'request', expires_in_days: 31 });
    expect(tooLong.status).toBe(400);
    const account = { ispb: '91193552', agency: '2569', account: '550689' };
    const badIspb = await askFor(tenant, subscriptionId, {
      journey: 'request',
      payer_account: { ...account, ispb: '9119355' },
    });
    expect([badIspb.status, badIspb.body.code, badIspb.body.detail]).toEqual([
      422,
      'invalid_payer_account',
      'payer_account.ispb',
    ]);
    const hyphen = await askFor(tenant, subscriptionId, {
      journey: 'request',
      payer_account: { ...account, account: '55068-9' },
    });
    expect([hyphen.status, hyphen.body.detail]).toEqual([422, 'payer_account.account']);
    const qrWithAccount = await askFor(tenant, subscriptionId, { journey: 'qr_code', payer_account: account });
    expect([qrWithAccount.status, qrWithAccount.body.code]).toEqual([422, 'invalid_payer_account']);
    await sql(`update customers set tax_id = null where id = (select customer_id from subscriptions where id = ?)`, [
      subscriptionId,
    ]);
    const noCpf = await askFor(tenant, subscriptionId, { journey: 'qr_code' });
    expect([noCpf.status, noCpf.body.code]).toEqual([422, 'customer_tax_id_required']);
    await sql(`update subscriptions set cancel_at_period_end = true where id = ?`, [subscriptionId]);
    const canceling = await askFor(tenant, subscriptionId, { journey: 'qr_code' });
    expect([canceling.status, canceling.body.code]).toEqual([409, 'subscription_not_eligible']);
    expect(await sql('select id from mandates where subscription_id = ?', [subscriptionId])).toEqual([]);
  }, 60_000);

  it('with_renewal (journey 4): offered in the renewal checkout’s pix; refused where it cannot ride on one', async () => {
    const tenant = await makeTenant(api.orm);
    const subscriptionId = await manualPixSubscription(tenant);
    const refusal = async (body: Record<string, unknown>) => {
      const res = await askFor(tenant, subscriptionId, body);
      return { status: res.status, code: res.body.code, error: typeof res.body.error, detail: typeof res.body.detail };
    };
    // Renewed on a kept card: its renewals are never paid by a renewal checkout's pix.
    await sql(`update subscriptions set card_token_id = 'card_kept' where id = ?`, [subscriptionId]);
    expect(await refusal({ journey: 'with_renewal' })).toEqual({
      status: 422,
      code: 'payment_method_not_allowed',
      error: 'string',
      detail: 'string',
    });
    await sql(`update subscriptions set card_token_id = null, recurrence_billing = 'gateway' where id = ?`, [
      subscriptionId,
    ]);
    expect(await refusal({ journey: 'with_renewal' })).toEqual({
      status: 409,
      code: 'subscription_not_eligible',
      error: 'string',
      detail: 'string',
    });
    await sql(`update subscriptions set recurrence_billing = 'manual' where id = ?`, [subscriptionId]);
    expect(await sql('select id from mandates where subscription_id = ?', [subscriptionId])).toEqual([]);

    const offered = await askFor(tenant, subscriptionId, { journey: 'with_renewal' });
    expect(offered.status).toBe(201);
    expect(offered.body).toMatchObject({ status: 'created', journey: 'journey_4', subscription_id: subscriptionId });
    // Its QR code pays the renewal: shown by the renewal checkout only, never answered here.
    expect(offered.body.qr_code).toBeNull();
    // The renewal checkout it rides on is open, for the period's amount, until the payer's deadline.
    const renewals = await sql(
      `select status, amount::int as amount from checkouts where subscription_id = ? and renewal_period = 2`,
      [subscriptionId],
    );
    expect(renewals).toEqual([{ status: 'open', amount: 3_990 }]);
    // A live mandate: the next ask, whatever its journey, is refused before any gateway call.
    expect(await refusal({ journey: 'with_renewal' })).toEqual({
      status: 409,
      code: 'mandate_exists',
      error: 'string',
      detail: 'string',
    });
    expect(await refusal({ journey: 'qr_code' })).toEqual({
      status: 409,
      code: 'mandate_exists',
      error: 'string',
      detail: 'string',
    });
    expect(await sql('select journey from mandates where subscription_id = ?', [subscriptionId])).toEqual([
      { journey: 'journey_4' },
    ]);
  }, 60_000);
});
