import { LockMode, type FilterQuery, type InferEntity, type RequiredEntityData } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Organization } from '../entities/organization.ts';
import { kyselyOf } from '../kysely.ts';

/** The organization object's `organizations` rows. */

export type OrganizationRow = InferEntity<typeof Organization>;

/** A new organization, flushed with the caller's transaction. */
export function createOrganization(tx: EntityManager, org: RequiredEntityData<OrganizationRow>): OrganizationRow {
  return tx.create(Organization, org);
}

export async function slugTaken(em: EntityManager, slug: string): Promise<boolean> {
  return (await em.count(Organization, { slug })) > 0;
}

export async function findOrganization(em: EntityManager, id: string): Promise<OrganizationRow | null> {
  return em.findOne(Organization, { id });
}

/** The organization, locked: `write` serializes its changes (and its memberships'), `read` keeps it as it is. */
export async function lockOrganization(
  tx: EntityManager,
  id: string,
  mode: 'read' | 'write' = 'write',
): Promise<OrganizationRow | null> {
  const lockMode = mode === 'write' ? LockMode.PESSIMISTIC_WRITE : LockMode.PESSIMISTIC_READ;
  return tx.findOne(Organization, { id }, { lockMode });
}

/** A page of a list: its order (entity property → direction), size and offset. */
export interface EntityPage {
  orderBy: Record<string, 'asc' | 'desc'>;
  limit: number;
  offset: number;
}

/** One page of the organizations `where` selects, and how many there are. */
export async function organizationPage(
  em: EntityManager,
  where: FilterQuery<OrganizationRow>,
  page: EntityPage,
): Promise<[OrganizationRow[], number]> {
  return em.findAndCount(Organization, where, { orderBy: page.orderBy, limit: page.limit, offset: page.offset });
}

/** Whether `id` is a direct sub-organization of `parentId`. */
export async function isChildOf(em: EntityManager, id: string, parentId: string): Promise<boolean> {
  const row = await kyselyOf(em)
    .selectFrom('organizations')
    .select('id')
    .where('id', '=', id)
    .where('parentOrganizationId', '=', parentId)
    .executeTakeFirst();
  return row !== undefined;
}

/** The ids of the organization's direct sub-organizations. */
export async function childOrganizationIds(em: EntityManager, parentId: string): Promise<string[]> {
  const rows = await kyselyOf(em)
    .selectFrom('organizations')
    .select('id')
    .where('parentOrganizationId', '=', parentId)
    .execute();
  return rows.map((row) => row.id);
}

/** A new organization's row as the seeds write it (the other columns take their initial values). */
export interface SeededOrganization {
  id: string;
  name: string;
  slug: string;
  subscriptionSettings: Record<string, unknown>;
  notificationSettings: Record<string, unknown>;
}

/**
 * Writes a new organization (the seeds of `npm start` and of the fuzz run); with `ifSlugFree`,
 * nothing when an organization already has the slug.
 */
export async function insertOrganization(
  em: EntityManager,
  org: SeededOrganization,
  options: { ifSlugFree?: boolean } = {},
): Promise<void> {
  const insert = kyselyOf(em)
    .insertInto('organizations')
    .values({
      ...org,
      status: 'created',
      nextReviewThreshold: 0,
      customerInvoicePrefix: org.slug.toUpperCase(),
      customerInvoiceNextNumber: 1,
      profileSettings: {},
      featureSettings: {},
      socials: [],
      details: {},
      createdAt: new Date(),
    });
  await (options.ifSlugFree ? insert.onConflict((oc) => oc.column('slug').doNothing()) : insert).execute();
}

export async function organizationIdBySlug(em: EntityManager, slug: string): Promise<string | undefined> {
  const row = await kyselyOf(em).selectFrom('organizations').select('id').where('slug', '=', slug).executeTakeFirst();
  return row?.id;
}
