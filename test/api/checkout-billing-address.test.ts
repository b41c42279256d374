import { describe, expect, it } from '@jest/globals';
import { useApi, type TestApi } from '../helpers/api.ts';
import { makeTenant, unique } from '../helpers/fixtures.ts';
import { waitForCheckoutStatus } from '../helpers/checkouts.ts';

/** A checkout with require_billing_address takes the buyer's address with the confirmation, or refuses it. */
let api: TestApi;
useApi((started) => ({ api } = started));

const sql = <T = any>(text: string, params: unknown[] = []) => api.orm.em.getConnection().execute<T[]>(text, params);
const card = {
  number: '4111111111111111',
  holder_name: 'ANA',
  expiration_month: '12',
  expiration_year: '30',
  cvv: '123',
};

async function checkoutRequiringAddress() {
  const t = await makeTenant(api.orm);
  const product = await api.call('POST', '/api/v1/products/', {
    token: t.oat,
    body: {
      organization_id: t.org.id,
      name: unique('Kit'),
      prices: [{ type: 'one_time', currency: 'brl', unit_amount: 2_000 }],
    },
  });
  const checkout = await api.call('POST', '/api/v1/checkouts/', {
    token: t.oat,
    body: { product_id: product.body.id, require_billing_address: true, customer_email: 'ana@example.com' },
  });
  expect(checkout.status).toBe(201);
  return checkout.body as { id: string; client_secret: string };
}

describe('confirm-sdk on a checkout that requires a billing address', () => {
  it('refuses a confirmation without one (422), charging and writing nothing', async () => {
    const c = await checkoutRequiringAddress();
    const res = await api.call('POST', `/api/v1/checkouts/client/${c.client_secret}/confirm-sdk`, {
      body: { payment_method: 'credit_card', card },
    });
    expect([res.status, res.body.code, res.body.error]).toEqual([
      422,
      'customer_billing_address_required',
      'customer_billing_address is required',
    ]);
    const [row] = await sql('select status, payment_method, customer_billing_address from checkouts where id = ?', [
      c.id,
    ]);
    expect(row).toEqual({ status: 'open', payment_method: null, customer_billing_address: null });
  });

  it('stores the address on the checkout and its customer', async () => {
    const c = await checkoutRequiringAddress();
    const address = {
      line1: 'Rua Augusta, 1500',
      city: 'São Paulo',
      state: 'SP',
      postal_code: '01304-001',
      country: 'br',
    };
    const res = await api.call('POST', `/api/v1/checkouts/client/${c.client_secret}/confirm-sdk`, {
      body: { payment_method: 'credit_card', card, customer_billing_address: address },
    });
    expect([res.status, res.body.status]).toEqual([200, 'succeeded']);
    const stored = { ...address, country: 'BR' };
    const row = await waitForCheckoutStatus(api.orm, c.id, 'succeeded');
    expect(row.customer_billing_address).toEqual(stored);
    const [customer] = await sql('select billing_address from customers where email = ? and id = ?', [
      'ana@example.com',
      row.customer_id,
    ]);
    expect(customer.billing_address).toEqual(stored);
  });
});
