import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifySchema, onRequestHookHandler, RouteOptions } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import type { Config } from '../../config/env.ts';
import { requiredApiKeyScope } from '../../domain/api-key-scopes.ts';
import { errorBody } from '../schemas/common.ts';
import type { AuthRule } from './auth.ts';
import { documentIdempotencyKey, IDEMPOTENCY_HEADER } from './idempotency.ts';

/**
 * The OpenAPI document, derived from the routes so that it cannot drift from them. Each operation
 * gets, without its route module saying so:
 *  - a stable `operationId` (the route's `schema.operationId`, else one of OPERATION_IDS, else derived
 *    from the method and path),
 *  - its `security`: the credentials its `app.authenticate(rule)` accepts, with the scopes they need
 *    (none for a public route: `security: []`),
 *  - the error responses any request can meet (400, 429, 500; 401 and 403 when it is authenticated;
 *    404 with a path parameter; 413 and 415 with a body), with the error body,
 *  - links from the responses that create a record to the operations that take its id, so that a
 *    generated client (or a stateful fuzzer) can follow them.
 */

/** Credentials, one scheme each, so that a client (and the document's reader) knows which one an operation takes. */
export const SECURITY_SCHEMES = {
  accessToken: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'svc_oat_…',
    description:
      'Organization Access Token in `Authorization: Bearer`. The requirement lists the scopes of which the token needs one (`web:write` implies every scope, `web:read` every read scope).',
  },
  apiKey: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Service-Api-Key',
    description:
      'API key (`svc_live_…` / `svc_test_…`; `Authorization: Bearer` is accepted too). The requirement names the scope the key needs: read, write or admin.',
  },
  userJwt: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: "A user's JWT from the identity provider, in `Authorization: Bearer`.",
  },
  customerSession: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'svc_cst_…',
    description: 'Customer Session Token (`POST /api/v1/customer-portal/sessions`), in `Authorization: Bearer`.',
  },
} as const;

type SecurityRequirement = Partial<Record<keyof typeof SECURITY_SCHEMES, string[]>>;

/** Longest path parameter the router takes (in UTF-16 units); a longer one is a 400, like any schema violation. */
export const MAX_PARAM_LENGTH = 512;

/**
 * Names that read better than the derived ones (the derivation is in `deriveOperationId`). Keys are
 * `METHOD /path` as the route declares it. Changing a name here breaks generated clients: add, do not rename.
 */
const OPERATION_IDS: Record<string, string> = {
  'GET /healthz': 'getLiveness',
  'GET /readyz': 'getReadiness',
  'POST /api/v1/organizations/:id/members': 'addOrganizationMember',
  'DELETE /api/v1/organizations/:id/members/:email': 'removeOrganizationMember',
  'POST /api/v1/dashboard/organizations/:organization_id/api-keys': 'createApiKey',
  'GET /api/v1/dashboard/organizations/:organization_id/api-keys': 'listApiKeys',
  'POST /api/v1/dashboard/organizations/:organization_id/api-keys/:id/revoke': 'revokeApiKey',
  'DELETE /api/v1/dashboard/organizations/:organization_id/api-keys/:id': 'deleteApiKey',
  'POST /api/v1/dashboard/organizations/:organization_id/access-tokens': 'createAccessToken',
  'GET /api/v1/dashboard/organizations/:organization_id/access-tokens': 'listAccessTokens',
  'DELETE /api/v1/dashboard/organizations/:organization_id/access-tokens/:id': 'revokeAccessToken',
  'DELETE /api/v1/products/:id': 'archiveProduct',
  'GET /api/v1/customers/external/:external_id': 'getCustomerByExternalId',
  'PATCH /api/v1/customers/external/:external_id': 'updateCustomerByExternalId',
  'DELETE /api/v1/customers/external/:external_id': 'deleteCustomerByExternalId',
  'DELETE /api/v1/checkout-links/:id': 'archiveCheckoutLink',
  'POST /api/v1/customer-portal/sessions': 'createCustomerSession',
  'GET /api/v1/customer-portal/customer': 'getPortalCustomer',
  'POST /api/v1/checkouts/:id/manual-renewal-checkout': 'createManualRenewalCheckout',
  'GET /api/v1/checkouts/client/:client_secret': 'getCheckoutByClientSecret',
  'GET /api/v1/checkouts/client/:client_secret/seller-config': 'getCheckoutSellerConfig',
  'POST /api/v1/checkouts/client/:client_secret/confirm-sdk': 'confirmCheckout',
  'POST /api/v1/gateway/callbacks': 'receiveGatewayCallback',
  'GET /checkout/:checkout_link_id': 'openCheckoutLink',
  'GET /api/v1/sandbox/test-cards': 'listSandboxTestCards',
  'POST /api/v1/sandbox/transactions/:transaction_id/pay': 'paySandboxTransaction',
  'POST /api/v1/sandbox/transactions/:transaction_id/expire': 'expireSandboxTransaction',
  'POST /api/v1/sandbox/invoices/:invoice_id/pay': 'paySandboxInvoice',
  'POST /api/v1/sandbox/invoices/:invoice_id/fail': 'failSandboxInvoice',
  'POST /api/v1/transactions/direct': 'createDirectTransaction',
  'POST /functions/v1/create-price': 'createPrice',
};

const VERBS: Record<string, string> = { POST: 'create', PATCH: 'update', PUT: 'replace', DELETE: 'delete' };

const pascal = (word: string) =>
  word
    .split(/[-_]/)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
const singular = (word: string) => word.replace(/ies$/, 'y').replace(/(?<!s)s$/, '');

/**
 * `GET /api/v1/products` → listProducts, `GET /api/v1/products/:id` → getProduct, `POST` → create…,
 * `PATCH` → update…, `DELETE` → delete…; a static segment after a parameter names a sub-resource
 * (`GET /organizations/:id/members` → listOrganizationMembers).
 */
export function deriveOperationId(method: string, url: string): string {
  const segments = url
    .replace(/^\/(api|functions)\/v\d+/, '')
    .split('/')
    .filter(Boolean);
  const nouns = segments.filter((s) => !s.startsWith(':'));
  const collection = !segments.at(-1)?.startsWith(':');
  const plural = method === 'GET' && collection;
  const words = nouns.map((noun, i) => (i === nouns.length - 1 && plural ? noun : singular(noun)));
  const verb = method === 'GET' ? (collection ? 'list' : 'get') : (VERBS[method] ?? method.toLowerCase());
  return verb + words.map(pascal).join('');
}

// ------------------------------------------------------------------------------------------------
// Security, from the rule each route hands to app.authenticate
// ------------------------------------------------------------------------------------------------

const authRules = new WeakMap<onRequestHookHandler, AuthRule>();

/**
 * Wraps `app.authenticate` so the hook it returns remembers its rule; call it after registerAuth and
 * before the routes. The document then reads each route's credentials from its onRequest hooks.
 */
export function recordAuthRules(app: FastifyInstance): void {
  const authenticate = app.authenticate.bind(app);
  app.authenticate = (rule: AuthRule) => {
    const hook = authenticate(rule);
    authRules.set(hook, rule);
    return hook;
  };
}

export function authRuleOf(route: Pick<RouteOptions, 'onRequest'>): AuthRule | undefined {
  const hooks = [route.onRequest ?? []].flat() as onRequestHookHandler[];
  for (const hook of hooks) {
    const rule = authRules.get(hook);
    if (rule) return rule;
  }
  return undefined;
}

/**
 * Alternatives, the most personal first: user JWT, access token, API key, customer session. (A
 * client that holds several picks the first; for a user's own organizations that is the JWT.)
 */
export function securityOf(rule: AuthRule | undefined, method: string): SecurityRequirement[] {
  if (!rule) return [];
  const requirements: SecurityRequirement[] = [];
  if (rule.user) requirements.push({ userJwt: [] });
  if (rule.oat) requirements.push({ accessToken: [...rule.oat] });
  if (rule.apiKey) requirements.push({ apiKey: [requiredApiKeyScope(method, rule.apiKey)] });
  if (rule.customer) requirements.push({ customerSession: [] });
  return requirements;
}

// ------------------------------------------------------------------------------------------------
// The per-operation transform
// ------------------------------------------------------------------------------------------------

const errorResponse = (description: string) => errorBody.meta({ description });

const ALWAYS = {
  400: errorResponse('Invalid request: the detail names the offending field'),
  429: errorResponse('Rate limit exceeded; see Retry-After'),
  500: errorResponse('Internal server error (no detail is ever leaked)'),
};
const AUTHENTICATED = {
  401: errorResponse('Missing, invalid or expired credential'),
  403: errorResponse('The credential lacks the scope or role this operation needs'),
};
const WITH_PARAMS = { 404: errorResponse('No such record visible to this credential') };
const WITH_BODY = {
  413: errorResponse('Request body larger than the limit'),
  415: errorResponse('Content-Type is not application/json'),
};

type TransformInput = Parameters<typeof jsonSchemaTransform>[0];

interface Described {
  schema: FastifySchema & Record<string, unknown>;
  url: string;
}

export function describeOperation(input: TransformInput): Described {
  const { route, url } = input;
  const schema = (input.schema ?? {}) as FastifySchema & Record<string, unknown>;
  const method = [route.method].flat()[0]!.toUpperCase();
  const rule = authRuleOf(route as RouteOptions);
  const response = {
    ...ALWAYS,
    ...(rule ? AUTHENTICATED : {}),
    ...(url.includes(':') ? WITH_PARAMS : {}),
    ...(schema.body ? WITH_BODY : {}),
    ...(schema.response as Record<string, unknown> | undefined),
  };
  const operationId = (schema.operationId as string | undefined) ?? OPERATION_IDS[`${method} ${url}`];
  const described = {
    ...schema,
    operationId: operationId ?? deriveOperationId(method, url),
    security: securityOf(rule, method),
    response,
  };
  const transformed = documentIdempotencyKey(
    jsonSchemaTransform({ ...input, schema: described }) as Described,
    route.method,
  ) as Described;
  return { ...transformed, schema: forbidNulInRequest(documentParameters(transformed.schema)) };
}

/**
 * What every request string is refused for (api/plugins/protocol.ts answers it 400 `invalid_character`),
 * as a pattern: PostgreSQL's text and jsonb cannot hold U+0000.
 */
export const NO_NUL_PATTERN = '^[^\\u0000]*$';

/** Where a request can carry a string: the body, the query string, the path and the headers. */
const REQUEST_PARTS = ['body', 'querystring', 'params', 'headers'] as const;
/** Keywords holding one subschema, or a list or map of them, that a value must (or may) match. */
const SUBSCHEMA = ['items', 'additionalProperties', 'propertyNames', 'contains', 'if', 'then', 'else'];
const SUBSCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SUBSCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions'];

/**
 * States the NUL rule on every string of the request that does not already say what it holds (no
 * pattern, format, enum or const: those are stated by a pattern of their own, or cannot hold a NUL),
 * so that a client, and a fuzzer generating valid data, knows such a string is invalid. A value
 * under `not` is left alone: a pattern there would turn the rule around.
 */
export function forbidNulInRequest(schema: Described['schema']): Described['schema'] {
  for (const part of REQUEST_PARTS) forbidNul(schema[part]);
  return schema;
}

function forbidNul(node: unknown): void {
  if (node === null || typeof node !== 'object' || Array.isArray(node)) return;
  const schema = node as Record<string, unknown>;
  const types = [schema.type].flat();
  const free = !('pattern' in schema || 'format' in schema || 'enum' in schema || 'const' in schema);
  if (types.includes('string') && free) schema.pattern = NO_NUL_PATTERN;
  for (const key of SUBSCHEMA) forbidNul(schema[key]);
  for (const key of SUBSCHEMA_LISTS) if (Array.isArray(schema[key])) for (const item of schema[key]) forbidNul(item);
  for (const key of SUBSCHEMA_MAPS) {
    const map = schema[key];
    if (map && typeof map === 'object') for (const item of Object.values(map)) forbidNul(item);
  }
}

/** The key's rule (idempotency.ts checks it) and every path parameter's longest length, stated. */
function documentParameters(schema: Described['schema']): Described['schema'] {
  const headers = schema.headers as { properties?: Record<string, Record<string, unknown>> } | undefined;
  const key = headers?.properties?.[IDEMPOTENCY_HEADER];
  if (key && !key.pattern) key.pattern = '^[\\x20-\\x7E]+$';
  return schema;
}

// ------------------------------------------------------------------------------------------------
// The document
// ------------------------------------------------------------------------------------------------

type Document = Record<string, unknown> & {
  paths: Record<string, Record<string, Operation>>;
};
interface Operation {
  operationId?: string;
  parameters?: { in: string; name: string }[];
  responses: Record<string, { content?: Record<string, { schema?: JsonSchema }>; links?: Record<string, unknown> }>;
}
interface JsonSchema {
  properties?: Record<string, unknown>;
  $ref?: string;
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/**
 * Links for the stateful reader: the response that creates a record (2xx with an `id`) leads to each
 * operation under its path that takes that id as its next parameter (`POST /products` →
 * `GET /products/{id}`); the parameters both paths share are passed along from the request. A few
 * links across resources (a created product's id into a new checkout, …) are listed in CROSS_LINKS.
 */
export function addLinks(document: Document): Document {
  const schemas = ((document.components as Record<string, unknown> | undefined)?.schemas ?? {}) as Record<
    string,
    JsonSchema
  >;
  const resolve = (schema: JsonSchema | undefined): JsonSchema | undefined =>
    schema?.$ref ? schemas[schema.$ref.split('/').at(-1)!] : schema;
  const operations = Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => HTTP_METHODS.includes(method))
      .map(([method, operation]) => ({ path, method, operation })),
  );
  const byId = new Map(operations.map((o) => [o.operation.operationId, o]));

  for (const source of operations) {
    const created = Object.entries(source.operation.responses).find(
      ([status, response]) =>
        /^2\d\d$/.test(status) && resolve(response.content?.['application/json']?.schema)?.properties?.id,
    );
    if (!created) continue;
    const response = created[1];
    const links: Record<string, unknown> = {};
    const sourceParams = new Set((source.operation.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name));
    for (const target of operations) {
      const match = new RegExp(`^${escape(source.path)}/\\{([^}]+)\\}(/|$)`).exec(target.path);
      if (!match || target === source) continue;
      const parameters: Record<string, string> = { [`path.${match[1]}`]: '$response.body#/id' };
      for (const name of sourceParams) parameters[`path.${name}`] = `$request.path.${name}`;
      links[pascal(target.operation.operationId!)] = { operationId: target.operation.operationId, parameters };
    }
    for (const link of CROSS_LINKS.filter((l) => l.from === source.operation.operationId)) {
      if (!byId.has(link.to)) continue;
      links[pascal(link.to)] = {
        operationId: link.to,
        ...(link.parameters ? { parameters: link.parameters } : {}),
        ...(link.requestBody ? { requestBody: link.requestBody } : {}),
      };
    }
    if (Object.keys(links).length > 0) response.links = { ...links, ...response.links };
  }
  return document;
}

const escape = (path: string) => path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

interface CrossLink {
  from: string;
  to: string;
  parameters?: Record<string, string>;
  requestBody?: Record<string, string | string[]>;
}

/** Records of one resource that another operation takes; all the others follow from the paths. */
const CROSS_LINKS: CrossLink[] = [
  ...['createApiKey', 'listApiKeys', 'createAccessToken', 'listAccessTokens'].map((to) => ({
    from: 'createOrganization',
    to,
    parameters: { 'path.organization_id': '$response.body#/id' },
  })),
  { from: 'createProduct', to: 'createCheckout', requestBody: { product_id: '$response.body#/id' } },
  { from: 'createProduct', to: 'createCheckoutLink', requestBody: { product_ids: ['$response.body#/id'] } },
  { from: 'createProduct', to: 'createPrice', requestBody: { product_id: '$response.body#/id' } },
  { from: 'createCustomer', to: 'createCustomerSession', requestBody: { customer_id: '$response.body#/id' } },
  { from: 'createCustomer', to: 'createCheckout', requestBody: { customer_id: '$response.body#/id' } },
  ...['getCustomerByExternalId', 'updateCustomerByExternalId', 'deleteCustomerByExternalId'].map((to) => ({
    from: 'createCustomer',
    to,
    parameters: { 'path.external_id': '$response.body#/external_id' },
  })),
  { from: 'createDiscount', to: 'createCheckout', requestBody: { discount_id: '$response.body#/id' } },
  ...['getCheckoutByClientSecret', 'getCheckoutSellerConfig', 'confirmCheckout'].map((to) => ({
    from: 'createCheckout',
    to,
    parameters: { 'path.client_secret': '$response.body#/client_secret' },
  })),
  { from: 'createCheckoutLink', to: 'openCheckoutLink', parameters: { 'path.checkout_link_id': '$response.body#/id' } },
  ...['paySandboxInvoice', 'failSandboxInvoice'].map((to) => ({
    from: 'createSubscriptionInvoice',
    to,
    parameters: { 'path.invoice_id': '$response.body#/gateway_invoice_id' },
  })),
  ...['getTransaction', 'paySandboxTransaction', 'expireSandboxTransaction'].map((to) => ({
    from: 'confirmCheckout',
    to,
    parameters: { 'path.transaction_id': '$response.body#/gateway_payment_data/transaction_id' },
  })),
];

// ------------------------------------------------------------------------------------------------
// Registration
// ------------------------------------------------------------------------------------------------

const DESCRIPTION = `Products, prices, checkouts, subscriptions and payments (card, pix, boleto) for Brazil.

Every error answers with \`{ "error": string, "detail"?: string, "code": string }\`; \`code\` is stable and
machine-readable. 400 means the request breaks this document (a missing or unknown field, a wrong type, a
broken pattern); 422 means it is well-formed but a rule the document cannot state in JSON Schema refuses it
(a rule between fields, of the clock, of check digits, or of the data already stored), and its \`code\` says
which. Strings anywhere in a request (body, query, path) must not contain the NUL character (U+0000; the
pattern \`${NO_NUL_PATTERN}\` on each free-text string states it): such a request is answered 400
\`invalid_character\`. POST operations take an optional \`Idempotency-Key\` header.`;

/** @fastify/swagger with the transforms above; the document at /openapi.json, its page at /docs. */
export async function registerOpenApi(app: FastifyInstance, config: Config): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Billing, Checkout and Subscriptions API',
        version: '1.0.0',
        description: DESCRIPTION,
      },
      servers: [{ url: config.publicBaseUrl }],
      components: { securitySchemes: SECURITY_SCHEMES },
    },
    transform: describeOperation,
    // Schemas registered with .meta({ id }) become named components that $refs point to.
    transformObject: (input) => addLinks(jsonSchemaTransformObject(input) as Document),
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
