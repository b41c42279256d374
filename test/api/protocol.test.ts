import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startApi, type TestApi } from '../helpers/api.ts';
import { makeTenant } from '../helpers/fixtures.ts';

/** HTTP rules below every route (api/plugins/protocol.ts): 405 + Allow, NUL characters, long path parameters. */
let api: TestApi;
let tenant: Awaited<ReturnType<typeof makeTenant>>;

beforeAll(async () => {
  api = await startApi();
  tenant = await makeTenant(api.orm);
});
afterAll(async () => {
  await api.close();
});

const METHOD_NOT_ALLOWED = { error: 'Method not allowed', code: 'method_not_allowed', detail: expect.any(String) };

describe('a method the path does not serve', () => {
  it.each([
    ['TRACE', '/api/v1/customers', 'GET, HEAD, POST'],
    ['PUT', '/api/v1/customers/0193a5c8-0000-7000-8000-000000000000', 'DELETE, GET, HEAD, PATCH'],
    ['DELETE', '/api/v1/organizations', 'GET, HEAD, POST'],
    ['TRACE', '/healthz', 'GET, HEAD'],
    // A literal segment names the path more closely than a parameter: GET /transactions/:id is not listed.
    ['OPTIONS', '/api/v1/transactions/direct', 'POST'],
    // Allow lists what the document lists: the link page's form post (a page) is not an operation of it.
    ['OPTIONS', '/checkout/0193a5c8-0000-7000-8000-000000000000', 'GET, HEAD'],
    // A path of pages only lists its pages' methods.
    ['DELETE', '/checkout/c/some-secret', 'GET, HEAD, POST'],
  ])('%s %s is a 405 with Allow: %s', async (method, url, allow) => {
    const res = await api.call(method, url, { token: tenant.oat });
    expect({ status: res.status, allow: res.headers.allow, body: res.body }).toEqual({
      status: 405,
      allow,
      body: METHOD_NOT_ALLOWED,
    });
  });

  it('is a 405 before the body is read: a QUERY without Content-Type', async () => {
    const res = await api.call('QUERY', '/api/v1/customers/0193a5c8-0000-7000-8000-000000000000', {
      token: tenant.oat,
    });
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('DELETE, GET, HEAD, PATCH');
  });

  it('leaves a path no route serves a 404', async () => {
    const res = await api.call('TRACE', '/api/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('route_not_found');
    expect(res.headers.allow).toBeUndefined();
  });
});

describe('the NUL character (U+0000)', () => {
  const invalid = (detail: string) => ({
    error: 'Invalid request',
    code: 'invalid_character',
    detail: `${detail}: must not contain the NUL character (U+0000)`,
  });

  it('in a body string that would reach a text column is a 400, and nothing is written', async () => {
    const res = await api.call('PATCH', `/api/v1/organizations/${tenant.org.id}`, {
      token: tenant.oat,
      body: { name: 'Acme\u0000Corp' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(invalid('body.name'));
    const org = await api.call('GET', `/api/v1/organizations/${tenant.org.id}`, { token: tenant.oat });
    expect(org.body.name).not.toContain('\u0000');
  });

  it('in a jsonb value or key, however deep, is a 400', async () => {
    const deep = await api.call('POST', '/api/v1/customers/', {
      token: tenant.oat,
      body: { email: 'nul-deep@example.com', user_metadata: { notes: ['ok', { x: 'a\u0000' }] } },
    });
    expect(deep.body).toEqual(invalid('body.user_metadata.notes.1.x'));
    const key = await api.call('PATCH', `/api/v1/organizations/${tenant.org.id}`, {
      token: tenant.oat,
      body: { profile_settings: { 'bad\u0000key': true } },
    });
    expect(key.status).toBe(400);
    expect(key.body).toEqual(invalid('body.profile_settings.bad\u0000key'));
  });

  it('in the query string or a path parameter is a 400', async () => {
    const query = await api.call('GET', '/api/v1/customers/?email=a%00b%40example.com', { token: tenant.oat });
    expect(query.body).toEqual(invalid('querystring.email'));
    const path = await api.call('GET', '/api/v1/customers/external/ext%00id', { token: tenant.oat });
    expect(path.body).toEqual(invalid('params.external_id'));
  });

  it('is the only character refused: other control characters still reach the route', async () => {
    const res = await api.call('PATCH', `/api/v1/organizations/${tenant.org.id}`, {
      token: tenant.oat,
      body: { bio: 'tab\there' },
    });
    expect(res.status).toBe(200);
    expect(res.body.bio).toBe('tab\there');
  });
});

describe('a path parameter longer than the router takes', () => {
  it('is a 400 with the error body, like any other schema violation', async () => {
    const res = await api.call('GET', `/api/v1/customers/external/${'x'.repeat(600)}`, { token: tenant.oat });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: 'Invalid request',
      code: 'validation_error',
      detail: 'params: a path parameter is too long',
    });
  });
});

describe('what the fuzzer found', () => {
  it.each(['/api/v1/sales/?subscription_id=not-a-uuid&sorting=nope', '/api/v1/refunds/?sale_id=x&sorting=nope'])(
    'a bad sorting is a 400 even when a filter already matches nothing: %s',
    async (url) => {
      const res = await api.call('GET', url, { token: tenant.oat });
      expect([res.status, res.body.error]).toEqual([400, 'Invalid sorting']);
    },
  );

  it('a blank name is refused, and the document says so with a pattern', async () => {
    const res = await api.call('POST', '/api/v1/customers/', {
      token: tenant.oat,
      body: { email: 'blank-name@example.com', billing_name: '\u000b' },
    });
    expect(res.status).toBe(400);
    const doc = (await api.call('GET', '/docs/json')).body;
    const body = doc.paths['/api/v1/customers'].post.requestBody.content['application/json'].schema;
    const patternOf = (schema: unknown): string | undefined => {
      if (!schema || typeof schema !== 'object') return undefined;
      const found = (schema as { pattern?: string }).pattern;
      return found ?? Object.values(schema).map(patternOf).find(Boolean);
    };
    const pattern = new RegExp(patternOf(body.properties.billing_name)!);
    expect(pattern.test('\u000b')).toBe(false);
    expect(pattern.test(' Ana ')).toBe(true);
  });
});
