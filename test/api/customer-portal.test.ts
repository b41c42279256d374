import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { uuidv7 } from 'uuidv7';
import { startApi, type TestApi } from '../helpers/api.ts';
import { makeApiKey, makeOat, makeTenant, unique } from '../helpers/fixtures.ts';

/** Customer sessions (svc_cst_) opened by the merchant, and the portal's current-customer read. */

let api: TestApi;
beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => {
  await api.close();
});

/** Raw SQL on the test database; rows are loosely typed. */
const sql = (query: string, params: unknown[] = []): Promise<any[]> =>
  api.orm.em.getConnection().execute(query, params);

const SESSIONS = '/api/v1/customer-portal/sessions/';
const CUSTOMER = '/api/v1/customer-portal/customer';
const HOUR_MS = 3_600_000;

interface CustomerSeed {
  externalId?: string;
  name?: string | null;
  taxId?: { type: 'cpf' | 'cnpj'; number: string } | null;
  billingAddress?: Record<string, string> | null;
  avatarUrl?: string | null;
  deleted?: boolean;
}

/** Customers are created by another module's endpoint; here they are written straight to their table. */
async function insertCustomer(orgId: string, seed: CustomerSeed = {}) {
  const id = uuidv7();
  const email = `${unique('buyer')}@example.com`;
  await sql(
    `insert into customers (id, organization_id, email, name, external_id, billing_name, billing_address, tax_id,
       user_metadata, email_verified, avatar_url, created_at, updated_at, deleted_at)
     values (?, ?, ?, ?, ?, 'Billing Name', ?::jsonb, ?::jsonb, '{"plan":"gold"}', true, ?,
       '2025-01-02T03:04:05.678Z', '2025-02-03T04:05:06.789Z', ?)`,
    [
      id,
      orgId,
      email,
      seed.name === undefined ? 'Ana Souza' : seed.name,
      seed.externalId ?? null,
      seed.billingAddress ? JSON.stringify(seed.billingAddress) : null,
      seed.taxId ? JSON.stringify(seed.taxId) : null,
      seed.avatarUrl ?? null,
      seed.deleted ? new Date() : null,
    ],
  );
  return { id, email };
}

describe('POST /customer-portal/sessions/', () => {
  it('opens a one-hour session for a customer by id, storing only the token hash', async () => {
    const t = await makeTenant(api.orm);
    const customer = await insertCustomer(t.org.id);
    const before = Date.now();
    const res = await api.call('POST', SESSIONS, { token: t.oat, body: { customer_id: customer.id } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      token: expect.stringMatching(/^svc_cst_[A-Za-z0-9_-]{43}$/),
      expires_at: expect.any(String),
      customer_id: customer.id,
      customer_portal_url: `${api.config.publicBaseUrl}/portal?token=${res.body.token}`,
    });
    const expiresAt = new Date(res.body.expires_at).getTime();
    expect(expiresAt).toBeGreaterThanOrEqual(before + HOUR_MS - 1000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + HOUR_MS);

    const [row] = await sql('select * from customer_sessions where id = ?', [res.body.id]);
    expect(row).toMatchObject({ organization_id: t.org.id, customer_id: customer.id });
    expect(row.token_hash).toBe(createHash('sha256').update(res.body.token).digest('hex'));
  });

  it('finds the customer by external_customer_id', async () => {
    const t = await makeTenant(api.orm);
    const externalId = unique('crm');
    const customer = await insertCustomer(t.org.id, { externalId });
    const res = await api.call('POST', SESSIONS, { token: t.oat, body: { external_customer_id: externalId } });
    expect(res.status).toBe(201);
    expect(res.body.customer_id).toBe(customer.id);
  });

  it.each([
    ['neither id', {}],
    ['both ids', { customer_id: uuidv7(), external_customer_id: 'x' }],
  ])('answers 400 for %s', async (_label, body) => {
    const t = await makeTenant(api.orm);
    const res = await api.call('POST', SESSIONS, { token: t.oat, body });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: 'Send exactly one of customer_id or external_customer_id',
      code: 'invalid_request',
    });
  });

  it('answers 400 for a malformed customer_id or an unknown field', async () => {
    const t = await makeTenant(api.orm);
    expect((await api.call('POST', SESSIONS, { token: t.oat, body: { customer_id: 'abc' } })).status).toBe(400);
    expect((await api.call('POST', SESSIONS, { token: t.oat, body: { customer_id: uuidv7(), ttl: 5 } })).status).toBe(
      400,
    );
  });

  it("answers 404 for an unknown, deleted or other organization's customer", async () => {
    const a = await makeTenant(api.orm);
    const b = await makeTenant(api.orm);
    const deleted = await insertCustomer(a.org.id, { externalId: unique('gone'), deleted: true });
    const ofB = await insertCustomer(b.org.id, { externalId: unique('b') });
    const [{ external_id: externalOfB }] = await sql('select external_id from customers where id = ?', [ofB.id]);
    for (const body of [
      { customer_id: uuidv7() },
      { customer_id: deleted.id },
      { customer_id: ofB.id },
      { external_customer_id: 'nobody' },
      { external_customer_id: externalOfB },
    ]) {
      const res = await api.call('POST', SESSIONS, { token: a.oat, body });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'Customer not found', code: 'not_found' });
    }
    const [{ count }] = await sql('select count(*)::int as count from customer_sessions where organization_id = ?', [
      a.org.id,
    ]);
    expect(count).toBe(0);
  });

  it('accepts OATs with customer_sessions:write, customers:write or web:write, and write API keys', async () => {
    const t = await makeTenant(api.orm);
    const customer = await insertCustomer(t.org.id);
    const body = { customer_id: customer.id };
    for (const scopes of [['customer_sessions:write'], ['customers:write'], ['web:write']]) {
      const token = await makeOat(api.orm, t.org.id, scopes);
      expect((await api.call('POST', SESSIONS, { token, body })).status).toBe(201);
    }
    for (const scopes of [['customers:read'], ['products:write'], ['web:read']]) {
      const token = await makeOat(api.orm, t.org.id, scopes);
      const res = await api.call('POST', SESSIONS, { token, body });
      expect(res.status).toBe(403);
      expect(res.body.error).toBe('Access token lacks required scope');
    }
    const writeKey = await makeApiKey(api.orm, t.org.id, { scopes: ['write'] });
    expect((await api.call('POST', SESSIONS, { headers: { 'x-service-api-key': writeKey.key }, body })).status).toBe(
      201,
    );
    const readKey = await makeApiKey(api.orm, t.org.id, { scopes: ['read'] });
    const denied = await api.call('POST', SESSIONS, { headers: { 'x-service-api-key': readKey.key }, body });
    expect(denied.status).toBe(403);
    expect(denied.body.error).toBe('Api key lacks required scope');
  });

  it('refuses a customer session token (403) and a missing credential (401)', async () => {
    const t = await makeTenant(api.orm);
    const customer = await insertCustomer(t.org.id);
    const { body: session } = await api.call('POST', SESSIONS, { token: t.oat, body: { customer_id: customer.id } });
    expect(
      (await api.call('POST', SESSIONS, { token: session.token, body: { customer_id: customer.id } })).status,
    ).toBe(403);
    const none = await api.call('POST', SESSIONS, { body: { customer_id: customer.id } });
    expect(none.status).toBe(401);
    expect(none.body.error).toBe('Missing X-Service-Api-Key header');
  });
});

describe('GET /customer-portal/customer', () => {
  async function sessionFor(orgOat: string, customerId: string): Promise<string> {
    const res = await api.call('POST', SESSIONS, { token: orgOat, body: { customer_id: customerId } });
    expect(res.status).toBe(201);
    return res.body.token;
  }

  it("returns exactly the spec's fields, with tax_id as a string", async () => {
    const t = await makeTenant(api.orm);
    const address = {
      line1: 'Av. Paulista, 1000',
      city: 'São Paulo',
      state: 'SP',
      postal_code: '01310-100',
      country: 'BR',
    };
    const customer = await insertCustomer(t.org.id, {
      taxId: { type: 'cpf', number: '52998224725' },
      billingAddress: address,
      avatarUrl: 'https://example.com/a.png',
    });
    const res = await api.call('GET', CUSTOMER, { token: await sessionFor(t.oat, customer.id) });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: customer.id,
      email: customer.email,
      name: 'Ana Souza',
      avatar_url: 'https://example.com/a.png',
      organization_id: t.org.id,
      tax_id: '52998224725',
      billing_address: address,
      created_at: '2025-01-02T03:04:05.678Z',
      updated_at: '2025-02-03T04:05:06.789Z',
    });
  });

  it('shows null for an absent tax id, address, avatar and name, and null for missing address parts', async () => {
    const t = await makeTenant(api.orm);
    const bare = await insertCustomer(t.org.id, { name: null });
    const res = await api.call('GET', CUSTOMER, { token: await sessionFor(t.oat, bare.id) });
    expect(res.body).toMatchObject({ name: null, avatar_url: null, tax_id: null, billing_address: null });

    const partial = await insertCustomer(t.org.id, {
      billingAddress: { line1: 'Rua A, 1', city: 'Lisboa', country: 'PT' },
    });
    const res2 = await api.call('GET', CUSTOMER, { token: await sessionFor(t.oat, partial.id) });
    expect(res2.body.billing_address).toEqual({
      line1: 'Rua A, 1',
      city: 'Lisboa',
      state: null,
      postal_code: null,
      country: 'PT',
    });
  });

  it('accepts only a customer session token', async () => {
    const t = await makeTenant(api.orm);
    expect((await api.call('GET', CUSTOMER)).status).toBe(401);
    expect((await api.call('GET', CUSTOMER, { token: t.oat })).status).toBe(403);
    expect((await api.call('GET', CUSTOMER, { token: t.ownerJwt })).status).toBe(403);
    const forged = await api.call('GET', CUSTOMER, { token: `svc_cst_${'A'.repeat(43)}` });
    expect(forged.status).toBe(401);
    expect(forged.body).toEqual({ error: 'Invalid customer session token', code: 'unauthorized' });
  });

  it('answers 401 for an expired session, and for a session whose customer was deleted', async () => {
    const t = await makeTenant(api.orm);
    const customer = await insertCustomer(t.org.id);
    const expired = await sessionFor(t.oat, customer.id);
    await sql(`update customer_sessions set expires_at = now() - interval '1 second' where token_hash = ?`, [
      createHash('sha256').update(expired).digest('hex'),
    ]);
    const res = await api.call('GET', CUSTOMER, { token: expired });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('Customer session expired');

    const token = await sessionFor(t.oat, customer.id);
    expect((await api.call('GET', CUSTOMER, { token })).status).toBe(200); // now cached
    await sql('update customers set deleted_at = now() where id = ?', [customer.id]);
    const gone = await api.call('GET', CUSTOMER, { token });
    expect(gone.status).toBe(401);
    expect(gone.body.error).toBe('Invalid customer session token');
  });

  it('ends the sessions of a customer deleted through the API, in every API process', async () => {
    const t = await makeTenant(api.orm);
    const created = await api.call('POST', '/api/v1/customers/', {
      token: t.oat,
      body: { email: `${unique('c')}@example.com` },
    });
    expect(created.status).toBe(201);
    const token = await sessionFor(t.oat, created.body.id);
    const other = await startApi();
    try {
      expect((await api.call('GET', CUSTOMER, { token })).status).toBe(200);
      expect((await other.call('GET', CUSTOMER, { token })).status).toBe(200); // cached in both
      expect((await api.call('DELETE', `/api/v1/customers/${created.body.id}`, { token: t.oat })).status).toBe(204);
      expect((await other.call('GET', CUSTOMER, { token })).status).toBe(401);
      expect((await api.call('GET', CUSTOMER, { token })).status).toBe(401);
      expect(await sql('select id from customer_sessions where customer_id = ?', [created.body.id])).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it('shows each session only its own customer', async () => {
    const a = await makeTenant(api.orm);
    const b = await makeTenant(api.orm);
    const ofA = await insertCustomer(a.org.id);
    const ofB = await insertCustomer(b.org.id);
    const resA = await api.call('GET', CUSTOMER, { token: await sessionFor(a.oat, ofA.id) });
    const resB = await api.call('GET', CUSTOMER, { token: await sessionFor(b.oat, ofB.id) });
    expect([resA.body.id, resA.body.organization_id]).toEqual([ofA.id, a.org.id]);
    expect([resB.body.id, resB.body.organization_id]).toEqual([ofB.id, b.org.id]);
  });
});
