import { Product, Price, ProductMedia } from './catalog.ts';
import { ApiKey, CustomerSession, OrganizationAccessToken } from './credentials.ts';
import { Customer } from './customer.ts';
import { Event } from './event.ts';
import { File } from './file.ts';
import { IdempotencyKey } from './idempotency.ts';
import { RateLimitCounter } from './rate-limit.ts';
import {
  Notification,
  NotificationJob,
  WebhookAttempt,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookRelay,
} from './webhook.ts';
import { SubscriptionInvoice } from './invoice.ts';
import {
  Checkout,
  CheckoutLink,
  Discount,
  DiscountRedemption,
  Dispute,
  GatewayCallback,
  Refund,
  Sale,
  Subscription,
  SubscriptionCharge,
  Transaction,
} from './payments.ts';
import { AdminUser, Organization, OrganizationMember, User } from './organization.ts';
import { Reconciliation, ReconciliationLine } from './reconciliation.ts';
import { Mandate, MandateCharge } from './mandate.ts';

export * from './catalog.ts';
export * from './credentials.ts';
export * from './customer.ts';
export * from './event.ts';
export * from './file.ts';
export * from './idempotency.ts';
export * from './invoice.ts';
export * from './mandate.ts';
export * from './organization.ts';
export * from './payments.ts';
export * from './rate-limit.ts';
export * from './reconciliation.ts';
export * from './webhook.ts';

export const entities = [
  Organization,
  User,
  AdminUser,
  OrganizationMember,
  ApiKey,
  OrganizationAccessToken,
  CustomerSession,
  Product,
  Price,
  ProductMedia,
  Customer,
  Event,
  File,
  IdempotencyKey,
  RateLimitCounter,
  Discount,
  CheckoutLink,
  Checkout,
  DiscountRedemption,
  Transaction,
  Subscription,
  SubscriptionCharge,
  SubscriptionInvoice,
  Sale,
  Refund,
  Dispute,
  GatewayCallback,
  WebhookEndpoint,
  WebhookDelivery,
  WebhookAttempt,
  WebhookRelay,
  Notification,
  NotificationJob,
  Reconciliation,
  ReconciliationLine,
  Mandate,
  MandateCharge,
];
