import type { EntityManager } from '@mikro-orm/postgresql';
import { Organization } from '../entities/organization.ts';

/** What the hosted checkout's link page reads of the organization: the seller it names. */

/** The seller's name, slug and avatar; an organization that does not exist is MikroORM's NotFoundError. */
export async function sellerOf(em: EntityManager, id: string) {
  return em.findOneOrFail(Organization, { id }, { fields: ['name', 'slug', 'avatarUrl'] });
}
