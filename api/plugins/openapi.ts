import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, onRequestHookHandler, RouteOptions } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import type { Config } from '../../config/env.ts';
import { requiredApiKeyScope } from '../../domain/api-key-scopes.ts';
import { errorBody } from '../../use-cases/schemas/common.ts';
import type { AuthRule } from './auth.ts';
import { documentIdempotencyKey } from './idempotency.ts';
import {
  addFreeValue,
  addLinks,
  documentPages,
  documentParameters,
  forbidNulInRequest,
  NO_NUL_PATTERN,
  type Document,
  type RequestSchema,
} from './openapi-document.ts';
import { deriveOperationId, OPERATION_IDS } from './openapi-operation-ids.ts';
import { checkTags, TAGS } from './openapi-tags.ts';
import { addWebhooks, nameRecordSchemas } from './openapi-webhooks.ts';

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
 * The names are in openapi-operation-ids.ts; the NUL rule, the key's pattern and the links in
 * openapi-document.ts.
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
  schema: RequestSchema;
  url: string;
}

export function describeOperation(input: TransformInput): Described {
  const { route, url } = input;
  const schema = (input.schema ?? {}) as RequestSchema;
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
    ...(schema.hide ? {} : { tags: checkTags(`${method} ${url}`, schema.tags) }),
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
\`invalid_character\`. POST operations take an optional \`Idempotency-Key\` header.

Requests are rate-limited in fixed windows (429 with \`Retry-After\`): per credential on operations that take
one, and per client address on public operations (those without a security requirement), whatever credential
a caller sends there; the read of a checkout by its \`client_secret\` is counted per checkout instead.`;

/** @fastify/swagger with the transforms above; the document at /openapi.json, its page at /docs. */
export async function registerOpenApi(app: FastifyInstance, config: Config): Promise<void> {
  nameRecordSchemas();
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Billing, Checkout and Subscriptions API',
        version: '1.0.0',
        description: DESCRIPTION,
      },
      servers: [{ url: config.publicBaseUrl }],
      tags: TAGS.map((tag) => ({ ...tag })),
      components: { securitySchemes: SECURITY_SCHEMES },
    },
    transform: describeOperation,
    // Schemas named in zod's registry (the records, openapi-webhooks.ts) become components that $refs point to.
    transformObject: (input) =>
      documentPages(addWebhooks(addFreeValue(addLinks(jsonSchemaTransformObject(input) as Document))) as Document),
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
