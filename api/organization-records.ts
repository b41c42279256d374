import { LockMode, type InferEntity } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { uuidv7 } from 'uuidv7';
import {
  DEFAULT_NOTIFICATION_SETTINGS,
  DEFAULT_SUBSCRIPTION_SETTINGS,
  Organization,
  OrganizationMember,
  type MemberRole,
} from '../db/entities/organization.ts';
import { sqlIn, type PlainSql } from '../db/plain-sql.ts';
import { parseSorting } from '../domain/pagination.ts';
import { isDunningSchedule } from '../domain/subscriptions.ts';
import { badRequest, forbidden, notFound, unprocessable } from '../use-cases/errors.ts';
import { iso, pageOffset } from '../use-cases/schemas/common.ts';
import type { OrganizationBody, UpdateOrganizationBody } from './schemas/organizations.ts';

/** Organizations and their members as the organizations routes read, check and write them. */

export type OrganizationRow = InferEntity<typeof Organization>;

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

export async function roleOf(em: EntityManager, organizationId: string, userId: string): Promise<MemberRole | null> {
  const member = await em.findOne(OrganizationMember, { organizationId, userId });
  return member?.role ?? null;
}

const MEMBER_SORTING = { created_at: 'm.created_at', email: 'lower(u.email)' };

/** One page of an organization's members with their roles, and how many there are (the caller is one of them). */
export async function memberPage(
  db: PlainSql,
  organizationId: string,
  { page, limit, sorting }: { page: number; limit: number; sorting?: string | undefined },
) {
  const sort = parseSorting(sorting, Object.keys(MEMBER_SORTING), 'created_at');
  if ('error' in sort) throw badRequest('Invalid sorting', sort.error);
  const column = MEMBER_SORTING[sort.field as keyof typeof MEMBER_SORTING];
  const direction = sort.direction === 'desc' ? 'desc' : 'asc';
  const rows = await db.query<{ email: string; avatar_url: string | null; created_at: string; role: MemberRole }>(
    `select u.email, u.avatar_url, m.created_at, m.role from organization_members m join users u on u.id = m.user_id
     where m.organization_id = ? order by ${column} ${direction}, m.user_id ${direction} limit ? offset ?`,
    [organizationId, limit, pageOffset({ page, limit })],
  );
  const [count] = await db.query<{ total: string }>(
    'select count(*) as total from organization_members where organization_id = ?',
    [organizationId],
  );
  return {
    rows: rows.map((r) => ({ ...r, created_at: new Date(r.created_at).toISOString() })),
    total: Number(count!.total),
  };
}

/**
 * A user may create a sub-organization under an organization they own or administer; sub-organizations
 * are one level deep. The parent row is share-locked so it cannot gain a parent meanwhile.
 */
export async function checkParent(tx: EntityManager, parentId: string, userId: string): Promise<void> {
  const parent = await tx.findOne(Organization, { id: parentId }, { lockMode: LockMode.PESSIMISTIC_READ });
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

/** A user is known by the subject of their JWT; someone added by email before signing in gets a placeholder. */
export async function findOrCreateUserByEmail(
  tx: EntityManager,
  email: string,
): Promise<{ id: string; avatar_url: string | null }> {
  const sql = sqlIn(tx);
  const [existing] = await sql<{ id: string; avatar_url: string | null }>(
    'select id, avatar_url from users where lower(email) = ? order by created_at, id limit 1',
    [email],
  );
  if (existing) return existing;
  const [created] = await sql<{ id: string; avatar_url: string | null }>(
    `insert into users (id, subject, email, created_at) values (?, ?, ?, now())
     on conflict (subject) do update set email = excluded.email returning id, avatar_url`,
    [uuidv7(), `invited|${email}`, email],
  );
  return created!;
}
