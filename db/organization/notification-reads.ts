import type { EntityManager } from '@mikro-orm/postgresql';
import { kyselyOf } from '../kysely.ts';

/** What the event object's notifications read of organizations and their members (activities/notifications.ts). */

export interface NotifiedOrganization {
  name: string;
  notificationSettings: Record<string, unknown>;
  /** Where its brand is (domain/branding.ts), for the buyers' mails. */
  profileSettings: Record<string, unknown> | null;
  /** The members' addresses now, in the order they joined. */
  recipients: string[];
}

export async function notifiedOrganizations(
  em: EntityManager,
  organizationIds: readonly string[],
): Promise<Map<string, NotifiedOrganization>> {
  const ids = [...new Set(organizationIds)];
  if (ids.length === 0) return new Map();
  const db = kyselyOf(em);
  const [organizations, members] = await Promise.all([
    db
      .selectFrom('organizations')
      .select(['id', 'name', 'notificationSettings', 'profileSettings'])
      .where('id', 'in', ids)
      .execute(),
    db
      .selectFrom('organization_members as m')
      .innerJoin('users as u', 'u.id', 'm.userId')
      .select(['m.organizationId', 'u.email'])
      .where('m.organizationId', 'in', ids)
      .orderBy('m.createdAt')
      .orderBy('u.email')
      .execute(),
  ]);
  return new Map(
    organizations.map((o) => [
      o.id,
      {
        name: o.name,
        notificationSettings: o.notificationSettings,
        profileSettings: o.profileSettings ?? null,
        recipients: members.filter((m) => m.organizationId === o.id).map((m) => m.email),
      },
    ]),
  );
}
