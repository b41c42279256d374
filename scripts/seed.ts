import { SignJWT } from 'jose';
import { uuidv7 } from 'uuidv7';
import { loadConfigOrExit } from '../config/env.ts';
import { openOrm, type Orm } from '../db/orm.ts';
import { hashSecret, maskSecret, newSecret, TOKEN_PREFIX } from '../api/auth/tokens.ts';
import { insertAccessToken, insertApiKey } from '../db/organization/credentials.ts';
import { insertMembership } from '../db/organization/members.ts';
import { insertOrganization, organizationIdBySlug } from '../db/organization/organizations.ts';
import { addAdminUser, upsertUser } from '../db/organization/users.ts';

export const DEMO_ADMIN_EMAIL = 'admin@demo.example';
export const DEMO_ORG_SLUG = 'demo';

/**
 * The demo organization of `npm start`: an admin user who owns it, and a fresh API key and access
 * token each run (secrets are only ever shown once, so old ones cannot be printed again).
 */
export async function seedDemo(orm: Orm, environment: 'live' | 'test') {
  const em = orm.em.fork();
  await addAdminUser(em, DEMO_ADMIN_EMAIL);
  const userId = await upsertUser(em, `user|${DEMO_ADMIN_EMAIL}`, DEMO_ADMIN_EMAIL);
  await insertOrganization(
    em,
    {
      id: uuidv7(),
      name: 'Demo Store',
      slug: DEMO_ORG_SLUG,
      subscriptionSettings: {
        allow_multiple_subscriptions: false,
        allow_customer_updates: true,
        proration_behavior: 'prorate',
      },
      notificationSettings: { new_sale: true, new_subscription: true },
    },
    { ifSlugFree: true },
  );
  const organizationId = (await organizationIdBySlug(em, DEMO_ORG_SLUG))!;
  await insertMembership(em, { organizationId, userId, role: 'owner' });
  const keyPrefix = environment === 'live' ? TOKEN_PREFIX.apiKeyLive : TOKEN_PREFIX.apiKeyTest;
  const apiKey = newSecret(keyPrefix);
  await insertApiKey(em, {
    organizationId,
    name: 'demo key (npm start)',
    environment,
    scopes: ['read', 'write'],
    maskedKey: maskSecret(apiKey, keyPrefix),
    secretHash: hashSecret(apiKey),
    createdByUserId: userId,
  });
  const oat = newSecret(TOKEN_PREFIX.oat);
  await insertAccessToken(em, {
    organizationId,
    comment: 'demo token (npm start)',
    scopes: ['web:write'],
    maskedToken: maskSecret(oat, TOKEN_PREFIX.oat),
    tokenHash: hashSecret(oat),
    createdByUserId: userId,
  });
  return { organizationId, adminEmail: DEMO_ADMIN_EMAIL, apiKey, oat };
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
