import type { EntityManager } from '@mikro-orm/postgresql';
import { Organization, OrganizationMember } from '../db/entities/index.ts';

/**
 * The dashboard's question before any page of an organization (pages/dashboard/routes/visit.ts): is
 * the signed-in user one of its members, with which role. Null for an organization that is not theirs.
 */
export async function dashboardMembership(em: EntityManager, userId: string, organizationId: string) {
  const [membership, organization] = await Promise.all([
    em.findOne(OrganizationMember, { organizationId, userId }),
    em.findOne(Organization, { id: organizationId }),
  ]);
  if (!membership || !organization) return null;
  return {
    role: membership.role,
    organization: { id: organization.id, name: organization.name, slug: organization.slug },
  };
}
