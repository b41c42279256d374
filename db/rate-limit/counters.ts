import type { EntityManager } from '@mikro-orm/postgresql';
import { RateLimitCounter } from '../entities/rate-limit.ts';
import { firstRow, kyselyOf, msUntil, nowPlusMs, prepared } from '../kysely.ts';

/**
 * The API's rate-limit counters (`rate_limit_counters`, api/plugins/rate-limit.ts): one fixed window
 * per credential or address. Every request is counted, so the count is a prepared statement.
 */

/**
 * Counts n requests at once (the inserted count, `excluded.count` on conflict): starts a window or
 * counts into the current one, and says how much of it is left. The row lock serializes concurrent
 * statements of one key, so no count is lost.
 */
export const countRequests = firstRow(
  prepared('rate_limit_count', RateLimitCounter, (db, key: string, n: number, windowMs: number) =>
    db
      .insertInto('rate_limit_counters')
      .values({ key, count: n, windowEndsAt: nowPlusMs(windowMs) })
      .onConflict((oc) =>
        oc.column('key').doUpdateSet((eb) => {
          const ended = eb('rate_limit_counters.windowEndsAt', '<=', eb.fn<Date>('now'));
          return {
            count: eb
              .case()
              .when(ended)
              .then(eb.ref('excluded.count'))
              .else(eb('rate_limit_counters.count', '+', eb.ref('excluded.count')))
              .end(),
            windowEndsAt: eb
              .case()
              .when(ended)
              .then(eb.ref('excluded.windowEndsAt'))
              .else(eb.ref('rate_limit_counters.windowEndsAt'))
              .end(),
          };
        }),
      )
      .returning((eb) => ['count', msUntil(eb.ref('windowEndsAt')).as('ttl')]),
  ),
);

/** Windows that ended over a minute ago are dead weight (one row per credential or address ever seen). */
export async function sweepEndedWindows(em: EntityManager): Promise<void> {
  await kyselyOf(em).deleteFrom('rate_limit_counters').where('windowEndsAt', '<', nowPlusMs(-60_000)).execute();
}
