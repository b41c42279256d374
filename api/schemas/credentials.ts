import { z } from 'zod';
import { OAT_SCOPES } from '../../domain/api-key-scopes.ts';
import { listQuery, nonBlank } from '../../use-cases/schemas/common.ts';

const timestamp = z.string();
/** Must lie in the future: a rule of the clock, so a past instant is a 422 `invalid_expires_at`, not a 400. */
const futureInstant = z.iso
  .datetime({ offset: true })
  .describe('in the future (422 `invalid_expires_at` otherwise); absent: never expires');

// Ids are not validated as UUIDs here: a malformed id names no record, so the route answers 404 like for any unknown id.
const id = z.string().min(1).max(64);
export const organizationParams = z.object({ organization_id: id });
export const organizationCredentialParams = z.object({ organization_id: id, id });

// API keys ---------------------------------------------------------------------------------------

/** What the dashboard offers: read and/or write. admin is reserved and never offered (spec). */
export const DASHBOARD_API_KEY_SCOPES = ['read', 'write'] as const;

export const createApiKeyBody = z.strictObject({
  name: nonBlank(100),
  environment: z.enum(['live', 'test']),
  scopes: z.array(z.enum(DASHBOARD_API_KEY_SCOPES)).min(1),
  expires_at: futureInstant.optional(),
});
export type CreateApiKeyBody = z.infer<typeof createApiKeyBody>;

export const API_KEY_STATUSES = ['active', 'expired', 'revoked'] as const;
export type ApiKeyStatus = (typeof API_KEY_STATUSES)[number];

/** An API key as the dashboard shows it: never the secret, only its masked form. */
export const apiKeySchema = z.object({
  id: z.string(),
  name: z.string(),
  environment: z.enum(['live', 'test']),
  scopes: z.array(z.string()),
  masked_key: z.string(),
  created_at: timestamp,
  last_used_at: timestamp.nullable(),
  expires_at: timestamp.nullable(),
  revoked: z.boolean(),
  revoked_at: timestamp.nullable(),
  status: z.enum(API_KEY_STATUSES),
});
export type ApiKeyRecord = z.infer<typeof apiKeySchema>;

/** The creation response: the only time the secret is returned. */
export const createdApiKeySchema = apiKeySchema.extend({ key: z.string() });

/** Revoked keys sit in their own section (spec, API keys point 6); expired keys stay in `active` with their status. */
export const apiKeyListSchema = z.object({ active: z.array(apiKeySchema), revoked: z.array(apiKeySchema) });

// Organization Access Tokens ---------------------------------------------------------------------

export const createAccessTokenBody = z
  .strictObject({
    comment: nonBlank(200),
    scopes: z.array(z.enum(OAT_SCOPES)).min(1),
    expires_in_days: z.int().min(1).max(3650).optional(),
    expires_at: futureInstant.optional(),
  })
  .meta({ not: { required: ['expires_in_days', 'expires_at'] } })
  .refine((b) => b.expires_in_days === undefined || b.expires_at === undefined, {
    message: 'send expires_in_days or expires_at, not both',
    path: ['expires_at'],
  });
export type CreateAccessTokenBody = z.infer<typeof createAccessTokenBody>;

export const accessTokenSchema = z.object({
  id: z.string(),
  comment: z.string(),
  scopes: z.array(z.string()),
  masked_token: z.string(),
  created_at: timestamp,
  expires_at: timestamp.nullable(),
  last_used_at: timestamp.nullable(),
});
export type AccessTokenRecord = z.infer<typeof accessTokenSchema>;

export const createdAccessTokenSchema = accessTokenSchema.extend({ token: z.string() });

export const listAccessTokensQuery = listQuery(['created_at', 'expires_at', 'last_used_at']);
