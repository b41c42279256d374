import type { EntityManager } from '@mikro-orm/postgresql';
import { kyselyOf } from '../kysely.ts';

/** The gateway's notifications already handled (the `gateway_callbacks` table), so a repeat is ignored. */

export async function callbackHandled(em: EntityManager, id: string): Promise<boolean> {
  const seen = await kyselyOf(em).selectFrom('gateway_callbacks').select('id').where('id', '=', id).executeTakeFirst();
  return seen !== undefined;
}

/** Recorded once handled, so a failed attempt is not mistaken for a handled one; a repeat changes nothing. */
export async function recordCallback(
  em: EntityManager,
  notice: { id: string; type: string } & Record<string, unknown>,
): Promise<void> {
  await kyselyOf(em)
    .insertInto('gateway_callbacks')
    .values({ id: notice.id, type: notice.type, payload: notice, receivedAt: new Date() })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
}
