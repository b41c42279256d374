import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  OAT_SCOPES,
  apiKeyAllows,
  oatAllows,
  requiredApiKeyScope,
  type ApiKeyResource,
  type ApiKeyScope,
} from '../../domain/api-key-scopes.ts';

const RESOURCES: readonly ApiKeyResource[] = [
  'subscriptions',
  'customers',
  'sales',
  'transactions',
  'products',
  'checkout-links',
  'refunds',
  'customer-portal-sessions',
  'events',
  'files',
  'reconciliations',
  'other',
];
const METHODS = ['GET', 'POST', 'PATCH', 'DELETE', 'PUT'] as const;

// Expected scope per resource and method, written out from the spec so every cell is checked.
const r = 'read' as const;
const w = 'write' as const;
const a = 'admin' as const;
const TABLE: Record<ApiKeyResource, Record<(typeof METHODS)[number], ApiKeyScope>> = {
  subscriptions: { GET: r, POST: w, PATCH: w, DELETE: w, PUT: a },
  customers: { GET: r, POST: w, PATCH: w, DELETE: w, PUT: a },
  sales: { GET: r, POST: a, PATCH: a, DELETE: a, PUT: a },
  transactions: { GET: r, POST: w, PATCH: w, DELETE: w, PUT: a },
  products: { GET: r, POST: a, PATCH: a, DELETE: a, PUT: a },
  'checkout-links': { GET: r, POST: a, PATCH: a, DELETE: a, PUT: a },
  refunds: { GET: a, POST: w, PATCH: w, DELETE: w, PUT: a },
  'customer-portal-sessions': { GET: a, POST: w, PATCH: a, DELETE: a, PUT: a },
  events: { GET: a, POST: a, PATCH: a, DELETE: a, PUT: a },
  files: { GET: a, POST: a, PATCH: a, DELETE: a, PUT: a },
  // Not among the spec's read and write resources (decision 0076).
  reconciliations: { GET: a, POST: a, PATCH: a, DELETE: a, PUT: a },
  other: { GET: a, POST: a, PATCH: a, DELETE: a, PUT: a },
};

describe('requiredApiKeyScope', () => {
  const cases = RESOURCES.flatMap((res) => METHODS.map((m) => [m, res, TABLE[res][m]] as const));
  it.each(cases)('%s %s needs %s', (method, resource, expected) => {
    expect(requiredApiKeyScope(method, resource)).toBe(expected);
  });

  it('is case-insensitive on the method and treats HEAD as GET', () => {
    expect(requiredApiKeyScope('get', 'customers')).toBe('read');
    expect(requiredApiKeyScope('post', 'refunds')).toBe('write');
    expect(requiredApiKeyScope('HEAD', 'products')).toBe('read');
    expect(requiredApiKeyScope('HEAD', 'events')).toBe('admin');
  });

  it('unknown methods need admin', () => {
    expect(requiredApiKeyScope('OPTIONS', 'customers')).toBe('admin');
    expect(requiredApiKeyScope('TRACE', 'other')).toBe('admin');
  });
});

describe('apiKeyAllows', () => {
  const grid: [readonly ApiKeyScope[], ApiKeyScope, boolean][] = [
    [['read'], 'read', true],
    [['read'], 'write', false],
    [['read'], 'admin', false],
    [['write'], 'read', true],
    [['write'], 'write', true],
    [['write'], 'admin', false],
    [['admin'], 'read', true],
    [['admin'], 'write', true],
    [['admin'], 'admin', true],
    [['read', 'write'], 'write', true],
    [[], 'read', false],
  ];
  it.each(grid)('granted %p needed %s → %s', (granted, needed, expected) => {
    expect(apiKeyAllows(granted, needed)).toBe(expected);
  });

  it('ignores unknown granted strings', () => {
    expect(apiKeyAllows(['superuser' as ApiKeyScope], 'read')).toBe(false);
    expect(apiKeyAllows(['toString' as ApiKeyScope], 'read')).toBe(false);
  });

  it('property: a write key can do every request a read key can', () => {
    fc.assert(
      fc.property(fc.constantFrom(...METHODS, 'HEAD'), fc.constantFrom(...RESOURCES), (m, res) => {
        const needed = requiredApiKeyScope(m, res);
        return !apiKeyAllows(['read'], needed) || apiKeyAllows(['write'], needed);
      }),
    );
  });
});

describe('OAT scopes', () => {
  it('lists the known scopes without duplicates', () => {
    expect(OAT_SCOPES).toHaveLength(29);
    expect(new Set(OAT_SCOPES).size).toBe(OAT_SCOPES.length);
    expect(OAT_SCOPES).toEqual(expect.arrayContaining(['web:write', 'checkouts:write', 'customer_sessions:write']));
  });

  it('exact scope match', () => {
    expect(oatAllows(['checkouts:write'], ['checkouts:write'])).toBe(true);
    expect(oatAllows(['checkouts:write'], ['customers:write'])).toBe(false);
  });

  it('matches any of the alternatives', () => {
    expect(oatAllows(['customers:write'], ['web:write', 'customers:write'])).toBe(true);
    expect(oatAllows(['products:read'], ['web:write', 'customers:write'])).toBe(false);
  });

  it('X:write implies X:read but not the reverse, and not other resources', () => {
    expect(oatAllows(['checkout_links:write'], ['checkout_links:read'])).toBe(true);
    expect(oatAllows(['checkout_links:read'], ['checkout_links:write'])).toBe(false);
    expect(oatAllows(['checkouts:write'], ['checkout_links:read'])).toBe(false);
  });

  it('web:read implies every :read scope but no :write scope', () => {
    for (const s of OAT_SCOPES) expect(oatAllows(['web:read'], [s])).toBe(s.endsWith(':read'));
  });

  it('web:write implies every scope', () => {
    for (const s of OAT_SCOPES) expect(oatAllows(['web:write'], [s])).toBe(true);
  });

  it('empty grants or empty requirement deny', () => {
    expect(oatAllows([], ['products:read'])).toBe(false);
    expect(oatAllows(['web:write'], [])).toBe(false);
  });

  it('property: a non-web scope grants only itself and, for :write, its :read', () => {
    const nonWeb = OAT_SCOPES.filter((s) => !s.startsWith('web:'));
    fc.assert(
      fc.property(fc.constantFrom(...nonWeb), fc.constantFrom(...OAT_SCOPES), (g, needed) => {
        const expected = g === needed || (g.endsWith(':write') && needed === g.replace(/:write$/, ':read'));
        return oatAllows([g], [needed]) === expected;
      }),
    );
  });
});
