import { expect } from '@jest/globals';
import type { TestApi } from './api.ts';
import type { makeTenant } from './fixtures.ts';
import { waitForCheckoutStatus } from './checkouts.ts';

type Tenant = Awaited<ReturnType<typeof makeTenant>>;

/**
 * A buyer subscribes the way the hosted checkout does it with Pix Automático (journey 3): a monthly
 * R$ 39,90 product of `tenant`, a checkout billed `pix_automatico`, confirmed with pix by Ana Souza
 * (CPF 529.982.247-25), and its QR code paid at the sandbox, which also authorizes the mandate. Answers
 * once the checkout succeeded, with the checkout and its subscription (whose mandate is adopted after).
 */
export async function subscribeByPixAutomatico(api: TestApi, tenant: Tenant) {
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
    body: { customer_email: 'ana@example.com', recurrence_billing: 'pix_automatico', product_id: product.body.id },
  });
  const confirmed = await api.call('POST', `/api/v1/checkouts/client/${created.body.client_secret}/confirm-sdk`, {
    body: { payment_method: 'pix', customer_name: 'Ana Souza', customer_tax_id: '529.982.247-25' },
  });
  expect([confirmed.status, confirmed.body.status]).toEqual([200, 'confirmed']);
  const paid = await api.call(
    'POST',
    `/api/v1/sandbox/transactions/${confirmed.body.gateway_payment_data.transaction_id}/pay`,
  );
  expect(paid.body.status).toBe('succeeded');
  const checkout = await waitForCheckoutStatus(api.orm, created.body.id, 'succeeded');
  const [subscription] = await api.orm.em
    .getConnection()
    .execute('select id, current_period_end from subscriptions where checkout_id = ?', [checkout.id]);
  return { checkoutId: checkout.id as string, subscription: subscription as { id: string; current_period_end: Date } };
}
