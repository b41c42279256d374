import { z } from 'zod';
import { emailAddress, freeValue, objectKey } from '../../use-cases/schemas/common.ts';
import { BRAND_COLOR_PATTERN } from '../../domain/branding.ts';
import { MEMBER_ROLES } from '../../domain/organizations.ts';
import { PRORATION_BEHAVIORS } from '../../domain/proration.ts';
import { CHARGEBACK_SUBSCRIPTION_ACTIONS } from '../../domain/disputes.ts';
import { DUNNING_EXHAUSTED_STATUSES, MAX_DUNNING_DAY, MAX_DUNNING_RETRIES } from '../../domain/subscriptions.ts';

/** Lower-case letters, digits and inner hyphens, 3 to 64 characters: it becomes the invoice prefix. */
export const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]{1,62})[a-z0-9]$/;

const text = (max: number) => z.string().trim().max(max);
const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2048);

/** The keys the spec names; stored as sent, merged over the current settings. */
export const subscriptionSettingsInput = z.strictObject({
  allow_multiple_subscriptions: z
    .boolean()
    .describe(
      'Default false: a customer with a live subscription cannot buy another recurring price ' +
        '(422 subscription_exists at checkout creation or confirmation); renewals are always sold',
    )
    .optional(),
  allow_customer_updates: z.boolean().optional(),
  proration_behavior: z.enum(PRORATION_BEHAVIORS).optional(),
  dunning_retry_days: z
    .array(z.number().int().min(1).max(MAX_DUNNING_DAY))
    .max(MAX_DUNNING_RETRIES)
    .describe(
      'Days after a renewal is first refused on which it is tried again, increasing (422 otherwise); [] for no retry',
    )
    .optional(),
  dunning_exhausted_status: z
    .enum(DUNNING_EXHAUSTED_STATUSES)
    .describe('Where a subscription ends up when every retry was refused')
    .optional(),
  chargeback_subscription_action: z
    .enum(CHARGEBACK_SUBSCRIPTION_ACTIONS)
    .describe(
      'What a lost chargeback (dispute) of one of its payments does to a subscription: past_due (the default) ' +
        'until a later charge pays, cancel (ended at once, subscription.revoked), or none',
    )
    .optional(),
});

export const notificationSettingsInput = z.strictObject({
  new_sale: z.boolean().optional(),
  new_subscription: z.boolean().optional(),
});

/** Inner fields are "not shown" in the spec: free-form objects. */
const settingsObject = z.record(objectKey, freeValue);
const socials = z.array(z.record(objectKey, freeValue)).max(50);

/**
 * The profile's settings: free-form, except the brand the pages show (domain/branding.ts): its colour
 * and the image file of the organization shown as its logo.
 */
const profileSettings = z
  .object({
    brand_color: z.string().regex(BRAND_COLOR_PATTERN, { error: 'must be a colour as #rrggbb' }).optional().meta({
      description: 'The colour of the checkout’s, the portal’s and the e-mails’ buttons and header, as #rrggbb',
    }),
    logo_file_id: z.uuid().optional().meta({
      description: 'An image file of the organization (purpose product_media) shown as its logo',
    }),
  })
  .catchall(freeValue);

/** Profile fields a merchant may set at creation and change later; null clears them. */
const profileFields = {
  bio: text(2000).nullish(),
  company: text(256).nullish(),
  blog: text(2048).nullish(),
  location: text(256).nullish(),
  email: emailAddress().nullish(),
  website: httpUrl.nullish(),
  avatar_url: httpUrl.nullish(),
  social_username: text(256).nullish(),
  profile_settings: profileSettings.optional(),
  feature_settings: settingsObject.optional(),
  subscription_settings: subscriptionSettingsInput.optional(),
  notification_settings: notificationSettingsInput.optional(),
  socials: socials.optional(),
};

export const createOrganizationBody = z.strictObject({
  name: text(256).min(1),
  slug: z.string().regex(SLUG_PATTERN, {
    error: 'must be 3-64 lower-case letters, digits or hyphens, starting and ending with a letter or digit',
  }),
  terms: z.literal(true, { error: 'terms must be accepted (true)' }),
  parent_organization_id: z.uuid().nullish(),
  ...profileFields,
});
export type CreateOrganizationBody = z.infer<typeof createOrganizationBody>;

export const updateOrganizationBody = z.strictObject({
  name: text(256).min(1).optional(),
  // The slug is the organization's public handle and its invoice prefix's source: fixed at creation.
  slug: z.never({ error: 'slug cannot be changed after creation' }).optional(),
  details: settingsObject.optional(),
  ...profileFields,
});
export type UpdateOrganizationBody = z.infer<typeof updateOrganizationBody>;

export const organizationSchema = z.object({
  id: z.string(),
  parent_organization_id: z.string().nullable(),
  name: z.string(),
  slug: z.string(),
  avatar_url: z.string().nullable(),
  bio: z.string().nullable(),
  company: z.string().nullable(),
  blog: z.string().nullable(),
  location: z.string().nullable(),
  email: z.string().nullable(),
  website: z.string().nullable(),
  social_username: z.string().nullable(),
  status: z.string(),
  next_review_threshold: z.number().int(),
  customer_invoice_prefix: z.string(),
  customer_invoice_next_number: z.number().int(),
  profile_settings: z.record(z.string(), z.unknown()),
  feature_settings: z.record(z.string(), z.unknown()),
  subscription_settings: z.object({
    allow_multiple_subscriptions: z.boolean(),
    allow_customer_updates: z.boolean(),
    proration_behavior: z.string(),
    dunning_retry_days: z.array(z.number().int()),
    dunning_exhausted_status: z.enum(DUNNING_EXHAUSTED_STATUSES),
    chargeback_subscription_action: z.enum(CHARGEBACK_SUBSCRIPTION_ACTIONS),
  }),
  notification_settings: z.object({ new_sale: z.boolean(), new_subscription: z.boolean() }),
  socials: z.array(z.unknown()),
  details: z.record(z.string(), z.unknown()),
  created_at: z.string(),
  modified_at: z.string().nullable(),
  onboarded_at: z.string().nullable(),
});
export type OrganizationBody = z.infer<typeof organizationSchema>;

export const organizationParams = z.object({ id: z.uuid() });

/** The spec's member list item: nothing more than email, avatar_url and the joining time. */
export const memberSchema = z.object({
  email: z.string(),
  avatar_url: z.string().nullable(),
  created_at: z.string(),
});

export const ADDABLE_ROLES = ['admin', 'member'] as const;

export const addMemberBody = z.strictObject({
  email: emailAddress(),
  role: z.enum(ADDABLE_ROLES).default('member'),
});

/** The member just added, with its role so the caller sees what was granted. */
export const addedMemberSchema = memberSchema.extend({ role: z.string() });

export const memberParams = z.object({ id: z.uuid(), email: emailAddress() });

/** A member as the dashboard lists it (GET /dashboard/organizations/:id/members): the spec's item and the role. */
export const dashboardMemberSchema = memberSchema.extend({ role: z.enum(MEMBER_ROLES) });
export type DashboardMember = z.infer<typeof dashboardMemberSchema>;
