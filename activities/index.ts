import type { Client } from '@temporalio/client';
import { loadConfig, type Config } from '../config/env.ts';
import type { Orm } from '../db/orm.ts';
import type { PaymentGateway } from '../gateway/port.ts';
import { openMailer } from '../mailer/index.ts';
import { createCheckoutPaymentActivities } from './checkout-payments.ts';
import { createCheckoutRecordActivities } from './checkout-records.ts';
import { recordSale } from './checkout-sale.ts';
import { createDirectTransactionActivities } from './direct-transactions.ts';
import { createGatewayRenewalActivities } from './gateway-renewals.ts';
import { createInvoiceActivities } from './invoices.ts';
import { createRecurrencePlanActivities } from './recurrence-plans.ts';
import { createRefundActivities } from './refunds.ts';
import { createGatewayRefundActivities } from './gateway-refunds.ts';
import { createPaymentNoticeActivities } from './payment-notices.ts';
import { createKeptCardActivities } from './kept-cards.ts';
import { createDisputeActivities } from './disputes.ts';
import { createSubscriptionCardActivities } from './subscription-card.ts';
import { createSubscriptionChangeActivities } from './subscription-changes.ts';
import { createSubscriptionActivities } from './subscriptions.ts';
import { createMandateCycleActivities } from './mandate-cycles.ts';
import { createMandateRequestActivities } from './mandate-requests.ts';
import { createSubscriptionSaleActivities } from './subscription-sales.ts';
import { createSubscriptionSaleUpdateActivities } from './subscription-sale-update.ts';
import { createRenewalCheckoutActivities } from './renewal-checkouts.ts';
import { createSweepActivities } from './sweeps.ts';
import { createReconciliationActivities } from './reconciliations.ts';
import { createWebhookDeliveryActivities } from './webhook-deliveries.ts';
import { createWebhookRelayActivities } from './webhook-relay.ts';
import { webhookTaskQueue } from '../domain/task-queues.ts';
import type { CheckoutActivities } from '../contracts/checkout.ts';
import type { DirectTransactionActivities } from '../contracts/direct-transaction.ts';
import type { InvoiceActivities } from '../contracts/invoice.ts';
import type { RecurrencePlanActivities } from '../contracts/recurrence-plan.ts';
import type { KeptCardActivities } from '../contracts/kept-card.ts';
import type { PaymentNoticeActivities } from '../contracts/payment-notice.ts';
import type { GatewayRefundActivities, RefundActivities } from '../contracts/refund.ts';
import type { DisputeActivities } from '../contracts/dispute.ts';
import type { SubscriptionActivities } from '../contracts/subscription.ts';
import type { MandateActivities } from '../contracts/mandate.ts';
import type { SweepActivities } from '../contracts/sweep.ts';
import type { ReconciliationActivities } from '../contracts/reconciliation.ts';
import type { WebhookDeliveryActivities } from '../contracts/webhook-delivery.ts';
import type { WebhookRelayActivities } from '../contracts/webhook-relay.ts';
import type { RecordSaleInput } from '../contracts/checkout.ts';

export interface ActivityDeps {
  orm: Orm;
  gateway: PaymentGateway;
  /**
   * The worker's Temporal client, batch task queue and configuration: for the sweep that starts
   * missing workflows, and for the renewal checkouts a subscription's workflow opens.
   */
  temporal?: Client;
  taskQueue?: string;
  config?: Config;
}

/** Every activity the worker registers, built from its dependencies (no module-level state). */
export function createActivities(deps: ActivityDeps) {
  // A worker built without configuration (some tests) mails to the default outbox.
  const mailConfig = deps.config ?? loadConfig({}, 'worker');
  const mail = {
    orm: deps.orm,
    mailer: openMailer(mailConfig),
    from: mailConfig.mailFrom,
    publicBaseUrl: mailConfig.publicBaseUrl,
  };
  const activities = {
    ...createRecurrencePlanActivities(deps),
    ...createCheckoutRecordActivities(deps),
    ...createCheckoutPaymentActivities(deps),
    recordSale: (input: RecordSaleInput) => recordSale(deps.orm, input),
    ...createRefundActivities(deps),
    ...createGatewayRefundActivities(deps),
    ...createPaymentNoticeActivities(deps),
    ...createKeptCardActivities(deps),
    ...createDisputeActivities(deps),
    ...createDirectTransactionActivities(deps),
    ...createSubscriptionActivities(deps),
    ...createMandateCycleActivities(deps),
    ...createMandateRequestActivities(deps),
    ...createSubscriptionSaleActivities(deps),
    ...createSubscriptionSaleUpdateActivities(deps),
    ...createInvoiceActivities(deps),
    ...createGatewayRenewalActivities(deps),
    ...createSubscriptionChangeActivities(deps),
    ...createSubscriptionCardActivities(deps),
    ...createSweepActivities(deps),
    ...createReconciliationActivities(deps),
    ...createRenewalCheckoutActivities(deps),
    ...createWebhookDeliveryActivities({ orm: deps.orm, env: deps.config?.DEPLOYMENT_ENV ?? 'test' }),
    ...createWebhookRelayActivities({
      orm: deps.orm,
      notifications: mail,
      temporal: deps.temporal,
      webhookQueue: deps.config && webhookTaskQueue(deps.config.TEMPORAL_TASK_QUEUE),
    }),
  };
  // Every workflow's activity interface, implemented whole: a method missing or of another shape fails here.
  return activities satisfies CheckoutActivities &
    SubscriptionActivities &
    MandateActivities &
    InvoiceActivities &
    RefundActivities &
    GatewayRefundActivities &
    PaymentNoticeActivities &
    KeptCardActivities &
    DisputeActivities &
    DirectTransactionActivities &
    RecurrencePlanActivities &
    SweepActivities &
    ReconciliationActivities &
    WebhookDeliveryActivities &
    WebhookRelayActivities;
}
