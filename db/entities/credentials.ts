import { defineEntity, p } from '@mikro-orm/core';
import type { ApiKeyScope } from '../../domain/api-key-scopes.ts';

/** Server-side integration keys (svc_live_/svc_test_). Only the hash of the secret is kept. */
export const ApiKey = defineEntity({
  name: 'ApiKey',
  tableName: 'api_keys',
  properties: {
    id: p.uuid().primary(),
    organizationId: p.uuid(),
    name: p.string(),
    environment: p.enum(['live', 'test'] as const),
    scopes: p.array<ApiKeyScope>(),
    maskedKey: p.string(),
    secretHash: p.string().unique(),
    createdByUserId: p.uuid().nullable(),
    createdAt: p.datetime(),
    lastUsedAt: p.datetime().nullable(),
    expiresAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
    deletedAt: p.datetime().nullable(),
  },
});

/** Organization Access Tokens (svc_oat_), used by the Core API. */
export const OrganizationAccessToken = defineEntity({
  name: 'OrganizationAccessToken',
  tableName: 'organization_access_tokens',
  properties: {
    id: p.uuid().primary(),
    organizationId: p.uuid(),
    comment: p.string(),
    scopes: p.array(),
    maskedToken: p.string(),
    tokenHash: p.string().unique(),
    createdByUserId: p.uuid().nullable(),
    createdAt: p.datetime(),
    lastUsedAt: p.datetime().nullable(),
    expiresAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
  },
});

/** Customer Session Tokens (svc_cst_), used by the Customer Portal API. */
export const CustomerSession = defineEntity({
  name: 'CustomerSession',
  tableName: 'customer_sessions',
  properties: {
    id: p.uuid().primary(),
    organizationId: p.uuid(),
    customerId: p.uuid(),
    tokenHash: p.string().unique(),
    createdAt: p.datetime(),
    expiresAt: p.datetime(),
  },
});
