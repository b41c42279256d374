import { describe, expect, it } from '@jest/globals';
import { useApi, type TestApi } from '../helpers/api.ts';
import { makeTenant } from '../helpers/fixtures.ts';
import { waitForCheckoutStatus } from '../helpers/checkouts.ts';
import { waitFor } from '../helpers/processes.ts';

/**
 * The buyer's choice of Pix Automático (decision 0096's opt-in): a checkout the merchant created with
 * recurrence_billing manual (or left out) for a monthly price is confirmed with pix and
 * `pix_automatico: true`; its QR code is the mandate's (journey 3), the sandbox's payer answers it by the
 * checkout, and the sale's subscription is billed by the mandate. What the rules refuse, they refuse
 * before any gateway call, with nothing written.
 */
let api: TestApi;
useApi((started) => ({ api } = started), { callbacksHere: true });

type Tenant = Awaited<ReturnType<typeof makeTenant>>;
const sql = (q: string, params: unknown[] = []): Promise<any[]> => api.orm.em.getConnection().execute(q, params);

const MONTHLY = { type: 'recurring', interval: 'month', unit_amount: 3_990 };
const PAYER = { customer_name: 'Ana Souza', customer_tax_id: '529.982.247-25' };

async function checkoutOf(tenant: Tenant, price: Record<string, unknown>, body: Record<string, unknown> = {}) {
  const product = await api.call('POST', '/api/v1/products/', {
    token: tenant.oat,
    body: { organization_id: tenant.org.id, name: 'Clube do livro', prices: [{ currency: 'brl', ...price }] },
  });
  expect(product.status).toBe(201);
  const created = await api.call('POST', '/api/v1/checkouts/', {
    token: tenant.oat,
    body: { product_id: product.body.id, customer_email: 'ana@example.com', ...body },
  });
  expect(created.status).toBe(201);
  const secret = created.body.client_secret as string;
  return {
    id: created.body.id as string,
    offered: async () =>
      (await api.call('GET', `/api/v1/checkouts/client/${secret}`)).body.pix_automatico_offered as boolean,
    confirm: (confirmation: Record<string, unknown>) =>
      api.call('POST', `/api/v1/checkouts/client/${secret}/confirm-sdk`, { body: confirmation }),
  };
}

const authorizeByCheckout = (tenant: Tenant, checkoutId: string, persona = 'approves') =>
  api.call('POST', `/api/v1/sandbox/checkouts/${checkoutId}/mandate/authorize`, {
    token: tenant.oat,
    body: { persona },
  });

/** Nothing reached the gateway or the row: the checkout is open, with no payment and no confirmation. */
async function expectUntouched(checkoutId: string) {
  const [row] = await sql('select status, gateway_payment_data, confirmation from checkouts where id = ?', [
    checkoutId,
  ]);
  expect(row).toEqual({ status: 'open', gateway_payment_data: null, confirmation: null });
}

describe("the buyer's choice of Pix Automático", () => {
  it('pays a manual checkout’s first period with the mandate’s QR code; the subscription is billed by the mandate', async () => {
    const tenant = await makeTenant(api.orm);
    const c = await checkoutOf(tenant, MONTHLY, { recurrence_billing: 'manual' });
    expect(await c.offered()).toBe(true);
    // The sandbox's payer has no QR code to read before the buyer chose one.
    const early = await authorizeByCheckout(tenant, c.id);
    expect([early.status, early.body.code]).toEqual([422, 'no_pending_mandate']);

    const confirmed = await c.confirm({ payment_method: 'pix', pix_automatico: true, ...PAYER });
    expect([confirmed.status, confirmed.body.status]).toEqual([200, 'confirmed']);
    const data = confirmed.body.gateway_payment_data;
    expect(data.pix_automatico).toMatchObject({ periodicity: 'monthly', amount: 3_990 });
    expect(data.pix.qr_code).toContain(data.pix_automatico.mandate_id);
    // The merchant's choice stays the checkout's; the buyer's is the confirmation's.
    const [row] = await sql('select recurrence_billing, confirmation from checkouts where id = ?', [c.id]);
    expect([row.recurrence_billing, row.confirmation.pix_automatico]).toEqual(['manual', true]);

    // Another organization's credential finds no such checkout; its own pays and authorizes without a bank app.
    const other = await makeTenant(api.orm);
    expect((await authorizeByCheckout(other, c.id)).status).toBe(404);
    const answered = await authorizeByCheckout(tenant, c.id);
    expect(answered.status).toBe(200);
    expect(answered.body).toMatchObject({
      id: data.pix_automatico.mandate_id,
      status: 'approved',
      journey: 'journey_3',
      first_payment_id: data.transaction_id,
    });

    await waitForCheckoutStatus(api.orm, c.id, 'succeeded');
    const [subscription] = await sql('select id, recurrence_billing, status from subscriptions where checkout_id = ?', [
      c.id,
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
      debtor: { name: 'Ana Souza', tax_id: '52998224725' },
    });
    const [paid] = await sql('select status, gateway_payment_data from checkouts where id = ?', [c.id]);
    expect(paid.gateway_payment_data.pix_automatico.mandate_id).toBe(data.pix_automatico.mandate_id);
    // Paid: no QR code waits any more.
    const again = await authorizeByCheckout(tenant, c.id);
    expect([again.status, again.body.code]).toEqual([422, 'no_pending_mandate']);
  });

  it('is offered where recurrence_billing was left out; without it, the pix is a plain one', async () => {
    const tenant = await makeTenant(api.orm);
    const chosen = await checkoutOf(tenant, MONTHLY);
    expect(await chosen.offered()).toBe(true);
    const optedIn = await chosen.confirm({ payment_method: 'pix', pix_automatico: true, ...PAYER });
    expect(optedIn.status).toBe(200);
    expect(optedIn.body.gateway_payment_data.pix_automatico.periodicity).toBe('monthly');

    const plain = await checkoutOf(tenant, MONTHLY, { recurrence_billing: 'manual' });
    const confirmed = await plain.confirm({ payment_method: 'pix', pix_automatico: false });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.gateway_payment_data.pix).toBeDefined();
    expect(confirmed.body.gateway_payment_data.pix_automatico).toBeUndefined();
    const refused = await authorizeByCheckout(tenant, plain.id);
    expect([refused.status, refused.body.code]).toEqual([422, 'no_pending_mandate']);
  });

  it('is refused (422) for a price it cannot bill, a trial, or a payer without name or tax id; nothing is written', async () => {
    const tenant = await makeTenant(api.orm);
    const cases = [
      [{ type: 'recurring', interval: 'day', unit_amount: 990 }, {}, 'pix_automatico_not_allowed'],
      [{ type: 'one_time', unit_amount: 990 }, {}, 'pix_automatico_not_allowed'],
      [MONTHLY, { trial_interval: 'day', trial_interval_count: 7 }, 'pix_automatico_not_allowed'],
    ] as const;
    for (const [price, terms, code] of cases) {
      const c = await checkoutOf(tenant, price, terms);
      expect(await c.offered()).toBe(false);
      const res = await c.confirm({ payment_method: 'pix', pix_automatico: true, ...PAYER });
      expect([res.status, res.body.code]).toEqual([422, code]);
      expect(res.body.error).toEqual(expect.any(String));
      await expectUntouched(c.id);
    }
    const c = await checkoutOf(tenant, MONTHLY, { recurrence_billing: 'manual' });
    const nameless = await c.confirm({ payment_method: 'pix', pix_automatico: true, customer_tax_id: '52998224725' });
    expect([nameless.status, nameless.body.code]).toEqual([422, 'customer_name_required']);
    const untaxed = await c.confirm({ payment_method: 'pix', pix_automatico: true, customer_name: 'Ana Souza' });
    expect([untaxed.status, untaxed.body.code]).toEqual([422, 'customer_tax_id_required']);
    await expectUntouched(c.id);
  });

  it('is a 400 when malformed or sent with another method', async () => {
    const tenant = await makeTenant(api.orm);
    const c = await checkoutOf(tenant, MONTHLY, { recurrence_billing: 'manual' });
    const notBoolean = await c.confirm({ payment_method: 'pix', pix_automatico: 'yes', ...PAYER });
    expect([notBoolean.status, notBoolean.body.code]).toEqual([400, 'validation_error']);
    const boleto = await c.confirm({ payment_method: 'boleto', pix_automatico: true, ...PAYER });
    expect([boleto.status, boleto.body.code]).toEqual([400, 'invalid_request']);
    expect(boleto.body.error).toMatch(/pix_automatico/);
    await expectUntouched(c.id);
  });
});
