import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { startApi, type TestApi } from '../helpers/api.ts';
import { cspDirectives } from '../helpers/checkout-page.ts';
import { makeTenant, unique } from '../helpers/fixtures.ts';

/**
 * The hosted checkout's pages count their rate limit per visitor (the checkout's client secret), not per
 * address: buyers behind one carrier address each get a count of their own, and a pending pix's status
 * reads a count apart from page loads. Every request here comes from 127.0.0.1.
 */
const MAX = 30;
let api: TestApi;
let tenant: Awaited<ReturnType<typeof makeTenant>>;
let productId: string;
const html = { accept: 'text/html,application/xhtml+xml', 'accept-language': 'pt-BR' };

beforeAll(async () => {
  api = await startApi({ RATE_LIMIT_MAX: String(MAX) });
  tenant = await makeTenant(api.orm);
  const product = await api.call('POST', '/api/v1/products/', {
    token: tenant.oat,
    body: {
      organization_id: tenant.org.id,
      name: unique('Curso de cerâmica'),
      prices: [{ type: 'one_time', currency: 'brl', unit_amount: 9_990 }],
    },
  });
  expect(product.status).toBe(201);
  productId = product.body.id;
});
afterAll(async () => api?.close());

/**
 * The run's test files share one database, hence one count per address: the files before this one, which
 * loaded public pages from 127.0.0.1 moments ago at a higher limit, may have left it near this file's MAX.
 * The tests that count on the address start it afresh.
 */
beforeEach(async () => {
  await api.orm.em.getConnection().execute(`delete from rate_limit_counters where key like 'ip:%'`);
});

async function checkoutSecret(body: Record<string, unknown> = {}): Promise<string> {
  const created = await api.call('POST', '/api/v1/checkouts/', {
    token: tenant.oat,
    body: { product_id: productId, ...body },
  });
  expect(created.status).toBe(201);
  return created.body.client_secret;
}

async function loads(path: string, times: number, headers: Record<string, string> = html): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < times; i++) statuses.push((await api.call('GET', path, { headers })).status);
  return statuses;
}

describe('hosted checkout pages, per visitor', () => {
  it('lets many buyers behind one address load their pages, past what one address may make', async () => {
    const secrets: string[] = [];
    for (let i = 0; i < 12; i++) secrets.push(await checkoutSecret());
    const statuses: number[] = [];
    for (const secret of secrets) statuses.push(...(await loads(`/checkout/c/${secret}`, 3)));
    expect(statuses.length).toBeGreaterThan(MAX);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
  });

  it('limits one visitor who keeps loading, with a page in Portuguese, and no one else', async () => {
    const secret = await checkoutSecret();
    expect(await loads(`/checkout/c/${secret}`, MAX)).toEqual(Array(MAX).fill(200));
    const limited = await api.call('GET', `/checkout/c/${secret}`, { headers: html });
    expect(limited.status).toBe(429);
    expect(limited.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(limited.body).toContain('Muitas tentativas em pouco tempo');
    expect(limited.body).not.toContain('rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // Another buyer on the same address is not affected.
    expect(await loads(`/checkout/c/${await checkoutSecret()}`, 1)).toEqual([200]);
  });

  it("does not spend a page's count on the pending payment's status reads", async () => {
    const secret = await checkoutSecret();
    const polls = await loads(`/api/v1/checkouts/client/${secret}`, MAX, { accept: 'application/json' });
    expect(polls).toEqual(Array(MAX).fill(200));
    expect(await loads(`/checkout/c/${secret}`, MAX)).toEqual(Array(MAX).fill(200));
  });
});

describe('a checkout link, per visitor', () => {
  it("counts a returning browser's loads of the link on its checkout, not on the address", async () => {
    const link = await api.call('POST', '/api/v1/checkout-links/', {
      token: tenant.oat,
      body: { product_ids: [productId] },
    });
    expect(link.status).toBe(201);
    const opened = await api.call('POST', `/checkout/${link.body.id}`, { headers: html });
    expect(opened.status).toBe(303);
    const cookie = String(opened.headers['set-cookie']).split(';')[0]!;
    const back = await loads(`/checkout/${link.body.id}`, MAX, { ...html, cookie });
    expect(back).toEqual(Array(MAX).fill(303));
    // The address's own count is untouched: a new buyer on it still sees the link's page.
    expect(await loads(`/checkout/${link.body.id}`, 1)).toEqual([200]);
  });
});

describe('hosted checkout page headers', () => {
  it('sends HSTS over TLS, and lets forms post only to the page and where a paid post goes', async () => {
    const secret = await checkoutSecret({ success_url: 'https://shop.example/obrigado?c={CHECKOUT_ID}' });
    const page = await api.call('GET', `/checkout/c/${secret}`, { headers: html });
    expect(page.status).toBe(200);
    expect(page.headers['strict-transport-security']).toBe('max-age=31536000');
    expect(cspDirectives(page.headers['content-security-policy'] as string)['form-action']).toBe(
      "'self' https://shop.example",
    );
    const other = await api.call('GET', `/checkout/c/${await checkoutSecret()}`, { headers: html });
    expect(cspDirectives(other.headers['content-security-policy'] as string)['form-action']).toBe("'self'");
    // A request that came over no TLS connection (in process) is told nothing about HSTS.
    const injected = await api.app.inject({ method: 'GET', url: `/checkout/c/${secret}`, headers: html });
    expect(injected.statusCode).toBe(200);
    expect(injected.headers['strict-transport-security']).toBeUndefined();
  });
});

describe('a checkout link to an archived product', () => {
  it('says so on its first page, with no button that leads to a refusal', async () => {
    const product = await api.call('POST', '/api/v1/products/', {
      token: tenant.oat,
      body: {
        organization_id: tenant.org.id,
        name: unique('Vaso'),
        prices: [{ type: 'one_time', currency: 'brl', unit_amount: 5_000 }],
      },
    });
    const link = await api.call('POST', '/api/v1/checkout-links/', {
      token: tenant.oat,
      body: { product_ids: [product.body.id] },
    });
    expect(link.status).toBe(201);
    const before = await api.call('GET', `/checkout/${link.body.id}`, { headers: html });
    expect(before.body).toContain('Continuar');
    const archived = await api.call('PATCH', `/api/v1/products/${product.body.id}`, {
      token: tenant.oat,
      body: { is_archived: true },
    });
    expect(archived.status).toBe(200);
    const page = await api.call('GET', `/checkout/${link.body.id}`, { headers: html });
    expect(page.status).toBe(200);
    expect(page.body).toContain('Este link de pagamento não está disponível');
    expect(page.body).toContain('Este produto não está mais à venda.');
    expect(page.body).not.toContain('Continuar');
    expect(page.body).not.toContain('<form');
    expect(page.body).not.toContain(product.body.id);
  });
});
