import type { EntityManager } from '@mikro-orm/postgresql';
import type { MemberRole } from '../../domain/organizations.ts';
import { OrganizationMember } from '../entities/organization.ts';
import { kyselyOf } from '../kysely.ts';

/** The organization object's memberships (`organization_members`, read with their `users`). */

export async function roleOf(em: EntityManager, organizationId: string, userId: string): Promise<MemberRole | null> {
  const member = await kyselyOf(em)
    .selectFrom('organization_members')
    .select('role')
    .where('organizationId', '=', organizationId)
    .where('userId', '=', userId)
    .executeTakeFirst();
  return member?.role ?? null;
}

/** The ids of the organizations the user belongs to. */
export async function organizationIdsOf(em: EntityManager, userId: string): Promise<string[]> {
  const rows = await kyselyOf(em)
    .selectFrom('organization_members')
    .select('organizationId')
    .where('userId', '=', userId)
    .execute();
  return rows.map((row) => row.organizationId);
}

export interface MemberRow {
  email: string;
  avatarUrl: string | null;
  createdAt: Date;
  role: MemberRole;
}

/** Sortable columns of the member list, by their wire names. */
export const MEMBER_SORT_FIELDS = ['created_at', 'email'] as const;

/** One page of an organization's members with their roles, and how many there are. */
export async function memberPage(
  em: EntityManager,
  organizationId: string,
  page: { sortField: (typeof MEMBER_SORT_FIELDS)[number]; direction: 'asc' | 'desc'; limit: number; offset: number },
): Promise<{ rows: MemberRow[]; total: number }> {
  const db = kyselyOf(em);
  const members = db
    .selectFrom('organization_members as m')
    .innerJoin('users as u', 'u.id', 'm.userId')
    .select(['u.email', 'u.avatarUrl', 'm.createdAt', 'm.role'])
    .where('m.organizationId', '=', organizationId);
  const sorted =
    page.sortField === 'email'
      ? members.orderBy((eb) => eb.fn('lower', ['u.email']), page.direction)
      : members.orderBy('m.createdAt', page.direction);
  const [rows, count] = await Promise.all([
    sorted.orderBy('m.userId', page.direction).limit(page.limit).offset(page.offset).execute(),
    db
      .selectFrom('organization_members')
      .select((eb) => eb.fn.countAll<string>().as('total'))
      .where('organizationId', '=', organizationId)
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.total) };
}

/** The organization's member with this email (lower case), the earliest if several users share it. */
export async function memberByEmail(tx: EntityManager, organizationId: string, email: string) {
  return kyselyOf(tx)
    .selectFrom('organization_members as m')
    .innerJoin('users as u', 'u.id', 'm.userId')
    .select(['m.userId', 'm.role', 'u.avatarUrl', 'm.createdAt'])
    .where('m.organizationId', '=', organizationId)
    .where((eb) => eb(eb.fn('lower', ['u.email']), '=', email))
    .orderBy('m.createdAt')
    .limit(1)
    .executeTakeFirst();
}

export async function ownerCount(tx: EntityManager, organizationId: string): Promise<number> {
  return tx.count(OrganizationMember, { organizationId, role: 'owner' });
}

/** A new membership, flushed with the caller's transaction. */
export function addMember(
  tx: EntityManager,
  member: { organizationId: string; userId: string; role: MemberRole; createdAt: Date },
): void {
  tx.create(OrganizationMember, member);
}

export async function removeMember(tx: EntityManager, organizationId: string, userId: string): Promise<void> {
  await tx.nativeDelete(OrganizationMember, { organizationId, userId });
}

/** A membership written at once (the seeds); nothing when the user is already a member. */
export async function insertMembership(
  em: EntityManager,
  member: { organizationId: string; userId: string; role: MemberRole },
): Promise<void> {
  await kyselyOf(em)
    .insertInto('organization_members')
    .values({ ...member, createdAt: new Date() })
    .onConflict((oc) => oc.doNothing())
    .execute();
}
