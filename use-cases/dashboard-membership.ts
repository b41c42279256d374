import type { EntityManager } from '@mikro-orm/postgresql';
import { roleOf } from '../db/organization/members.ts';
import { findOrganization } from '../db/organization/organizations.ts';

/**
 * The dashboard's question before any page of an organization (pages/dashboard/routes/visit.ts): is
 * the signed-in user one of its members, with which role. Null for an organization that is not theirs.
 */
export async function dashboardMembership(em: EntityManager, userId: string, organizationId: string) {
  const [role, organization] = await Promise.all([
    roleOf(em, organizationId, userId),
    findOrganization(em, organizationId),
  ]);
  if (!role || !organization) return null;
  return {
    role,
    organization: { id: organization.id, name: organization.name, slug: organization.slug },
  };
}
