import type { EntityManager } from '@mikro-orm/postgresql';
import {
  DEFAULT_NOTIFICATION_SETTINGS,
  DEFAULT_SUBSCRIPTION_SETTINGS,
  type MemberRole,
} from '../domain/organizations.ts';
import { memberPage as membersOf, roleOf } from '../db/organization/members.ts';
import { lockOrganization, type OrganizationRow } from '../db/organization/organizations.ts';
import { parseSorting } from '../domain/pagination.ts';
import { isDunningSchedule } from '../domain/subscriptions.ts';
import { badRequest, forbidden, notFound, unprocessable } from '../use-cases/errors.ts';
import { iso, pageOffset } from '../use-cases/schemas/common.ts';
import type { OrganizationBody, UpdateOrganizationBody } from './schemas/organizations.ts';

/** Organizations and their members as the organizations routes read, check and write them. */

export type { OrganizationRow };
export { roleOf };

export function toOrganizationBody(org: OrganizationRow): OrganizationBody {
  return {
    id: org.id,
    parent_organization_id: org.parentOrganizationId ?? null,
    name: org.name,
    slug: org.slug,
    avatar_url: org.avatarUrl ?? null,
    bio: org.bio ?? null,
    company: org.company ?? null,
    blog: org.blog ?? null,
    location: org.location ?? null,
    email: org.email ?? null,
    website: org.website ?? null,
    social_username: org.socialUsername ?? null,
    status: org.status,
    next_review_threshold: org.nextReviewThreshold,
    customer_invoice_prefix: org.customerInvoicePrefix,
    customer_invoice_next_number: org.customerInvoiceNextNumber,
    profile_settings: org.profileSettings,
    feature_settings: org.featureSettings,
    subscription_settings: { ...DEFAULT_SUBSCRIPTION_SETTINGS, ...org.subscriptionSettings },
    notification_settings: { ...DEFAULT_NOTIFICATION_SETTINGS, ...org.notificationSettings },
    socials: org.socials,
    details: org.details,
    created_at: iso(org.createdAt)!,
    modified_at: iso(org.modifiedAt),
    onboarded_at: iso(org.onboardedAt),
  };
}

const MEMBER_SORTING = ['created_at', 'email'] as const;

/** One page of an organization's members with their roles, and how many there are (the caller is one of them). */
export async function memberPage(
  em: EntityManager,
  organizationId: string,
  { page, limit, sorting }: { page: number; limit: number; sorting?: string | undefined },
) {
  const sort = parseSorting(sorting, MEMBER_SORTING, 'created_at');
  if ('error' in sort) throw badRequest('Invalid sorting', sort.error);
  const { rows, total } = await membersOf(em, organizationId, {
    sortField: sort.field === 'email' ? 'email' : 'created_at',
    direction: sort.direction === 'desc' ? 'desc' : 'asc',
    limit,
    offset: pageOffset({ page, limit }),
  });
  return {
    rows: rows.map((r) => ({
      email: r.email,
      avatar_url: r.avatarUrl,
      created_at: r.createdAt.toISOString(),
      role: r.role,
    })),
    total,
  };
}

/**
 * A user may create a sub-organization under an organization they own or administer; sub-organizations
 * are one level deep. The parent row is share-locked so it cannot gain a parent meanwhile.
 */
export async function checkParent(tx: EntityManager, parentId: string, userId: string): Promise<void> {
  const parent = await lockOrganization(tx, parentId, 'read');
  const role = parent ? await roleOf(tx, parent.id, userId) : null;
  if (!parent || !role) throw notFound('Parent organization');
  if (role === 'member')
    throw forbidden('Only owners and admins of the parent organization may create sub-organizations');
  if (parent.parentOrganizationId) {
    throw unprocessable(
      'nested_sub_organization',
      'Sub-organizations are one level deep',
      'The parent organization is itself a sub-organization',
    );
  }
}

/**
 * Who may change a membership: owners may add or remove anyone; admins only plain members. A member
 * manages nobody.
 */
export function mayManage(actor: MemberRole, target: MemberRole): boolean {
  if (actor === 'owner') return true;
  return actor === 'admin' && target === 'member';
}

/** Settings rules JSON Schema cannot state: a 422 (docs/decisions/0007-400-or-422.md). */
export function checkSubscriptionSettings(settings: { dunning_retry_days?: number[] } | undefined): void {
  const days = settings?.dunning_retry_days;
  if (days && !isDunningSchedule(days)) {
    throw unprocessable(
      'invalid_dunning_schedule',
      'Invalid dunning schedule',
      'subscription_settings.dunning_retry_days must be increasing: days after the first refusal',
    );
  }
}

/** Fills in the fields the PATCH body carries; returns false when it carries none. */
export function applyUpdate(org: OrganizationRow, body: UpdateOrganizationBody): boolean {
  const scalar = {
    name: body.name,
    bio: body.bio,
    company: body.company,
    blog: body.blog,
    location: body.location,
    email: body.email,
    website: body.website,
    avatarUrl: body.avatar_url,
    socialUsername: body.social_username,
    profileSettings: body.profile_settings,
    featureSettings: body.feature_settings,
    socials: body.socials,
    details: body.details,
  } as const;
  const sent = Object.fromEntries(Object.entries(scalar).filter(([, value]) => value !== undefined));
  Object.assign(org, sent);
  let changed = Object.keys(sent).length > 0;
  // Settings are merged: keys not sent keep their current value.
  if (body.subscription_settings) {
    org.subscriptionSettings = {
      ...DEFAULT_SUBSCRIPTION_SETTINGS,
      ...org.subscriptionSettings,
      ...body.subscription_settings,
    };
    changed = true;
  }
  if (body.notification_settings) {
    org.notificationSettings = {
      ...DEFAULT_NOTIFICATION_SETTINGS,
      ...org.notificationSettings,
      ...body.notification_settings,
    };
    changed = true;
  }
  return changed;
}
