import { SignJWT } from 'jose';
import { uuidv7 } from 'uuidv7';
import { loadConfigOrExit } from '../config/env.ts';
import { openOrm, type Orm } from '../db/orm.ts';
import { plainSql } from '../db/plain-sql.ts';
import { hashSecret, maskSecret, newSecret, TOKEN_PREFIX } from '../api/auth/tokens.ts';
import { pgArray } from '../db/sql.ts';

export const DEMO_ADMIN_EMAIL = 'admin@demo.example';
export const DEMO_ORG_SLUG = 'demo';

/**
 * The demo organization of `npm start`: an admin user who owns it, and a fresh API key and access
 * token each run (secrets are only ever shown once, so old ones cannot be printed again).
 */
export async function seedDemo(orm: Orm, environment: 'live' | 'test') {
  const db = plainSql(orm);
  await db.query('insert into admin_users (email, created_at) values (?, now()) on conflict do nothing', [
    DEMO_ADMIN_EMAIL,
  ]);
  const [user] = await db.query<{ id: string }>(
    `insert into users (id, subject, email, created_at) values (?, ?, ?, now())
     on conflict (subject) do update set email = excluded.email returning id`,
    [uuidv7(), `user|${DEMO_ADMIN_EMAIL}`, DEMO_ADMIN_EMAIL],
  );
  await db.query(
    `insert into organizations (id, name, slug, status, customer_invoice_prefix, created_at, subscription_settings, notification_settings)
     values (?, 'Demo Store', ?, 'created', ?, now(), ?, ?) on conflict (slug) do nothing`,
    [
      uuidv7(),
      DEMO_ORG_SLUG,
      DEMO_ORG_SLUG.toUpperCase(),
      JSON.stringify({
        allow_multiple_subscriptions: false,
        allow_customer_updates: true,
        proration_behavior: 'prorate',
      }),
      JSON.stringify({ new_sale: true, new_subscription: true }),
    ],
  );
  const [org] = await db.query<{ id: string }>('select id from organizations where slug = ?', [DEMO_ORG_SLUG]);
  await db.query(
    `insert into organization_members (organization_id, user_id, role, created_at) values (?, ?, 'owner', now())
     on conflict do nothing`,
    [org!.id, user!.id],
  );
  const keyPrefix = environment === 'live' ? TOKEN_PREFIX.apiKeyLive : TOKEN_PREFIX.apiKeyTest;
  const apiKey = newSecret(keyPrefix);
  await db.query(
    `insert into api_keys (id, organization_id, name, environment, scopes, masked_key, secret_hash, created_by_user_id, created_at)
     values (?, ?, 'demo key (npm start)', ?, ?::text[], ?, ?, ?, now())`,
    [
      uuidv7(),
      org!.id,
      environment,
      pgArray(['read', 'write']),
      maskSecret(apiKey, keyPrefix),
      hashSecret(apiKey),
      user!.id,
    ],
  );
  const oat = newSecret(TOKEN_PREFIX.oat);
  await db.query(
    `insert into organization_access_tokens (id, organization_id, comment, scopes, masked_token, token_hash, created_by_user_id, created_at)
     values (?, ?, 'demo token (npm start)', ?::text[], ?, ?, ?, now())`,
    [uuidv7(), org!.id, pgArray(['web:write']), maskSecret(oat, TOKEN_PREFIX.oat), hashSecret(oat), user!.id],
  );
  return { organizationId: org!.id, adminEmail: DEMO_ADMIN_EMAIL, apiKey, oat };
}

/** A user JWT as the API verifies it (HS256 with JWT_SECRET), for the seeded admin or `npm run dev:token`. */
export function mintUserJwt(email: string, secret: string, ttl = '12h'): Promise<string> {
  return new SignJWT({ email })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(`user|${email}`)
    .setIssuedAt()
    .setExpirationTime(ttl)
    .sign(new TextEncoder().encode(secret));
}

/**
 * `npm run seed` (and docker-compose.yml's `seed`): the demo organization and a first credential on a
 * migrated database, printed, since nobody can sign in to a new deployment otherwise. The JWT only when
 * this process has the API's JWT_SECRET (with JWT_JWKS_URL users come from the identity provider).
 */
if (import.meta.main) {
  const config = loadConfigOrExit('migrate');
  const orm = await openOrm(config.DATABASE_URL, 1);
  const demo = await seedDemo(orm, config.DEPLOYMENT_ENV).finally(() => orm.close());
  console.log(`demo organization ${demo.organizationId}
  API key       ${demo.apiKey}
  access token  ${demo.oat}`);
  if (config.JWT_SECRET) {
    console.log(`  admin JWT     ${await mintUserJwt(demo.adminEmail, config.JWT_SECRET)} (${demo.adminEmail}, 12 h)`);
  }
}
