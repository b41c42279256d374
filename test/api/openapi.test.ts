import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import SwaggerParser from '@apidevtools/swagger-parser';
import { MAX_PARAM_LENGTH } from '../../api/plugins/openapi.ts';
import { startApi, type TestApi } from '../helpers/api.ts';

/** /openapi.json is generated from the routes' zod schemas; these tests keep it complete and valid. */
let api: TestApi;
let doc: any;

beforeAll(async () => {
  api = await startApi();
  const res = await api.call('GET', '/openapi.json');
  expect(res.status).toBe(200);
  doc = res.body;
});
afterAll(async () => {
  await api.close();
});

/** Serving the document and its page is not part of the API it describes. */
const NOT_DOCUMENTED = /^\/(docs|openapi\.json)([/*]|$)/;
/** The probes answer the orchestrator with their own body and are exempt from rate limits. */
const PROBES = new Set(['/healthz', '/readyz']);
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

function operations(): { method: string; path: string; op: any }[] {
  return Object.entries<any>(doc.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((method) => ({ method, path, op: item[method] })),
  );
}

/**
 * Every route the app serves, as "METHOD /path/:param", read from Fastify's own route tree
 * (`printRoutes` draws one node per line; a node's full path is its ancestors' segments joined).
 */
function servedRoutes(): string[] {
  const tree = api.app.printRoutes({ commonPrefix: false });
  const stack: string[] = [];
  const routes: string[] = [];
  for (const line of tree.split('\n')) {
    const match = /^((?:│ {3}| {4})*)[├└]── (.+?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    stack.length = depth;
    stack.push(match[2]!);
    for (const method of (match[3] ?? '').split(', ').filter((m) => m && m !== 'HEAD' && m !== 'OPTIONS')) {
      routes.push(`${method} ${stack.join('')}`);
    }
  }
  return routes;
}

const normalize = (path: string) => path.replace(/\{([^}]+)\}/g, ':$1').replace(/(.)\/$/, '$1');

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3 document', async () => {
    expect(doc.openapi).toMatch(/^3\./);
    await expect(SwaggerParser.validate(structuredClone(doc))).resolves.toBeTruthy();
    // The validator does reject a broken document.
    await expect(
      SwaggerParser.validate({ ...structuredClone(doc), paths: { '/x': { get: { responses: 'none' } } } }),
    ).rejects.toThrow();
  });

  it('documents every route the app serves, and nothing else', async () => {
    const served = [
      ...new Set(
        servedRoutes()
          .filter((r) => !NOT_DOCUMENTED.test(r.split(' ')[1]!))
          .map(normalize),
      ),
    ];
    const documented = operations().map(({ method, path }) => `${method.toUpperCase()} ${normalize(path)}`);
    // Sanity: the route tree was read (the probes and a core resource are there).
    expect(served).toEqual(expect.arrayContaining(['GET /healthz', 'POST /api/v1/customers']));
    expect(documented.filter((r) => !served.includes(r))).toEqual([]);
    // A served route may stay out of the document only when it is a web page, not an API operation.
    const undocumented: string[] = [];
    for (const route of served.filter((r) => !documented.includes(r))) {
      const [method, url] = route.split(' ') as [string, string];
      const page = method === 'GET' && !url.includes(':') ? await api.call('GET', url) : undefined;
      if (!String(page?.headers['content-type'] ?? '').startsWith('text/html')) undocumented.push(route);
    }
    expect(undocumented).toEqual([]);
  });

  it('gives every API operation tags, a summary and the error responses with the error body', () => {
    const incomplete: string[] = [];
    for (const { method, path, op } of operations()) {
      if (PROBES.has(path)) continue;
      const where = `${method.toUpperCase()} ${path}`;
      if (!op.tags?.length) incomplete.push(`${where}: no tags`);
      if (!op.summary) incomplete.push(`${where}: no summary`);
      // Any request can be malformed or over the rate limit; an authenticated one can lack its credential.
      const expected = ['400', '429', '500', ...(op.security?.length ? ['401', '403'] : [])];
      for (const status of expected) if (!op.responses[status]) incomplete.push(`${where}: no ${status}`);
      for (const [status, response] of Object.entries<any>(op.responses)) {
        if (Number(status) < 400) continue;
        const schema = response.content?.['application/json']?.schema;
        const isErrorBody =
          schema?.properties?.error?.type === 'string' &&
          schema?.properties?.code?.type === 'string' &&
          schema.required?.includes('code');
        if (!isErrorBody) incomplete.push(`${where}: ${status} is not the error body`);
      }
    }
    expect(incomplete).toEqual([]);
  });

  it('lists the optional Idempotency-Key header on every POST, and on nothing else', () => {
    for (const { method, path, op } of operations()) {
      const header = (op.parameters ?? []).find(
        (p: any) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key',
      );
      if (method === 'post')
        expect({ path, header: header && { required: header.required, max: header.schema.maxLength } }).toEqual({
          path,
          header: { required: false, max: 255 },
        });
      else expect({ path, method, header }).toEqual({ path, method, header: undefined });
    }
  });

  it('declares one security scheme per kind of credential', () => {
    expect(doc.components.securitySchemes).toEqual({
      accessToken: expect.objectContaining({ type: 'http', scheme: 'bearer', bearerFormat: 'svc_oat_…' }),
      apiKey: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-Service-Api-Key' }),
      userJwt: expect.objectContaining({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }),
      customerSession: expect.objectContaining({ type: 'http', scheme: 'bearer', bearerFormat: 'svc_cst_…' }),
    });
  });

  it('gives every operation a unique, stable operationId', () => {
    const ids = operations().map(({ op }) => op.operationId);
    expect(ids.filter((id) => typeof id !== 'string' || !/^[a-z][A-Za-z0-9]+$/.test(id))).toEqual([]);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    // Generated clients call these names: a rename breaks them.
    const byRoute = Object.fromEntries(
      operations().map(({ method, path, op }) => [`${method} ${path}`, op.operationId]),
    );
    expect(byRoute).toMatchObject({
      'get /api/v1/products': 'listProducts',
      'post /api/v1/products': 'createProduct',
      'get /api/v1/products/{id}': 'getProduct',
      'patch /api/v1/customers/{id}': 'updateCustomer',
      'get /api/v1/organizations/{id}/members': 'listOrganizationMembers',
      'post /api/v1/checkouts': 'createCheckout',
      'get /api/v1/checkouts/{id}': 'getCheckout',
      'post /api/v1/checkouts/client/{client_secret}/confirm-sdk': 'confirmCheckout',
      'post /functions/v1/create-price': 'createPrice',
    });
  });

  it("states each operation's credentials as its route's auth rule accepts them", () => {
    const security = (method: string, path: string) =>
      operations().find((o) => o.method === method && o.path === path)!.op.security;
    expect(security('post', '/api/v1/products')).toEqual([{ accessToken: ['products:write'] }, { apiKey: ['admin'] }]);
    expect(security('get', '/api/v1/customers')).toEqual([{ accessToken: ['customers:read'] }, { apiKey: ['read'] }]);
    expect(security('post', '/api/v1/organizations')).toEqual([{ userJwt: [] }]);
    expect(security('get', '/api/v1/customer-portal/customer')).toEqual([{ customerSession: [] }]);
    // Public operations say so (an empty list), rather than saying nothing.
    const publicOps = operations()
      .filter(({ op }) => Array.isArray(op.security) && op.security.length === 0)
      .map(({ method, path }) => `${method.toUpperCase()} ${path}`);
    expect(publicOps.sort()).toEqual(
      [
        'GET /api/v1/checkouts/client/{client_secret}',
        'GET /api/v1/checkouts/client/{client_secret}/seller-config',
        'GET /api/v1/sandbox/test-cards',
        'GET /api/v1/transactions/{transaction_id}',
        'GET /checkout/{checkout_link_id}',
        'GET /healthz',
        'GET /readyz',
        'POST /api/v1/checkouts/client/{client_secret}/confirm-sdk',
        'POST /api/v1/gateway/callbacks',
        'POST /api/v1/sandbox/invoices/{invoice_id}/pay',
        'POST /api/v1/sandbox/transactions/{transaction_id}/expire',
        'POST /api/v1/sandbox/transactions/{transaction_id}/pay',
        'POST /api/v1/transactions/direct',
      ].sort(),
    );
    for (const { op } of operations())
      for (const requirement of op.security ?? [])
        for (const scheme of Object.keys(requirement)) expect(doc.components.securitySchemes[scheme]).toBeDefined();
  });

  it('bounds every path parameter within what the router takes', () => {
    const unbounded: string[] = [];
    for (const { method, path, op } of operations())
      for (const p of (op.parameters ?? []).filter((p: any) => p.in === 'path')) {
        const max = p.schema.maxLength ?? (p.schema.format === 'uuid' ? 36 : undefined);
        if (!(max <= MAX_PARAM_LENGTH / 2)) unbounded.push(`${method} ${path} ${p.name}`);
      }
    expect(unbounded).toEqual([]);
  });

  it('links each created record to the operations that take its id', () => {
    const ids = new Set(operations().map(({ op }) => op.operationId));
    const links = operations().flatMap(({ op }) =>
      Object.values<any>(op.responses).flatMap((r) => Object.values<any>(r.links ?? {})),
    );
    expect(links.length).toBeGreaterThan(40);
    expect(links.filter((l) => !ids.has(l.operationId))).toEqual([]);
    const created = operations().find(({ op }) => op.operationId === 'createProduct')!.op.responses['201'].links;
    expect(created.GetProduct).toEqual({ operationId: 'getProduct', parameters: { 'path.id': '$response.body#/id' } });
    expect(created.CreateCheckout).toEqual({
      operationId: 'createCheckout',
      requestBody: { product_id: '$response.body#/id' },
    });
  });
});

describe('the interactive documentation', () => {
  it('is served at /docs as an HTML page that loads the document', async () => {
    const page = await api.call('GET', '/docs');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toMatch(/<html/i);
    const spec = await api.call('GET', '/docs/json');
    expect(spec.status).toBe(200);
    expect(spec.body.paths).toEqual(doc.paths);
  });
});
