import type { FastifySchema } from 'fastify';
import { IDEMPOTENCY_HEADER } from './idempotency.ts';
import { pascal } from './openapi-operation-ids.ts';
import { FREE_VALUE } from '../../use-cases/schemas/common.ts';

/**
 * What the document states beyond the route schemas: the rules every request string and key obey
 * (on each operation's request schema) and the links between operations (on the whole document).
 */

/** An operation's schema as the per-operation transform hands it on. */
export type RequestSchema = FastifySchema & Record<string, unknown>;

/**
 * What every request string is refused for (api/plugins/protocol.ts answers it 400 `invalid_character`),
 * as a pattern: PostgreSQL's text and jsonb cannot hold U+0000.
 */
export const NO_NUL_PATTERN = '^[^\\u0000]*$';

/**
 * Any JSON value of a free-form object (metadata, settings), its NUL rule stated at every level: a
 * string, or a key of an object however deep, holds no NUL (decision 0007). It refers to itself.
 */
export function addFreeValue(doc: Document): Document {
  const self = { $ref: `#/components/schemas/${FREE_VALUE}` };
  const components = (doc.components ??= {}) as { schemas?: Record<string, unknown> };
  (components.schemas ??= {})[FREE_VALUE] = {
    description:
      'Any JSON value. No string and no object key, at any depth, may contain the NUL character (U+0000): ' +
      'such a request is answered 400 `invalid_character`.',
    anyOf: [
      { type: 'string', pattern: NO_NUL_PATTERN },
      { type: 'number' },
      { type: 'boolean' },
      { type: 'null' },
      { type: 'array', items: self },
      { type: 'object', propertyNames: { type: 'string', pattern: NO_NUL_PATTERN }, additionalProperties: self },
    ],
  };
  return doc;
}

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
export function forbidNulInRequest(schema: RequestSchema): RequestSchema {
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
export function documentParameters(schema: RequestSchema): RequestSchema {
  const headers = schema.headers as { properties?: Record<string, Record<string, unknown>> } | undefined;
  const key = headers?.properties?.[IDEMPOTENCY_HEADER];
  if (key && !key.pattern) key.pattern = '^[\\x20-\\x7E]+$';
  return schema;
}

export type Document = Record<string, unknown> & {
  paths: Record<string, Record<string, Operation>>;
};
interface Operation {
  operationId?: string;
  parameters?: { in: string; name: string }[];
  responses: Record<string, { content?: Record<string, { schema?: JsonSchema }>; links?: Record<string, unknown> }>;
}
interface JsonSchema {
  type?: string;
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

/**
 * Operations that answer a browser with a page: the listed statuses are `text/html` (the 200 only),
 * or `text/html` beside the JSON error body (a 404 for a browser is a page, for a client the error).
 */
const PAGE_RESPONSES: Record<string, { html: string[]; alsoHtml: string[] }> = {
  'get /checkout/{checkout_link_id}': { html: ['200'], alsoHtml: ['404'] },
};
const HTML = { 'text/html': { schema: { type: 'string' } } };

export function documentPages(document: Document): Document {
  for (const [key, statuses] of Object.entries(PAGE_RESPONSES)) {
    const [method, path] = key.split(' ') as [string, string];
    const operation = document.paths[path]?.[method];
    if (!operation) continue;
    for (const status of statuses.html) {
      const response = operation.responses[status];
      if (response) response.content = { ...HTML };
    }
    for (const status of statuses.alsoHtml) {
      const response = operation.responses[status];
      if (response) response.content = { ...response.content, ...HTML };
    }
  }
  return document;
}
