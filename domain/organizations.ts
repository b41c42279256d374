import { DEFAULT_ALLOW_MULTIPLE_SUBSCRIPTIONS } from './checkout.ts';
import { DEFAULT_CHARGEBACK_SUBSCRIPTION_ACTION, type ChargebackSubscriptionAction } from './disputes.ts';
import { DEFAULT_PRORATION_BEHAVIOR } from './proration.ts';
import { DEFAULT_DUNNING_RETRY_DAYS, type DunningExhaustedStatus } from './subscriptions.ts';

/** An organization's vocabulary: its members' roles and the settings it starts with. */

/** What a member may be of an organization (owners and admins manage members; api/organization-records.ts). */
export const MEMBER_ROLES = ['owner', 'admin', 'member'] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

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
  /** What a lost chargeback of a subscription's payment does to it (domain/disputes.ts, decision 0072). */
  chargeback_subscription_action: DEFAULT_CHARGEBACK_SUBSCRIPTION_ACTION as ChargebackSubscriptionAction,
};
export const DEFAULT_NOTIFICATION_SETTINGS = { new_sale: true, new_subscription: true };
