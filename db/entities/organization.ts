import { DEFAULT_ALLOW_MULTIPLE_SUBSCRIPTIONS } from '../../domain/checkout.ts';
import { DEFAULT_DUNNING_RETRY_DAYS, type DunningExhaustedStatus } from '../../domain/subscriptions.ts';
import { DEFAULT_PRORATION_BEHAVIOR, type ProrationBehavior } from '../../domain/proration.ts';
import { defineEntity, p } from '@mikro-orm/core';

export const Organization = defineEntity({
  name: 'Organization',
  tableName: 'organizations',
  properties: {
    id: p.uuid().primary(),
    parentOrganizationId: p.uuid().nullable(),
    name: p.string(),
    slug: p.string().unique(),
    avatarUrl: p.string().nullable(),
    bio: p.text().nullable(),
    email: p.string().nullable(),
    website: p.string().nullable(),
    company: p.string().nullable(),
    blog: p.string().nullable(),
    location: p.string().nullable(),
    socialUsername: p.string().nullable(),
    status: p.string(),
    nextReviewThreshold: p.integer(),
    customerInvoicePrefix: p.string(),
    customerInvoiceNextNumber: p.integer(),
    profileSettings: p.json<Record<string, unknown>>(),
    featureSettings: p.json<Record<string, unknown>>(),
    subscriptionSettings: p.json<Record<string, unknown>>(),
    notificationSettings: p.json<Record<string, unknown>>(),
    socials: p.json<unknown[]>(),
    details: p.json<Record<string, unknown>>(),
    createdAt: p.datetime(),
    modifiedAt: p.datetime().nullable(),
    onboardedAt: p.datetime().nullable(),
  },
});

/** A person known by the subject of their identity-provider JWT. */
export const User = defineEntity({
  name: 'User',
  tableName: 'users',
  properties: {
    id: p.uuid().primary(),
    subject: p.string().unique(),
    email: p.string(),
    avatarUrl: p.string().nullable(),
    createdAt: p.datetime(),
  },
});

/** The registry of admin users: only they may create organizations and prices. */
export const AdminUser = defineEntity({
  name: 'AdminUser',
  tableName: 'admin_users',
  properties: {
    email: p.string().primary(),
    createdAt: p.datetime(),
  },
});

export const MEMBER_ROLES = ['owner', 'admin', 'member'] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

export const OrganizationMember = defineEntity({
  name: 'OrganizationMember',
  tableName: 'organization_members',
  properties: {
    organizationId: p.uuid().primary(),
    userId: p.uuid().primary(),
    role: p.enum(MEMBER_ROLES),
    createdAt: p.datetime(),
  },
});

export const PRORATION_BEHAVIORS = ['prorate', 'invoice', 'none'] as const satisfies readonly ProrationBehavior[];

/** What a new organization starts with; stored settings are merged over these when read. */
export const DEFAULT_SUBSCRIPTION_SETTINGS = {
  /** A customer may hold one live subscription at a time unless this is true (domain/checkout.ts). */
  allow_multiple_subscriptions: DEFAULT_ALLOW_MULTIPLE_SUBSCRIPTIONS,
  allow_customer_updates: true,
  proration_behavior: DEFAULT_PRORATION_BEHAVIOR,
  /** Days after a renewal's first refusal on which it is tried again (domain/subscriptions.ts). */
  dunning_retry_days: [...DEFAULT_DUNNING_RETRY_DAYS],
  /** Where a subscription ends up when every retry was refused. */
  dunning_exhausted_status: 'unpaid' as DunningExhaustedStatus,
};
export const DEFAULT_NOTIFICATION_SETTINGS = { new_sale: true, new_subscription: true };
