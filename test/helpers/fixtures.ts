import { SignJWT } from 'jose';
import { uuidv7 } from 'uuidv7';
import type { Orm } from '../../db/orm.ts';
import { hashSecret, maskSecret, newSecret, TOKEN_PREFIX } from '../../api/auth/tokens.ts';
import { pgArray } from '../../db/sql.ts';
import { TEST_JWT_SECRET } from './env.ts';

/**
 * Test set-up that writes straight to the database (the endpoints that create these things have
 * their own tests). Every fixture gets unique names, so test files never collide.
 */
export const unique = (label: string) => `${label}-${uuidv7().slice(-12)}`;

export async function userJwt(email: string, subject = `user|${email}`): Promise<string> {
  return new SignJWT({ email })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(subject)
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(TEST_JWT_SECRET));
}

export async function makeAdminUser(orm: Orm, email: string): Promise<void> {
  await orm.em
    .getConnection()
    .execute('insert into admin_users (email, created_at) values (?, now()) on conflict do nothing', [email]);
}

export interface OrgFixture {
  id: string;
  slug: string;
}

export async function makeOrganization(
  orm: Orm,
  options: { parentId?: string; name?: string } = {},
): Promise<OrgFixture> {
  const id = uuidv7();
  const slug = unique('org');
  await orm.em.getConnection().execute(
    `insert into organizations (id, parent_organization_id, name, slug, status, customer_invoice_prefix, created_at,
       subscription_settings, notification_settings)
     values (?, ?, ?, ?, 'created', ?, now(), ?, ?)`,
    [
      id,
      options.parentId ?? null,
      options.name ?? slug,
      slug,
      slug.toUpperCase(),
      JSON.stringify({
        allow_multiple_subscriptions: false,
        allow_customer_updates: true,
        proration_behavior: 'prorate',
      }),
      JSON.stringify({ new_sale: true, new_subscription: true }),
    ],
  );
  return { id, slug };
}

/**
 * Makes the JWT's user a member of the organization with the role; returns the user's id. `invited`:
 * someone added by email who has not signed in yet (the `invited|<email>` row their first JWT claims,
 * whatever its subject), as the API's POST /organizations/:id/members makes them.
 */
export async function makeMember(
  orm: Orm,
  organizationId: string,
  email: string,
  role: 'owner' | 'admin' | 'member',
  options: { invited?: boolean } = {},
): Promise<string> {
  const [user] = await orm.em.getConnection().execute<{ id: string }[]>(
    `insert into users (id, subject, email, created_at) values (?, ?, ?, now())
     on conflict (subject) do update set email = excluded.email returning id`,
    [uuidv7(), options.invited ? `invited|${email}` : `user|${email}`, email],
  );
  await orm.em.getConnection().execute(
    `insert into organization_members (organization_id, user_id, role, created_at) values (?, ?, ?, now())
     on conflict (organization_id, user_id) do update set role = excluded.role`,
    [organizationId, user!.id, role],
  );
  return user!.id;
}

export async function makeOat(
  orm: Orm,
  organizationId: string,
  scopes: string[] = ['web:write'],
  expiresAt: Date | null = null,
): Promise<string> {
  const token = newSecret(TOKEN_PREFIX.oat);
  await orm.em.getConnection().execute(
    `insert into organization_access_tokens (id, organization_id, comment, scopes, masked_token, token_hash, created_at, expires_at)
     values (?, ?, 'test', ?::text[], ?, ?, now(), ?)`,
    [uuidv7(), organizationId, pgArray(scopes), maskSecret(token, TOKEN_PREFIX.oat), hashSecret(token), expiresAt],
  );
  return token;
}

export async function makeApiKey(
  orm: Orm,
  organizationId: string,
  options: { scopes?: string[]; environment?: 'live' | 'test'; expiresAt?: Date | null } = {},
): Promise<{ id: string; key: string }> {
  const environment = options.environment ?? 'test';
  const prefix = environment === 'live' ? TOKEN_PREFIX.apiKeyLive : TOKEN_PREFIX.apiKeyTest;
  const key = newSecret(prefix);
  const id = uuidv7();
  await orm.em.getConnection().execute(
    `insert into api_keys (id, organization_id, name, environment, scopes, masked_key, secret_hash, created_at, expires_at)
     values (?, ?, 'test key', ?, ?::text[], ?, ?, now(), ?)`,
    [
      id,
      organizationId,
      environment,
      pgArray(options.scopes ?? ['read', 'write']),
      maskSecret(key, prefix),
      hashSecret(key),
      options.expiresAt ?? null,
    ],
  );
  return { id, key };
}

/** An organization with an owner JWT, a full-scope OAT and a read+write API key. */
export async function makeTenant(orm: Orm) {
  const org = await makeOrganization(orm);
  const ownerEmail = `${unique('owner')}@example.com`;
  const ownerId = await makeMember(orm, org.id, ownerEmail, 'owner');
  return {
    org,
    ownerEmail,
    ownerId,
    ownerJwt: await userJwt(ownerEmail),
    oat: await makeOat(orm, org.id),
    apiKey: (await makeApiKey(orm, org.id)).key,
  };
}
