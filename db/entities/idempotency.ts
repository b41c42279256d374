import { defineEntity, p } from '@mikro-orm/core';

export const IDEMPOTENCY_STATES = ['running', 'done'] as const;

/**
 * The record of an Idempotency-Key (api/plugins/idempotency.ts): the request's fingerprint, then its
 * response. A claim is a lease (`lockedUntil`), named by `claimId`.
 */
export const IdempotencyKey = defineEntity({
  name: 'IdempotencyKey',
  tableName: 'idempotency_keys',
  properties: {
    scope: p.text().primary(),
    key: p.text().primary(),
    requestHash: p.text(),
    state: p.enum(IDEMPOTENCY_STATES),
    responseStatus: p.integer().nullable(),
    responseBody: p.text().nullable(),
    createdAt: p.datetime(),
    expiresAt: p.datetime(),
    lockedUntil: p.datetime().nullable(),
    claimId: p.uuid().nullable(),
  },
});
