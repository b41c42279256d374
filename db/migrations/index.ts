import { Migration0001Platform } from './0001-platform.ts';
import { Migration0002GatewaySimulator } from './0002-gateway-simulator.ts';
import { Migration0003Payments } from './0003-payments.ts';
import { Migration0004GatewaySimulatorBooks } from './0004-gateway-simulator-books.ts';
import { Migration0005IdempotencyLease } from './0005-idempotency-lease.ts';
import { Migration0006CheckoutIntegrity } from './0006-checkout-integrity.ts';
import { Migration0007SubscriptionLifecycle } from './0007-subscription-lifecycle.ts';
import { Migration0008RenewalCheckouts } from './0008-renewal-checkouts.ts';
import { Migration0009SubscriptionInvoices } from './0009-subscription-invoices.ts';
import { Migration0010GatewayRecurrence } from './0010-gateway-recurrence.ts';
import { Migration0011SubscriptionPriceChanges } from './0011-subscription-price-changes.ts';
import { Migration0012SubscriptionMetadata } from './0012-subscription-metadata.ts';
import { Migration0013SubscriptionAnchorPeriod } from './0013-subscription-anchor-period.ts';
import { Migration0014RenewalCheckoutBalance } from './0014-renewal-checkout-balance.ts';
import { Migration0015GatewayBalanceSettlement } from './0015-gateway-balance-settlement.ts';
import { Migration0016SweepIndexes } from './0016-sweep-indexes.ts';
import { Migration0017CheckoutPaymentAttempts } from './0017-checkout-payment-attempts.ts';
import { Migration0018Files } from './0018-files.ts';
import { Migration0019Webhooks } from './0019-webhooks.ts';
import { Migration0020MetricsIndexes } from './0020-metrics-indexes.ts';
import { Migration0021EventObjectIndex } from './0021-event-object-index.ts';
import { Migration0022Notifications } from './0022-notifications.ts';

/** Every migration, in order. Listed explicitly so that no file discovery depends on the runtime. */
export const migrationsList = [
  { name: '0001-platform', class: Migration0001Platform },
  { name: '0002-gateway-simulator', class: Migration0002GatewaySimulator },
  { name: '0003-payments', class: Migration0003Payments },
  { name: '0004-gateway-simulator-books', class: Migration0004GatewaySimulatorBooks },
  { name: '0005-idempotency-lease', class: Migration0005IdempotencyLease },
  { name: '0006-checkout-integrity', class: Migration0006CheckoutIntegrity },
  { name: '0007-subscription-lifecycle', class: Migration0007SubscriptionLifecycle },
  { name: '0008-renewal-checkouts', class: Migration0008RenewalCheckouts },
  { name: '0009-subscription-invoices', class: Migration0009SubscriptionInvoices },
  { name: '0010-gateway-recurrence', class: Migration0010GatewayRecurrence },
  { name: '0011-subscription-price-changes', class: Migration0011SubscriptionPriceChanges },
  { name: '0012-subscription-metadata', class: Migration0012SubscriptionMetadata },
  { name: '0013-subscription-anchor-period', class: Migration0013SubscriptionAnchorPeriod },
  { name: '0014-renewal-checkout-balance', class: Migration0014RenewalCheckoutBalance },
  { name: '0015-gateway-balance-settlement', class: Migration0015GatewayBalanceSettlement },
  { name: '0016-sweep-indexes', class: Migration0016SweepIndexes },
  { name: '0017-checkout-payment-attempts', class: Migration0017CheckoutPaymentAttempts },
  { name: '0018-files', class: Migration0018Files },
  { name: '0019-webhooks', class: Migration0019Webhooks },
  { name: '0020-metrics-indexes', class: Migration0020MetricsIndexes },
  { name: '0021-event-object-index', class: Migration0021EventObjectIndex },
  { name: '0022-notifications', class: Migration0022Notifications },
];
