import { describe, expect, it } from '@jest/globals';
import { useApi, type TestApi } from '../helpers/api.ts';
import { makeTenant } from '../helpers/fixtures.ts';
import { waitForCheckoutStatus } from '../helpers/checkouts.ts';
import { waitFor } from '../helpers/processes.ts';

/**
 * A Pix Automático checkout (decision 0096, journey 3) through the API: created for a monthly price
 * with recurrence_billing pix_automatico, confirmed with pix, whose QR code pays the first period and
 * authorizes the mandate at once; the sale's subscription is billed by Pix Automático and adopts the
 * mandate, which the mandates API shows approved. What such a checkout refuses, it refuses before any
 * gateway call.
 */
let api: TestApi;
useApi((started) => ({ api } = started), { callbacksHere: true });

type Tenant = Awaited<ReturnType<typeof makeTenant>>;
const sql = (q: string, params: unknown[] = []): Promise<any[]> => api.orm.em.getConnection().execute(q, params);

async function productOf(tenant: Tenant, price: Record<string, unknown>) {
  const res = await api.call('POST', '/api/v1/products/', {
    token: tenant.oat,
    body: { organization_id: tenant.org.id, name: 'Clube do livro', prices: [{ currency: 'brl', ...price }] },
  });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

const MONTHLY = { type: 'recurring', interval: 'month', unit_amount: 3_990 };

const createCheckout = (tenant: Tenant, body: Record<string, unknown>) =>
  api.call('POST', '/api/v1/checkouts/', {
    token: tenant.oat,
    body: { customer_email: 'ana@example.com', recurrence_billing: 'pix_automatico', ...body },
  });

describe('a Pix Automático checkout', () => {
  it('pays the first period with the mandate’s QR code; the subscription adopts the approved mandate', async () => {
    const tenant = await makeTenant(api.orm);
    const created = await createCheckout(tenant, { product_id: await productOf(tenant, MONTHLY) });
    expect([created.status, created.body.recurrence_billing]).toEqual([201, 'pix_automatico']);

    const confirmed = await api.call('POST', `/api/v1/checkouts/client/${created.body.client_secret}/confirm-sdk`, {
      body: { payment_method: 'pix', customer_name: 'Ana Souza', customer_tax_id: '529.982.247-25' },
    });
    expect([confirmed.status, confirmed.body.status]).toEqual([200, 'confirmed']);
    const data = confirmed.body.gateway_payment_data;
    // The buyer is shown the mandate's terms: every month, R$ 39,90, from a month after today.
    expect(data.pix_automatico).toMatchObject({ periodicity: 'monthly', amount: 3_990 });
    expect(data.pix_automatico.mandate_id).toMatch(/^R[RN][0-9A-Za-z]{27}$/);
    expect(data.pix.qr_code).toContain(data.pix_automatico.mandate_id);

    // The buyer's bank pays the QR code's pix, which authorizes the mandate.
    const paid = await api.call('POST', `/api/v1/sandbox/transactions/${data.transaction_id}/pay`);
    expect(paid.body.status).toBe('succeeded');
    const checkout = await waitForCheckoutStatus(api.orm, created.body.id, 'succeeded');
    const [subscription] = await sql('select id, recurrence_billing, status from subscriptions where checkout_id = ?', [
      checkout.id,
    ]);
    expect(subscription).toMatchObject({ recurrence_billing: 'pix_automatico', status: 'active' });

    const mandate = await waitFor(
      async () => {
        const list = await api.call('GET', `/api/v1/mandates/?subscription_id=${subscription.id}`, {
          token: tenant.oat,
        });
        return list.body.items?.[0]?.status === 'approved' ? list.body.items[0] : null;
      },
      { what: 'the subscription to adopt its approved mandate', timeoutMs: 20_000 },
    );
    expect(mandate).toMatchObject({
      gateway_mandate_id: data.pix_automatico.mandate_id,
      journey: 'journey_3',
      periodicity: 'monthly',
      retry_policy: 'three_in_seven_days',
      start_date: data.pix_automatico.start_date,
      debtor: { name: 'Ana Souza', tax_id: '52998224725' },
    });
    const events = await sql(
      `select type from events where organization_id = ? and type like 'mandate.%' order by id`,
      [tenant.org.id],
    );
    expect(events.map((e) => e.type)).toEqual(['mandate.created', 'mandate.approved']);
  });

  it('is paid with pix only, by a debtor with a name and a tax id', async () => {
    const tenant = await makeTenant(api.orm);
    const created = await createCheckout(tenant, { product_id: await productOf(tenant, MONTHLY) });
    const confirm = (body: Record<string, unknown>) =>
      api.call('POST', `/api/v1/checkouts/client/${created.body.client_secret}/confirm-sdk`, { body });
    const boleto = await confirm({
      payment_method: 'boleto',
      customer_name: 'Ana Souza',
      customer_tax_id: '52998224725',
    });
    expect([boleto.status, boleto.body.code]).toEqual([422, 'payment_method_not_allowed']);
    const nameless = await confirm({ payment_method: 'pix', customer_tax_id: '52998224725' });
    expect([nameless.status, nameless.body.code]).toEqual([422, 'customer_name_required']);
    const untaxed = await confirm({ payment_method: 'pix', customer_name: 'Ana Souza' });
    expect([untaxed.status, untaxed.body.code]).toEqual([422, 'customer_tax_id_required']);
    // Nothing reached the gateway: the checkout is still open, with no payment.
    const [row] = await sql('select status, gateway_payment_data from checkouts where id = ?', [created.body.id]);
    expect(row).toEqual({ status: 'open', gateway_payment_data: null });
  });

  it('needs a weekly to yearly price and no trial', async () => {
    const tenant = await makeTenant(api.orm);
    const daily = await createCheckout(tenant, {
      product_id: await productOf(tenant, { type: 'recurring', interval: 'day', unit_amount: 990 }),
    });
    expect([daily.status, daily.body.code]).toEqual([422, 'pix_automatico_not_allowed']);
    const once = await createCheckout(tenant, {
      product_id: await productOf(tenant, { type: 'one_time', unit_amount: 990 }),
    });
    expect([once.status, once.body.code]).toEqual([422, 'recurrence_billing_not_allowed']);
    const trial = await createCheckout(tenant, {
      product_id: await productOf(tenant, MONTHLY),
      trial_interval: 'day',
      trial_interval_count: 7,
    });
    expect([trial.status, trial.body.code]).toEqual([422, 'pix_automatico_not_allowed']);
    expect(await sql('select id from checkouts where organization_id = ?', [tenant.org.id])).toEqual([]);
  });
});
