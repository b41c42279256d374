/** Authorization rules for API keys (read/write/admin) and Organization Access Token scopes. */

export type ApiKeyScope = 'read' | 'write' | 'admin';
export type ApiKeyResource =
  | 'subscriptions'
  | 'customers'
  | 'sales'
  | 'transactions'
  | 'products'
  | 'checkout-links'
  | 'refunds'
  | 'customer-portal-sessions'
  | 'events'
  | 'files'
  | 'reconciliations'
  | 'other';

const READ_RESOURCES: readonly ApiKeyResource[] = [
  'subscriptions',
  'customers',
  'sales',
  'transactions',
  'products',
  'checkout-links',
];
const WRITE_RESOURCES: readonly ApiKeyResource[] = ['customers', 'transactions', 'subscriptions', 'refunds'];

/**
 * Minimum API-key scope for a request. Anything the spec does not grant to
 * read or write falls to admin (fail closed): reconciliations (decision 0076), like metrics and the
 * event log, are not among the spec's read and write resources. HEAD is treated as GET because
 * the HTTP server answers HEAD with the GET handler.
 */
export function requiredApiKeyScope(method: string, resource: ApiKeyResource): ApiKeyScope {
  const m = method.toUpperCase();
  if ((m === 'GET' || m === 'HEAD') && READ_RESOURCES.includes(resource)) return 'read';
  if ((m === 'POST' || m === 'PATCH' || m === 'DELETE') && WRITE_RESOURCES.includes(resource)) return 'write';
  // Creating a customer portal session is an action on a customer.
  if (m === 'POST' && resource === 'customer-portal-sessions') return 'write';
  return 'admin';
}

const RANK: Record<ApiKeyScope, number> = { read: 1, write: 2, admin: 3 };

/** admin ⊇ write ⊇ read. Unknown granted strings (e.g. from stale rows) grant nothing. */
export function apiKeyAllows(granted: readonly ApiKeyScope[], needed: ApiKeyScope): boolean {
  return granted.some((g) => Object.hasOwn(RANK, g) && RANK[g] >= RANK[needed]);
}

export const OAT_SCOPES = [
  'web:read',
  'web:write',
  'organizations:read',
  'organizations:write',
  'products:read',
  'products:write',
  'customers:read',
  'customers:write',
  'checkouts:read',
  'checkouts:write',
  'checkout_links:read',
  'checkout_links:write',
  'subscriptions:read',
  'subscriptions:write',
  'discounts:read',
  'discounts:write',
  'sales:read',
  'refunds:read',
  'refunds:write',
  'transactions:read',
  'webhooks:read',
  'webhooks:write',
  'events:read',
  'files:read',
  'files:write',
  'metrics:read',
  'reconciliations:read',
  'reconciliations:write',
  'customer_sessions:write',
] as const;
export type OatScope = (typeof OAT_SCOPES)[number];

function oatImplies(granted: string, needed: string): boolean {
  if (granted === needed || granted === 'web:write') return true;
  if (granted === 'web:read') return needed.endsWith(':read');
  return granted.endsWith(':write') && needed === `${granted.slice(0, -':write'.length)}:read`;
}

/**
 * True when some granted scope implies at least one of `anyOf`. An empty
 * `anyOf` returns false (fail closed): callers with no requirement should not ask.
 */
export function oatAllows(granted: readonly string[], anyOf: readonly string[]): boolean {
  return anyOf.some((needed) => granted.some((g) => oatImplies(g, needed)));
}
