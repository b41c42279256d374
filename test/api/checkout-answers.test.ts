import { describe, expect, it } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { useApi, type TestApi } from '../helpers/api.ts';
import { makeTenant } from '../helpers/fixtures.ts';
import { REPO_ROOT } from '../../scripts/tool-paths.ts';

/**
 * What an integration needs in the API's answers (issue 34 §4): a checkout's hosted page address, the
 * customer and subscription a confirmation made, and the README's metrics call as the API takes it.
 */
let api: TestApi;
useApi((stack) => ({ api } = stack));

const card = {
  number: '4111111111111111',
  holder_name: 'Ana Souza',
  expiration_month: '12',
  expiration_year: '2031',
  cvv: '123',
  installments: 1,
};

/** A tenant's product, made through the API: one-time, or billed monthly. */
async function productOf(tenant: Awaited<ReturnType<typeof makeTenant>>, recurring = false) {
  const price = recurring
    ? { type: 'recurring', interval: 'month', currency: 'brl', unit_amount: 3990 }
    : { type: 'one_time', currency: 'brl', unit_amount: 4990 };
  const res = await api.call('POST', '/api/v1/products/', {
    token: tenant.oat,
    body: { organization_id: tenant.org.id, name: 'T-shirt', prices: [price] },
  });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

async function checkoutOf(tenant: Awaited<ReturnType<typeof makeTenant>>, recurring = false) {
  const productId = await productOf(tenant, recurring);
  const res = await api.call('POST', '/api/v1/checkouts/', {
    token: tenant.oat,
    body: { product_id: productId, customer_email: 'buyer@example.com' },
  });
  expect(res.status).toBe(201);
  return res.body;
}

describe("a checkout's url: its hosted page", () => {
  it('is absolute, on PUBLIC_BASE_URL, in every answer that presents the checkout, and opens the page', async () => {
    const tenant = await makeTenant(api.orm);
    const created = await checkoutOf(tenant);
    const page = `${api.config.publicBaseUrl}/checkout/c/${created.client_secret}`;
    expect(created.url).toBe(page);
    expect(new URL(created.url).href).toBe(page);

    const read = await api.call('GET', `/api/v1/checkouts/${created.id}`, { token: tenant.oat });
    expect(read.body.url).toBe(page);
    const listed = await api.call('GET', '/api/v1/checkouts/', { token: tenant.oat });
    expect(listed.body.items.map((c: { url: string }) => c.url)).toEqual([page]);
    const updated = await api.call('PATCH', `/api/v1/checkouts/${created.id}`, {
      token: tenant.oat,
      body: { metadata: { order: '42' } },
    });
    expect(updated.body.url).toBe(page);

    // The test API listens on a port of its own: the same path there is the page a buyer is sent to.
    const opened = await api.call('GET', created.url.replace(api.config.publicBaseUrl, ''));
    expect(opened.status).toBe(200);
    expect(String(opened.headers['content-type'])).toMatch(/^text\/html/);
    expect(opened.body).toContain('T-shirt');
  });

  it('is left out of the record the checkout events carry', async () => {
    const tenant = await makeTenant(api.orm);
    const created = await checkoutOf(tenant);
    const [event] = await api.orm.em
      .getConnection()
      .execute<{ data: Record<string, unknown> }[]>(
        "select data from events where type = 'checkout.created' and data->>'id' = ?",
        [created.id],
      );
    const { url: _, ...record } = created;
    expect(event!.data).toEqual(record);
  });
});

describe('the confirm-sdk answer: the customer and subscription its GET shows', () => {
  const confirmAndRead = async (tenant: Awaited<ReturnType<typeof makeTenant>>, recurring: boolean) => {
    const created = await checkoutOf(tenant, recurring);
    const confirmed = await api.call('POST', `/api/v1/checkouts/client/${created.client_secret}/confirm-sdk`, {
      body: { payment_method: 'credit_card', customer_name: 'Ana Souza', card },
    });
    expect([confirmed.status, confirmed.body.status]).toEqual([200, 'succeeded']);
    const read = await api.call('GET', `/api/v1/checkouts/${created.id}`, { token: tenant.oat });
    return { answer: confirmed.body, read: read.body };
  };

  it('a one-time price: the customer the sale made, no subscription', async () => {
    const { answer, read } = await confirmAndRead(await makeTenant(api.orm), false);
    expect(read.customer_id).toEqual(expect.any(String));
    expect(answer).toMatchObject({ customer_id: read.customer_id, subscription_id: null });
    expect(read.subscription_id).toBeNull();
  });

  it('a recurring price: the customer and the subscription the sale started', async () => {
    const { answer, read } = await confirmAndRead(await makeTenant(api.orm), true);
    expect(read).toMatchObject({ customer_id: expect.any(String), subscription_id: expect.any(String) });
    expect(answer).toMatchObject({ customer_id: read.customer_id, subscription_id: read.subscription_id });
  });
});

describe("the README's metrics call", () => {
  it('sends the parameters the route requires, and is answered 200', async () => {
    const readme = await readFile(path.join(REPO_ROOT, 'README.md'), 'utf8');
    const query = readme.match(/"\$BASE(\/metrics\/\?[^"]+)"/)?.[1];
    expect(query).toBeDefined();
    const tenant = await makeTenant(api.orm);
    const res = await api.call('GET', `/api/v1${query}`, { token: tenant.oat });
    expect([res.status, res.body.periods?.length > 0]).toEqual([200, true]);
  });
});
