import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { uuidv7 } from 'uuidv7';
import { startApi, type TestApi } from '../helpers/api.ts';
import { makeTenant, unique } from '../helpers/fixtures.ts';

/** Opening a checkout link (`{checkout_link_base}/<id>`) creates a fresh checkout for each visitor. */
let api: TestApi;
let A: Awaited<ReturnType<typeof makeTenant>>;

beforeAll(async () => {
  api = await startApi();
  A = await makeTenant(api.orm);
});
afterAll(async () => {
  await api.close();
});

const sql = <T = any>(text: string, params: unknown[] = []) => api.orm.em.getConnection().execute<T[]>(text, params);

async function makeProduct(organizationId: string, unitAmount: number) {
  const productId = uuidv7();
  const priceId = uuidv7();
  await sql(`insert into products (id, organization_id, name, created_at) values (?, ?, ?, now())`, [
    productId,
    organizationId,
    unique('product'),
  ]);
  await sql(
    `insert into prices (id, product_id, organization_id, type, currency, unit_amount, created_at)
     values (?, ?, ?, 'one_time', 'brl', ?, now())`,
    [priceId, productId, organizationId, unitAmount],
  );
  await sql('update products set default_price_id = ? where id = ?', [priceId, productId]);
  return { productId, priceId };
}

async function makeDiscount(organizationId: string, endsAt: Date | null = null) {
  const id = uuidv7();
  await sql(
    `insert into discounts (id, organization_id, name, type, basis_points, duration, ends_at, created_at)
     values (?, ?, 'promo', 'percentage', 2000, 'once', ?, now())`,
    [id, organizationId, endsAt],
  );
  return id;
}

async function makeLink(
  organizationId: string,
  productIds: string[],
  fields: { discountId?: string; archived?: boolean } = {},
) {
  const id = uuidv7();
  await sql(
    `insert into checkout_links (id, organization_id, label, product_ids, discount_id, allow_discount_codes, success_url, cancel_url,
       metadata, is_archived, created_at, updated_at)
     values (?, ?, 'Launch', ?::uuid[], ?, false, 'https://shop.example.com/ok', 'https://shop.example.com/back', ?, ?, now(), now())`,
    [
      id,
      organizationId,
      `{${productIds.join(',')}}`,
      fields.discountId ?? null,
      JSON.stringify({ campaign: 'launch' }),
      fields.archived ?? false,
    ],
  );
  return id;
}

const open = (linkId: string, accept = 'application/json') =>
  api.call('GET', `/checkout/${linkId}`, { headers: { accept } });

describe('GET /checkout/:checkout_link_id', () => {
  it('creates a new checkout from the link on every visit', async () => {
    const first = await makeProduct(A.org.id, 5000);
    const second = await makeProduct(A.org.id, 9000);
    const discountId = await makeDiscount(A.org.id);
    const linkId = await makeLink(A.org.id, [first.productId, second.productId], { discountId });

    const one = await open(linkId);
    expect(one.status).toBe(201);
    expect(one.headers['cache-control']).toBe('no-store');
    expect(one.body).toMatchObject({
      status: 'open',
      product: { id: first.productId },
      price: { id: first.priceId, unit_amount: 5000 },
      subtotal_amount: 5000,
      discount_amount: 1000,
      amount: 4000,
      currency: 'BRL',
      allow_discount_codes: false,
      success_url: 'https://shop.example.com/ok',
      cancel_url: 'https://shop.example.com/back',
    });
    // The public view never carries the link's (merchant's) metadata.
    expect(JSON.stringify(one.body)).not.toContain('launch');
    const two = await open(linkId);
    expect(two.status).toBe(201);
    expect(two.body.id).not.toBe(one.body.id);

    const rows = await sql(`select * from checkouts where checkout_link_id = ? order by created_at`, [linkId]);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({
      organization_id: A.org.id,
      product_id: first.productId,
      products: [first.productId, second.productId],
      discount_id: discountId,
      metadata: { campaign: 'launch' },
      status: 'open',
    });
    const events = await sql(
      `select data from events where type = 'checkout.created' and data->>'checkout_link_id' = ?`,
      [linkId],
    );
    expect(events).toHaveLength(2);
  });

  it("charges the link's product that ?product_id= names, and refuses one the link does not sell", async () => {
    const first = await makeProduct(A.org.id, 5000);
    const second = await makeProduct(A.org.id, 9000);
    const elsewhere = await makeProduct(A.org.id, 100);
    const linkId = await makeLink(A.org.id, [first.productId, second.productId]);
    const opened = await api.call('GET', `/checkout/${linkId}?product_id=${second.productId.toUpperCase()}`, {
      headers: { accept: 'application/json' },
    });
    expect([opened.status, opened.body.product.id, opened.body.amount]).toEqual([201, second.productId, 9000]);

    const refused = await api.call('GET', `/checkout/${linkId}?product_id=${elsewhere.productId}`, {
      headers: { accept: 'application/json' },
    });
    expect([refused.status, refused.body.code]).toEqual([422, 'product_not_in_link']);
    const rows = await sql<{ product_id: string }>(`select product_id from checkouts where checkout_link_id = ?`, [
      linkId,
    ]);
    expect(rows).toEqual([{ product_id: second.productId }]);
  });

  it('shows a browser the link page and creates nothing until the buyer goes on (link previews, crawlers)', async () => {
    const { productId } = await makeProduct(A.org.id, 1000);
    const linkId = await makeLink(A.org.id, [productId]);
    const agents = [
      'Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148',
      'WhatsApp/2.24.1 A',
      'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
      'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)',
    ];
    for (const agent of agents) {
      const res = await api.call('GET', `/checkout/${linkId}`, {
        headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8', 'user-agent': agent },
      });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    }
    expect(await sql(`select id from checkouts where checkout_link_id = ?`, [linkId])).toEqual([]);
    expect(
      await sql(`select id from events where type = 'checkout.created' and data->>'checkout_link_id' = ?`, [linkId]),
    ).toEqual([]);
  });

  it('creates the checkout when the buyer goes on (POST), and reuses it for the same browser', async () => {
    const { productId } = await makeProduct(A.org.id, 1000);
    const linkId = await makeLink(A.org.id, [productId]);
    const first = await api.call('POST', `/checkout/${linkId}`, { headers: { accept: 'text/html' } });
    expect(first.status).toBe(303);
    const location = String(first.headers.location);
    expect(location).toMatch(/^\/checkout\/c\/cs_[A-Za-z0-9_-]{43}$/);
    const cookie = String(first.headers['set-cookie']);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/Secure/);
    expect(cookie).toMatch(/SameSite=Lax/);
    const session = cookie.split(';')[0]!;
    for (const method of ['GET', 'POST']) {
      const again = await api.call(method, `/checkout/${linkId}`, {
        headers: { accept: 'text/html', cookie: session },
      });
      expect([method, again.status, again.headers.location]).toEqual([method, 303, location]);
    }
    const rows = await sql(`select status, client_secret from checkouts where checkout_link_id = ?`, [linkId]);
    expect(rows).toEqual([{ status: 'open', client_secret: location.split('/').pop() }]);
    // Another browser (no cookie) gets a checkout of its own.
    const other = await api.call('POST', `/checkout/${linkId}`, { headers: { accept: 'text/html' } });
    expect(other.headers.location).not.toBe(location);
    const page = await api.call('GET', location, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
  });

  it('sells at full price when the link discount has ended', async () => {
    const { productId } = await makeProduct(A.org.id, 3000);
    const ended = await makeDiscount(A.org.id, new Date(Date.now() - 60_000));
    const linkId = await makeLink(A.org.id, [productId], { discountId: ended });
    const res = await open(linkId);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ subtotal_amount: 3000, discount_amount: 0, amount: 3000 });
  });

  it('is 404 for an archived or unknown link, creating nothing', async () => {
    const { productId } = await makeProduct(A.org.id, 1000);
    const archived = await makeLink(A.org.id, [productId], { archived: true });
    for (const id of [archived, uuidv7(), 'not-a-uuid']) {
      const res = await open(id);
      expect({ id, status: res.status, body: res.body }).toEqual({
        id,
        status: 404,
        body: { error: 'Checkout link not found', code: 'not_found' },
      });
    }
    expect(await sql(`select id from checkouts where checkout_link_id = ?`, [archived])).toEqual([]);
  });

  it('answers 422 when the link product can no longer be sold', async () => {
    const { productId } = await makeProduct(A.org.id, 1000);
    const linkId = await makeLink(A.org.id, [productId]);
    await sql('update products set is_archived = true where id = ?', [productId]);
    const res = await open(linkId);
    expect([res.status, res.body.code]).toEqual([422, 'product_archived']);
    // A buyer on the link's page who goes on gets a page that says so, in their language, not a JSON body.
    const page = await api.call('POST', `/checkout/${linkId}`, {
      headers: { accept: 'text/html', 'accept-language': 'pt-BR' },
    });
    expect(page.status).toBe(422);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.body).toContain('Este link de pagamento não está disponível');
    // Why, by the refusal's code, in the buyer's words: never the API's "The product is archived" or an id.
    expect(page.body).toContain('Este produto não está mais à venda.');
    expect(page.body).not.toMatch(/archived|product /i);
    expect(await sql(`select id from checkouts where checkout_link_id = ?`, [linkId])).toEqual([]);
  });
});
