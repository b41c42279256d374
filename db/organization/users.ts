import type { EntityManager } from '@mikro-orm/postgresql';
import { uuidv7 } from 'uuidv7';
import { kyselyOf } from '../kysely.ts';

/**
 * The organization object's people (`users`, known by the subject of their identity-provider JWT)
 * and the registry of admin users (`admin_users`).
 */

/** The placeholder subject of someone added by email before they first signed in. */
const invitedSubject = (email: string) => `invited|${email}`;

/**
 * The user of a verified JWT: a person added to an organization by email before first signing in was
 * given a placeholder row, which their first JWT claims (so they keep those memberships); otherwise
 * the row is made, or its email brought up to date.
 */
export async function signedInUserId(em: EntityManager, subject: string, email: string): Promise<string> {
  const db = kyselyOf(em);
  const claimed = await db
    .updateTable('users')
    .set({ subject })
    .where('subject', '=', invitedSubject(email))
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('users').select('id').where('subject', '=', subject))),
    )
    .returning('id')
    .executeTakeFirst();
  if (claimed) return claimed.id;
  const user = await db
    .insertInto('users')
    .values((eb) => ({ id: uuidv7(), subject, email, createdAt: eb.fn<Date>('now') }))
    .onConflict((oc) => oc.column('subject').doUpdateSet((eb) => ({ email: eb.ref('excluded.email') })))
    .returning('id')
    .executeTakeFirstOrThrow();
  return user.id;
}

/** A user by email (lower case), or a placeholder row for someone who has not signed in yet. */
export async function findOrCreateUserByEmail(
  tx: EntityManager,
  email: string,
): Promise<{ id: string; avatarUrl: string | null }> {
  const db = kyselyOf(tx);
  const existing = await db
    .selectFrom('users')
    .select(['id', 'avatarUrl'])
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email))
    .orderBy('createdAt')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  if (existing) return existing;
  return db
    .insertInto('users')
    .values((eb) => ({ id: uuidv7(), subject: invitedSubject(email), email, createdAt: eb.fn<Date>('now') }))
    .onConflict((oc) => oc.column('subject').doUpdateSet((eb) => ({ email: eb.ref('excluded.email') })))
    .returning(['id', 'avatarUrl'])
    .executeTakeFirstOrThrow();
}

/** Whether the email is a registered admin user's (compared case-insensitively). */
export async function isAdminUser(em: EntityManager, email: string): Promise<boolean> {
  const row = await kyselyOf(em)
    .selectFrom('admin_users')
    .select('email')
    .where((eb) => eb(eb.fn('lower', ['email']), '=', eb.fn('lower', [eb.val(email)])))
    .executeTakeFirst();
  return row !== undefined;
}

/** Registers an admin user (nothing when already registered). */
export async function addAdminUser(em: EntityManager, email: string): Promise<void> {
  await kyselyOf(em)
    .insertInto('admin_users')
    .values((eb) => ({ email, createdAt: eb.fn<Date>('now') }))
    .onConflict((oc) => oc.doNothing())
    .execute();
}

/** The user with this subject, made or its email brought up to date (the seeds' signed-up users). */
export async function upsertUser(em: EntityManager, subject: string, email: string): Promise<string> {
  const user = await kyselyOf(em)
    .insertInto('users')
    .values({ id: uuidv7(), subject, email, createdAt: new Date() })
    .onConflict((oc) => oc.column('subject').doUpdateSet((eb) => ({ email: eb.ref('excluded.email') })))
    .returning('id')
    .executeTakeFirstOrThrow();
  return user.id;
}
