import type { EntityManager } from '@mikro-orm/postgresql';
import { kyselyOf } from '../kysely.ts';

/** What the event object's notifications read of customers (activities/notifications.ts). */
export async function customerContacts(
  em: EntityManager,
  ids: readonly string[],
): Promise<Map<string, { name: string | null; email: string | null }>> {
  if (ids.length === 0) return new Map();
  const rows = await kyselyOf(em)
    .selectFrom('customers')
    .select(['id', 'name', 'email'])
    .where('id', 'in', [...new Set(ids)])
    .execute();
  return new Map(rows.map((c) => [c.id, { name: c.name ?? null, email: c.email ?? null }]));
}
