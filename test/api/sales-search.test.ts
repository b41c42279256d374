import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { uuidv7 } from 'uuidv7';
import { startApi, type TestApi } from '../helpers/api.ts';
import { makeTenant, unique } from '../helpers/fixtures.ts';

let api: TestApi;
beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => {
  await api.close();
});

type Tenant = Awaited<ReturnType<typeof makeTenant>>;
const sql = (query: string, params: unknown[] = []): Promise<any[]> =>
  api.orm.em.getConnection().execute(query, params);

/** A customer with one paid sale of a product (the checkout flow that makes them has its own tests). */
async function customerWithSale(tenant: Tenant, customer: { email: string; name: string | null }) {
  const [productId, priceId, customerId, saleId] = [uuidv7(), uuidv7(), uuidv7(), uuidv7()];
  await sql(`insert into products (id, organization_id, name, created_at) values (?, ?, 'Course', now())`, [
    productId,
    tenant.org.id,
  ]);
  await sql(
    `insert into prices (id, product_id, organization_id, type, currency, unit_amount, tax_behavior, created_at)
     values (?, ?, ?, 'one_time', 'brl', 4990, 'unspecified', now())`,
    [priceId, productId, tenant.org.id],
  );
  await sql(
    `insert into customers (id, organization_id, email, name, created_at, updated_at) values (?, ?, ?, ?, now(), now())`,
    [customerId, tenant.org.id, customer.email, customer.name],
  );
  await sql(
    `insert into sales (id, organization_id, customer_id, product_id, price_id, currency, subtotal_amount,
       amount, installments, payment_method, status, created_at, updated_at)
     values (?, ?, ?, ?, ?, 'BRL', 4990, 4990, 1, 'pix', 'paid', now(), now())`,
    [saleId, tenant.org.id, customerId, productId, priceId],
  );
  return { customerId, saleId };
}

const idsOf = (body: any) => body.items.map((s: any) => s.id).sort();

describe('GET /sales/ ?query', () => {
  it('finds the sales of customers whose e-mail or name holds the text, case-insensitively', async () => {
    const t = await makeTenant(api.orm);
    const other = await makeTenant(api.orm);
    const tag = unique('q').toLowerCase();
    const ana = await customerWithSale(t, { email: `ana.${tag}@example.com`, name: 'Ana Souza' });
    const bia = await customerWithSale(t, { email: `bia@${tag}.example.com`, name: 'Beatriz Lima' });
    const caio = await customerWithSale(t, { email: 'caio@example.com', name: null });
    const percent = await customerWithSale(t, { email: 'x@example.com', name: '100% Lima' });
    // Another organization's customer of the same name is never found.
    await customerWithSale(other, { email: `ana.${tag}@example.com`, name: 'Ana Souza' });

    const search = async (query: string) => {
      const answer = await api.call('GET', `/api/v1/sales/?query=${encodeURIComponent(query)}`, { token: t.oat });
      expect(answer.status).toBe(200);
      return answer.body;
    };
    expect(idsOf(await search(tag.toUpperCase()))).toEqual([ana.saleId, bia.saleId].sort());
    expect(idsOf(await search('souza'))).toEqual([ana.saleId]);
    const lima = await search('LIMA');
    expect(idsOf(lima)).toEqual([bia.saleId, percent.saleId].sort());
    expect(lima.pagination).toEqual({ total_count: 2, max_page: 1 });
    // `%` and `_` are the text itself, not wildcards.
    expect(idsOf(await search('0%'))).toEqual([percent.saleId]);
    expect(idsOf(await search('_'))).toEqual([]);
    // The other filters still apply beside it; an empty query is no filter.
    const both = await api.call('GET', `/api/v1/sales/?query=lima&customer_id=${bia.customerId}`, { token: t.oat });
    expect(idsOf(both.body)).toEqual([bia.saleId]);
    expect(idsOf(await search(''))).toEqual([ana.saleId, bia.saleId, caio.saleId, percent.saleId].sort());
  });

  it('answers a query longer than 256 characters with the spec’s error body', async () => {
    const t = await makeTenant(api.orm);
    const answer = await api.call('GET', `/api/v1/sales/?query=${'a'.repeat(257)}`, { token: t.oat });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({
      error: expect.any(String),
      code: expect.any(String),
      detail: expect.stringContaining('query'),
    });
  });
});
