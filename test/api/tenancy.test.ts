import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startApi, type TestApi } from '../helpers/api.ts';
import { makeApiKey, makeTenant, unique } from '../helpers/fixtures.ts';
import { recordsOf, type Named, type Tenant } from '../helpers/tenant-records.ts';
import { expectNothingWritten, type Watched } from '../helpers/unchanged.ts';

/**
 * Tenancy, driven by the route table: every operation of the OpenAPI document (which the openapi test
 * keeps equal to the routes the app serves) whose path names a record takes another organization's
 * credential, aimed at a record of the first organization, as an unknown record: 404 not_found, and
 * the record as it was.
 */
let api: TestApi;
let A: Tenant;
let B: Tenant;
let doc: any;
let records: Map<string, Named>;
/** Organization B's credential of each security scheme, each one allowed everything B may do. */
let credentialsOfB: Record<string, { token?: string; headers?: Record<string, string> }>;

beforeAll(async () => {
  api = await startApi();
  doc = (await api.call('GET', '/openapi.json')).body;
  [A, B] = [await makeTenant(api.orm), await makeTenant(api.orm)];
  records = await recordsOf(api, A);
  const customerOfB = await api.call('POST', '/api/v1/customers/', {
    token: B.oat,
    body: { email: `${unique('buyer')}@example.com` },
  });
  const session = await api.call('POST', '/api/v1/customer-portal/sessions', {
    token: B.oat,
    body: { customer_id: customerOfB.body.id },
  });
  expect(session.status).toBe(201);
  credentialsOfB = {
    accessToken: { token: B.oat },
    apiKey: { headers: { 'x-service-api-key': (await makeApiKey(api.orm, B.org.id, { scopes: ['admin'] })).key } },
    userJwt: { token: B.ownerJwt },
    customerSession: { token: session.body.token },
  };
});
afterAll(async () => {
  await api.close();
});

const sql = (query: string, params: unknown[] = []): Promise<any[]> =>
  api.orm.em.getConnection().execute(query, params);

/** A body each operation that takes one accepts, so that only the record's owner decides the answer. */
const BODIES: Record<string, unknown> = {
  'PATCH /api/v1/organizations/{id}': { name: 'Stolen' },
  'POST /api/v1/organizations/{id}/members': { email: 'intruder@example.com' },
  'POST /api/v1/dashboard/organizations/{organization_id}/api-keys': {
    name: 'Stolen',
    environment: 'test',
    scopes: ['read'],
  },
  'POST /api/v1/dashboard/organizations/{organization_id}/access-tokens': {
    comment: 'Stolen',
    scopes: ['customers:read'],
  },
  'PATCH /api/v1/products/{id}': { name: 'Stolen' },
  'PATCH /api/v1/customers/{id}': { name: 'Stolen' },
  'PATCH /api/v1/customers/external/{external_id}': { name: 'Stolen' },
  'PATCH /api/v1/discounts/{id}': { name: 'Stolen' },
  'PATCH /api/v1/checkout-links/{id}': { label: 'Stolen' },
  'PATCH /api/v1/webhooks/{id}': { description: 'Stolen' },
  'POST /api/v1/webhooks/{id}/redeliver': { event_id: '0190a0a0-0000-7000-8000-000000000000' },
  'PATCH /api/v1/customer-portal/subscriptions/{id}': { cancel_at_period_end: true },
  'PATCH /api/v1/checkouts/{id}': { customer_name: 'Stolen' },
  'PATCH /api/v1/subscriptions/{id}': { cancel_at_period_end: true },
  'POST /api/v1/subscriptions/{id}/test-clock/advance': { to: '2100-01-01T00:00:00.000Z' },
  'POST /api/v1/subscriptions/{id}/invoices': { amount: 1_000, due_date: '2100-01-01' },
  'POST /api/v1/subscriptions/{id}/mandates': { journey: 'qr_code' },
  'POST /api/v1/sandbox/mandates/{id}/authorize': { persona: 'approves' },
  'POST /api/v1/sandbox/mandates/{id}/payer-maximum': { maximum: 1_000 },
  'POST /api/v1/sandbox/checkouts/{id}/mandate/authorize': { persona: 'approves' },
};

interface Operation {
  method: string;
  path: string;
  schemes: string[];
}

/** The document's operations with a path parameter that take a credential (public pages and the sandbox take none). */
function operationsNamingARecord(): Operation[] {
  return Object.entries<any>(doc.paths).flatMap(([path, item]) =>
    ['get', 'post', 'put', 'patch', 'delete']
      .filter((m) => item[m] && path.includes('{'))
      .map((m) => ({
        method: m.toUpperCase(),
        path,
        schemes: [...new Set<string>((item[m].security ?? []).flatMap((s: object) => Object.keys(s)))],
      }))
      .filter((op) => op.schemes.length > 0),
  );
}

/** The path with organization A's records in it, and the rows they are. */
function aimedAtA(path: string): { url: string; watched: Watched[] } {
  const watched: Watched[] = [];
  const url = path.replace(/([^/]+)\/\{([^}]+)\}/g, (_all, segment: string, param: string) => {
    const named = records.get(`${segment}/{${param}}`);
    if (!named) throw new Error(`no record of organization A for ${segment}/{${param}} (${path})`);
    watched.push(...named.watched);
    return `${segment}/${encodeURIComponent(named.value)}`;
  });
  // Whatever the operation, nothing of A's is recorded as having happened.
  watched.push(['select id, type from events where organization_id = ? order by id', [A.org.id]]);
  return { url, watched };
}

describe("another organization's credential", () => {
  it('gets 404 not_found on every operation naming a record of the first, and changes nothing', async () => {
    const operations = operationsNamingARecord();
    // Sanity: the route table was read (a core resource's record routes and a nested record's are there).
    expect(operations.map((o) => `${o.method} ${o.path}`)).toEqual(
      expect.arrayContaining(['PATCH /api/v1/customers/{id}', 'GET /api/v1/subscriptions/{id}/invoices/{invoice_id}']),
    );
    const answers: string[] = [];
    for (const { method, path, schemes } of operations) {
      const { url, watched } = aimedAtA(path);
      for (const scheme of schemes) {
        const credential = credentialsOfB[scheme];
        if (!credential) throw new Error(`no credential of organization B for ${scheme} (${method} ${path})`);
        const body = BODIES[`${method} ${path}`];
        const res = await expectNothingWritten(sql, watched, () => api.call(method, url, { ...credential, body }));
        answers.push(`${method} ${path} (${scheme}): ${res.status} ${res.body?.code} ${res.body?.error}`);
      }
    }
    expect(answers.filter((a) => !/: 404 not_found \S+( \S+)* not found$/.test(a))).toEqual([]);
  });
});
