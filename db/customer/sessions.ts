import type { InferEntity, RequiredEntityData } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { CustomerSession } from '../entities/credentials.ts';
import { firstRow, kyselyOf, prepared } from '../kysely.ts';

/** The customer object's portal sessions (`customer_sessions`), known by the hash of their token. */

export type CustomerSessionRow = InferEntity<typeof CustomerSession>;

/**
 * The session with this token hash, of a customer that is not deleted: the auth plugin's lookup of a
 * session not cached yet, so a prepared statement (db/kysely.ts `prepared`).
 */
export const customerSessionByHash = firstRow(
  prepared('customer_session_by_hash', CustomerSession, (db, tokenHash: string) =>
    db
      .selectFrom('customer_sessions as s')
      .innerJoin('customers as c', (join) => join.onRef('c.id', '=', 's.customerId').on('c.deletedAt', 'is', null))
      .select(['s.id', 's.organizationId', 's.customerId', 's.expiresAt'])
      .where('s.tokenHash', '=', tokenHash),
  ),
);

/** A new session, flushed with `em`. */
export function createCustomerSession(
  em: EntityManager,
  session: RequiredEntityData<CustomerSessionRow>,
): CustomerSessionRow {
  return em.create(CustomerSession, session);
}

/** Ends the customer's sessions; returns their token hashes (so every process can forget them). */
export async function endCustomerSessions(tx: EntityManager, customerId: string): Promise<string[]> {
  const rows = await kyselyOf(tx)
    .deleteFrom('customer_sessions')
    .where('customerId', '=', customerId)
    .returning('tokenHash')
    .execute();
  return rows.map((row) => row.tokenHash);
}

/** Writes a session at once, valid `ttlMs` from now (the fuzz run's seed). */
export async function insertCustomerSession(
  em: EntityManager,
  session: { id: string; organizationId: string; customerId: string; tokenHash: string },
  ttlMs: number,
): Promise<void> {
  const now = new Date();
  await kyselyOf(em)
    .insertInto('customer_sessions')
    .values({ ...session, createdAt: now, expiresAt: new Date(now.getTime() + ttlMs) })
    .execute();
}
