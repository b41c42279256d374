import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import SwaggerParser from '@apidevtools/swagger-parser';
import { NO_NUL_PATTERN } from '../../api/plugins/openapi-document.ts';
import { FREE_VALUE } from '../../use-cases/schemas/common.ts';
import { EVENT_TYPES } from '../../db/events.ts';
import { MAX_PARAM_LENGTH } from '../../api/plugins/openapi.ts';
import { startApi, type TestApi } from '../helpers/api.ts';
import { makeTenant } from '../helpers/fixtures.ts';

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
/** The pages' routes with a parameter (a page by its secret, its form post, its assets): web, not API operations. */
const PAGE_ROUTES = new Set([
  'GET /assets/:version/:name',
  'GET /brand/:file',
  'GET /brand/logos/:organization_id',
  'GET /checkout/c/:client_secret',
  'POST /checkout/c/:client_secret',
  'POST /checkout/c/:client_secret/preview',
  'POST /checkout/:checkout_link_id',
  'GET /portal/subscriptions/:id',
  'GET /portal/subscriptions/:id/cancel',
  'GET /portal/subscriptions/:id/plan',
  'GET /portal/subscriptions/:id/card',
  'POST /portal/subscriptions/:id/card',
  'POST /portal/subscriptions/:id/cancel',
  'POST /portal/subscriptions/:id/uncancel',
  'POST /portal/subscriptions/:id/plan',
  'GET /portal/subscriptions/:id/mandate/revoke',
  'POST /portal/subscriptions/:id/mandate/revoke',
  'POST /portal/subscriptions/:id/mandate',
  'GET /portal/subscriptions/:id/mandate/status',
  'POST /portal/billing',
]);
/** The merchant dashboard's pages (all under /dashboard) are pages too, with no API operation. */
const isPageRoute = (route: string) => PAGE_ROUTES.has(route) || / \/dashboard(\/|$)/.test(route);
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
    for (const route of served.filter((r) => !documented.includes(r) && !isPageRoute(r))) {
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

  it('groups the operations: each has exactly one tag of the described list, and every listed tag is used', () => {
    const names = (doc.tags as { name: string; description?: string }[]).map((t) => t.name);
    expect(doc.tags.filter((t: { description?: string }) => !t.description?.trim())).toEqual([]);
    const stray = operations()
      .filter(({ op }) => op.tags?.length !== 1 || !names.includes(op.tags[0]))
      .map(({ method, path, op }) => `${method.toUpperCase()} ${path}: ${JSON.stringify(op.tags)}`);
    expect(stray).toEqual([]);
    const used = new Set(operations().map(({ op }) => op.tags[0]));
    expect(names.filter((name) => !used.has(name))).toEqual([]);
    // The spec's Core API resource groups each have their tag.
    const groups = ['checkouts', 'checkout-links', 'products', 'customers', 'subscriptions', 'sales', 'discounts'];
    expect(names).toEqual(
      expect.arrayContaining([...groups, 'files', 'webhooks', 'metrics', 'events', 'organizations']),
    );
  });

  it('describes under `webhooks` every event type a webhook receives: the envelope, its data the record its GET answers', () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual([...EVENT_TYPES].sort());
    const getAnswer = (path: string) => doc.paths[path].get.responses['200'].content['application/json'].schema;
    for (const type of EVENT_TYPES) {
      const body = doc.webhooks[type].post.requestBody.content['application/json'].schema;
      expect({ type, required: body.required, eventType: body.properties.type }).toEqual({
        type,
        required: ['id', 'type', 'created_at', 'organization_id', 'actor', 'data'],
        eventType: { type: 'string', const: type },
      });
      const data = body.properties.data;
      const name = (data.$ref ?? data.allOf[0].$ref).split('/').at(-1);
      expect({ type, data: doc.components.schemas[name]?.type }).toEqual({ type, data: 'object' });
    }
    const dataOf = (type: string) =>
      doc.webhooks[type].post.requestBody.content['application/json'].schema.properties.data;
    // The record's schema is the one its GET answers.
    expect(dataOf('customer.created')).toEqual(getAnswer('/api/v1/customers/{id}'));
    expect(dataOf('sale.refunded')).toEqual(getAnswer('/api/v1/sales/{id}'));
    // An event with fields of its own: the record and those.
    expect(dataOf('customer.updated').allOf).toEqual([
      getAnswer('/api/v1/customers/{id}'),
      expect.objectContaining({ required: ['changed_fields'] }),
    ]);
    expect(dataOf('refund.created')).toEqual(getAnswer('/api/v1/refunds/{id}'));
    // A checkout's answers add its hosted page's url to the record its events carry.
    expect(dataOf('checkout.updated')).toEqual({ $ref: '#/components/schemas/Checkout' });
    const checkout = doc.components.schemas.Checkout;
    const checkoutAnswer = getAnswer('/api/v1/checkouts/{id}');
    expect({ properties: Object.keys(checkoutAnswer.properties), required: checkoutAnswer.required }).toEqual({
      properties: [...Object.keys(checkout.properties), 'url'],
      required: [...checkout.required, 'url'],
    });
    expect(checkoutAnswer.properties.url.type).toBe('string');
    expect(dataOf('product.created')).toEqual(getAnswer('/api/v1/products/{id}'));
    // A mandate's events carry the Mandate; its charges' the MandateCharge, which its detail lists.
    expect(dataOf('mandate.approved')).toEqual({ $ref: '#/components/schemas/Mandate' });
    expect(dataOf('mandate.charge_attempt_failed')).toEqual({ $ref: '#/components/schemas/MandateCharge' });
    const mandateAnswer = getAnswer('/api/v1/mandates/{id}');
    const mandate = doc.components.schemas.Mandate;
    expect({
      properties: Object.keys(mandateAnswer.properties),
      charges: mandateAnswer.properties.charges.items,
    }).toEqual({
      properties: [...Object.keys(mandate.properties), 'charges'],
      charges: { $ref: '#/components/schemas/MandateCharge' },
    });
    expect(doc.webhooks['sale.paid'].post.parameters.map((p: { name: string }) => p.name)).toEqual([
      'webhook-id',
      'webhook-timestamp',
      'webhook-signature',
    ]);
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
      'post /api/v1/sandbox/mandates/{id}/authorize': 'authorizeSandboxMandate',
      'post /api/v1/sandbox/mandates/{id}/revoke': 'revokeSandboxMandate',
      'post /api/v1/sandbox/mandates/{id}/payer-maximum': 'setSandboxMandatePayerMaximum',
      'post /api/v1/sandbox/mandate-charges/settle': 'settleSandboxMandateCharges',
    });
  });

  it("states each operation's credentials as its route's auth rule accepts them", () => {
    const security = (method: string, path: string) =>
      operations().find((o) => o.method === method && o.path === path)!.op.security;
    expect(security('post', '/api/v1/products')).toEqual([{ accessToken: ['products:write'] }, { apiKey: ['admin'] }]);
    expect(security('get', '/api/v1/customers')).toEqual([{ accessToken: ['customers:read'] }, { apiKey: ['read'] }]);
    expect(security('post', '/api/v1/organizations')).toEqual([{ userJwt: [] }]);
    expect(security('get', '/api/v1/customer-portal/customer')).toEqual([{ customerSession: [] }]);
    // The sandbox's Pix Automático routes name the organization's mandates: they take its credential.
    expect(security('post', '/api/v1/sandbox/mandates/{id}/revoke')).toEqual([
      { accessToken: ['subscriptions:write'] },
      { apiKey: ['write'] },
    ]);
    // Public operations say so (an empty list), rather than saying nothing.
    const publicOps = operations()
      .filter(({ op }) => Array.isArray(op.security) && op.security.length === 0)
      .map(({ method, path }) => `${method.toUpperCase()} ${path}`);
    expect(publicOps.sort()).toEqual(
      [
        'GET /api/v1',
        'GET /api/v1/checkouts/client/{client_secret}',
        'GET /api/v1/checkouts/client/{client_secret}/seller-config',
        'GET /api/v1/files/{id}/download',
        'GET /api/v1/sandbox/test-cards',
        'GET /api/v1/transactions/{transaction_id}',
        'GET /checkout/{checkout_link_id}',
        'GET /healthz',
        'GET /readyz',
        'GET /sandbox-gateway/v1/payment_methods/installments',
        'GET /sandbox-gateway/v1/payment_methods/search',
        'POST /api/v1/checkouts/client/{client_secret}/confirm-sdk',
        'POST /api/v1/gateway/callbacks',
        'POST /api/v1/gateway/callbacks/bcb/cobr',
        'POST /api/v1/gateway/callbacks/bcb/rec',
        'POST /api/v1/gateway/mercadopago/notifications',
        'POST /api/v1/gateway/efi/notifications',
        'POST /api/v1/sandbox/cards/{card_token_id}/update',
        'POST /api/v1/sandbox/chargebacks/{chargeback_id}/decide',
        'POST /api/v1/sandbox/invoices/{invoice_id}/fail',
        'POST /api/v1/sandbox/invoices/{invoice_id}/pay',
        'POST /api/v1/sandbox/subscriptions/{gateway_subscription_id}/bill',
        'POST /api/v1/sandbox/transactions/{transaction_id}/end-review',
        'POST /api/v1/sandbox/transactions/{transaction_id}/expire',
        'POST /api/v1/sandbox/transactions/{transaction_id}/chargebacks',
        'POST /api/v1/sandbox/transactions/{transaction_id}/pay',
        'POST /api/v1/transactions/direct',
        'POST /sandbox-gateway/v1/card_tokens',
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

  it('states on every string of a request what it may hold: no NUL character, or a pattern, format or value list', () => {
    /** Each string schema of a request part, with where it is; `not` is skipped (it turns a rule around). */
    const strings = (node: any, at: string, out: { at: string; schema: any }[] = []) => {
      if (!node || typeof node !== 'object' || Array.isArray(node)) return out;
      if ([node.type].flat().includes('string')) out.push({ at, schema: node });
      for (const key of ['items', 'additionalProperties', 'propertyNames', 'contains', 'if', 'then', 'else'])
        strings(node[key], `${at}/${key}`, out);
      for (const key of ['allOf', 'anyOf', 'oneOf', 'prefixItems'])
        (node[key] ?? []).forEach((item: any, i: number) => strings(item, `${at}/${key}/${i}`, out));
      for (const [name, item] of Object.entries<any>(node.properties ?? {})) strings(item, `${at}.${name}`, out);
      return out;
    };
    const found = operations().flatMap(({ method, path, op }) => [
      ...(op.parameters ?? []).flatMap((p: any) => strings(p.schema, `${method} ${path} ${p.in}:${p.name}`)),
      ...strings(op.requestBody?.content?.['application/json']?.schema, `${method} ${path} body`),
    ]);
    expect(found.length).toBeGreaterThan(200);
    const unstated = found.filter(({ schema }) => !schema.pattern && !schema.format && !schema.enum && !schema.const);
    expect(unstated.map(({ at }) => at)).toEqual([]);
    // Every pattern, the added one and the routes' own, refuses a NUL (ECMA-262 reads \u0000 as U+0000).
    const admitsNul = found.filter(({ schema }) => schema.pattern && new RegExp(schema.pattern).test('a\u0000b'));
    expect(admitsNul.map(({ at }) => at)).toEqual([]);
    expect(found.filter(({ schema }) => schema.pattern === NO_NUL_PATTERN).length).toBeGreaterThan(100);
    expect(new RegExp(NO_NUL_PATTERN).test('tab\there, é, ✓')).toBe(true);
    expect(doc.info.description).toContain(NO_NUL_PATTERN);
  });

  it('states the NUL rule at every depth of a free-form object (metadata, settings), not only on its top keys', () => {
    /** Each free-form object (a map with propertyNames) of a request body, with what its values may be. */
    const maps = (node: any, at: string, out: { at: string; values: any }[] = []) => {
      if (!node || typeof node !== 'object') return out;
      if (Array.isArray(node)) {
        node.forEach((item, i) => maps(item, `${at}/${i}`, out));
        return out;
      }
      if (node.propertyNames) out.push({ at, values: node.additionalProperties });
      for (const [key, item] of Object.entries<any>(node)) maps(item, `${at}/${key}`, out);
      return out;
    };
    const found = operations().flatMap(({ method, path, op }) =>
      maps(op.requestBody?.content?.['application/json']?.schema, `${method} ${path} body`),
    );
    expect(found.length).toBeGreaterThan(10);
    // A value schema without a type ({}) would say that a nested key or string may hold anything.
    const unstated = found.filter(({ values }) => !values?.$ref && !values?.type && !values?.anyOf);
    expect(unstated.map(({ at }) => at)).toEqual([]);
    const self = { $ref: `#/components/schemas/${FREE_VALUE}` };
    const products = doc.paths['/api/v1/products'].post.requestBody.content['application/json'].schema;
    expect(products.properties.metadata.additionalProperties).toEqual(self);
    const branches = doc.components.schemas[FREE_VALUE].anyOf;
    expect(branches).toContainEqual({ type: 'string', pattern: NO_NUL_PATTERN });
    expect(branches).toContainEqual({ type: 'array', items: self });
    expect(branches).toContainEqual({
      type: 'object',
      propertyNames: { type: 'string', pattern: NO_NUL_PATTERN },
      additionalProperties: self,
    });
  });

  it('closes every request body (an unknown field is a 400), but the gateways’ notices (their fields are the gateways’)', () => {
    const named = (schema: any) => (schema?.$ref ? doc.components.schemas[schema.$ref.split('/').pop()] : schema);
    const open = (schema: any): boolean => {
      const s = named(schema);
      if (!s) return false;
      if (s.oneOf || s.anyOf) return [...(s.oneOf ?? []), ...(s.anyOf ?? [])].some(open);
      return s.type === 'object' && s.additionalProperties !== false;
    };
    const opened = operations()
      .filter(({ op }) => open(op.requestBody?.content?.['application/json']?.schema))
      .map(({ method, path }) => `${method} ${path}`);
    expect(opened).toEqual([
      'post /api/v1/gateway/callbacks',
      'post /api/v1/gateway/callbacks/bcb/rec',
      'post /api/v1/gateway/callbacks/bcb/cobr',
      'post /api/v1/gateway/mercadopago/notifications',
      'post /api/v1/gateway/efi/notifications',
    ]);
  });

  it('states the variants of a discount (type × duration), so a body that mixes them breaks the document', () => {
    const create = operations().find(({ op }) => op.operationId === 'createDiscount')!.op;
    const variants = create.requestBody.content['application/json'].schema.oneOf.flatMap((byType: any) => byType.oneOf);
    const summary = variants.map((v: any) => ({
      type: v.properties.type.enum,
      duration: v.properties.duration.enum,
      required: v.required.filter((f: string) => !['name', 'type'].includes(f)).sort(),
      forbidden: Object.keys(v.properties)
        .filter((f) => JSON.stringify(v.properties[f]) === '{"not":{}}')
        .sort(),
      closed: v.additionalProperties === false,
    }));
    expect(summary).toEqual([
      {
        type: ['percentage'],
        duration: ['once', 'forever'],
        required: ['basis_points'],
        forbidden: ['amount', 'currency', 'duration_in_months'],
        closed: true,
      },
      {
        type: ['percentage'],
        duration: ['repeating'],
        required: ['basis_points', 'duration', 'duration_in_months'],
        forbidden: ['amount', 'currency'],
        closed: true,
      },
      {
        type: ['fixed'],
        duration: ['once', 'forever'],
        required: ['amount', 'currency'],
        forbidden: ['basis_points', 'duration_in_months'],
        closed: true,
      },
      {
        type: ['fixed'],
        duration: ['repeating'],
        required: ['amount', 'currency', 'duration', 'duration_in_months'],
        forbidden: ['basis_points'],
        closed: true,
      },
    ]);
  });

  it('documents the 422 of the rules JSON Schema cannot state, by their codes', () => {
    const response = (operationId: string) =>
      operations().find(({ op }) => op.operationId === operationId)!.op.responses['422'].description;
    expect(response('createDiscount')).toMatch(/`invalid_ends_at`/);
    expect(response('updateDiscount')).toMatch(/`invalid_ends_at`.*`max_redemptions_below_redemptions`/);
    expect(response('createApiKey')).toMatch(/`invalid_expires_at`/);
    expect(response('createAccessToken')).toMatch(/`invalid_expires_at`/);
    for (const id of ['createCustomer', 'updateCustomer', 'updateCustomerByExternalId'])
      expect(response(id)).toMatch(/`invalid_tax_id`/);
    // 400 and 422 say which is which on the operations whose routes use the shared error responses.
    for (const { path, op } of operations().filter(({ path }) =>
      /^\/api\/v1\/(discounts|customers|dashboard)/.test(path),
    )) {
      expect({ path, description: op.responses['400'].description }).toEqual({
        path,
        description: expect.stringMatching(/^Invalid request: the request breaks this document/),
      });
      expect({ path, description: op.responses['422'].description }).toEqual({
        path,
        description: expect.stringMatching(/^Validation error: the request is well-formed/),
      });
    }
  });

  it("states a checkout's rules between fields, and a body that breaks the document is a 400, never a 500", async () => {
    const create = operations().find(({ op }) => op.operationId === 'createCheckout')!.op;
    const body = create.requestBody.content['application/json'].schema;
    expect(body.anyOf).toEqual([
      { required: ['product_id'] },
      { required: ['product_price_id'] },
      { required: ['products'] },
    ]);
    expect(body.dependentRequired).toEqual({
      trial_interval: ['trial_interval_count'],
      trial_interval_count: ['trial_interval'],
    });
    const tenant = await makeTenant(api.orm);
    for (const sent of [{}, { product_id: '0190a0a0-0000-7000-8000-000000000000', embed_origin: '' }]) {
      const res = await api.call('POST', '/api/v1/checkouts', { token: tenant.oat, body: sent });
      expect({ sent, status: res.status }).toEqual({ sent, status: 400 });
    }
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

describe('the operations that answer a browser with a page', () => {
  it('document the checkout link page as text/html, and its 404 as a page or the error body', () => {
    const responses = doc.paths['/checkout/{checkout_link_id}'].get.responses;
    expect(Object.keys(responses['200'].content)).toEqual(['text/html']);
    expect(Object.keys(responses['404'].content).sort()).toEqual(['application/json', 'text/html']);
    expect(Object.keys(responses['201'].content)).toEqual(['application/json']);
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
