import type { EntityManager } from '@mikro-orm/postgresql';
import { IdempotencyKey } from '../entities/idempotency.ts';
import { firstRow, kyselyOf, nowPlusMs, prepared } from '../kysely.ts';

/**
 * The idempotency object's repository (`idempotency_keys`): one record per (scope, key), claimed by a
 * request as a lease, then holding its response. Every POST with a key runs these, so the claim, the
 * read and the completion are prepared statements (db/kysely.ts `prepared`).
 */

/** How long a record answers replays. */
const KEEP_FOR_MS = 24 * 60 * 60 * 1000;

/**
 * Takes the key for `claimId`: a new key, one whose record expired, or one whose claim's lease ran
 * out with no response stored. Undefined when the key is held (a running claim or a stored response).
 */
export const claimKey = firstRow(
  prepared(
    'idempotency_claim',
    IdempotencyKey,
    (db, scope: string, key: string, requestHash: string, leaseMs: number, claimId: string) =>
      db
        .insertInto('idempotency_keys')
        .values((eb) => ({
          scope,
          key,
          requestHash,
          state: 'running',
          createdAt: eb.fn<Date>('now'),
          expiresAt: nowPlusMs(KEEP_FOR_MS),
          lockedUntil: nowPlusMs(leaseMs),
          claimId,
        }))
        .onConflict((oc) =>
          oc
            .columns(['scope', 'key'])
            .doUpdateSet((eb) => ({
              requestHash: eb.ref('excluded.requestHash'),
              state: 'running',
              responseStatus: null,
              responseBody: null,
              createdAt: eb.ref('excluded.createdAt'),
              expiresAt: eb.ref('excluded.expiresAt'),
              lockedUntil: eb.ref('excluded.lockedUntil'),
              claimId: eb.ref('excluded.claimId'),
            }))
            .where((eb) =>
              eb.or([
                eb('idempotency_keys.expiresAt', '<=', eb.fn<Date>('now')),
                eb.and([
                  eb('idempotency_keys.state', '=', 'running'),
                  eb('idempotency_keys.lockedUntil', '<=', eb.fn<Date>('now')),
                ]),
              ]),
            ),
        )
        .returning('claimId'),
  ),
);

/** The key's record while it lasts, and whether its running claim's lease ran out. */
export const keyRecord = firstRow(
  prepared('idempotency_record', IdempotencyKey, (db, scope: string, key: string) =>
    db
      .selectFrom('idempotency_keys')
      .select((eb) => [
        'requestHash',
        'state',
        'responseStatus',
        'responseBody',
        eb.and([eb('state', '=', 'running'), eb('lockedUntil', '<=', eb.fn<Date>('now'))]).as('lapsed'),
      ])
      .where('scope', '=', scope)
      .where('key', '=', key)
      .where('expiresAt', '>', (eb) => eb.fn<Date>('now')),
  ),
);

/** Stores the response, unless the claim was lost (its lease ran out and another request took the key). */
export const completeClaim = prepared(
  'idempotency_complete',
  IdempotencyKey,
  (db, scope: string, key: string, claimId: string, status: number, body: string | null) =>
    db
      .updateTable('idempotency_keys')
      .set({ state: 'done', responseStatus: status, responseBody: body })
      .where('scope', '=', scope)
      .where('key', '=', key)
      .where('state', '=', 'running')
      .where('claimId', '=', claimId),
);

/** Frees the key of a claim that stored no response. */
export const releaseClaim = prepared(
  'idempotency_release',
  IdempotencyKey,
  (db, scope: string, key: string, claimId: string) =>
    db
      .deleteFrom('idempotency_keys')
      .where('scope', '=', scope)
      .where('key', '=', key)
      .where('state', '=', 'running')
      .where('claimId', '=', claimId),
);

/** Deletes up to 1000 expired records (they are ignored anyway; this keeps the table small). */
export async function sweepExpiredKeys(em: EntityManager): Promise<void> {
  const db = kyselyOf(em);
  await db
    .deleteFrom('idempotency_keys')
    .where(({ eb, refTuple, selectFrom }) =>
      eb(
        refTuple('scope', 'key'),
        'in',
        selectFrom('idempotency_keys')
          .select(['scope', 'key'])
          .where('expiresAt', '<=', eb.fn<Date>('now'))
          .limit(1000)
          .$asTuple('scope', 'key'),
      ),
    )
    .execute();
}
