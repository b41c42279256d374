import { defineSearchAttributeKey } from '@temporalio/common';

/**
 * The custom search attributes of billing runs (registered by scripts/temporal-cli.ts and docker-compose),
 * so an operator finds every run of an organization, customer, subscription or checkout.
 */
export const ORGANIZATION_ID = defineSearchAttributeKey('OrganizationId', 'KEYWORD');
export const CUSTOMER_ID = defineSearchAttributeKey('CustomerId', 'KEYWORD');
export const SUBSCRIPTION_ID = defineSearchAttributeKey('SubscriptionId', 'KEYWORD');
export const CHECKOUT_ID = defineSearchAttributeKey('CheckoutId', 'KEYWORD');
/** Set when an operator must look at this run; see docs/decisions/0021-lost-answer-is-not-a-decline.md. */
export const PAYMENT_ISSUE = defineSearchAttributeKey('PaymentIssue', 'KEYWORD');
