import { MEMBER_ROLES } from '../../domain/organizations.ts';
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
