export { recurrencePlanWorkflow } from './recurrence-plan.ts';
export { refundWorkflow } from './refund.ts';
export { gatewayRefundsWorkflow } from './gateway-refunds.ts';
export { paymentNoticeWorkflow } from './payment-notice.ts';
export { keptCardWorkflow } from './kept-card.ts';
export { chargebackWorkflow } from './chargeback.ts';
export { directTransactionWorkflow } from './direct-transaction.ts';
export { checkoutWorkflow } from './checkout.ts';
export { subscriptionWorkflow } from './subscription.ts';
export { mandateWorkflow } from './mandate.ts';
export { invoiceWorkflow } from './invoice.ts';
export { billingSweepWorkflow } from './sweep.ts';
export { webhookDeliveryWorkflow } from './webhook-delivery.ts';
export { webhookRelayWorkflow } from './webhook-relay.ts';
export { reconciliationWorkflow } from './reconciliation.ts';

import type { CheckoutWorkflow } from '../contracts/checkout.ts';
import type { ChargebackWorkflow } from '../contracts/dispute.ts';
import type { DirectTransactionWorkflow } from '../contracts/direct-transaction.ts';
import type { InvoiceWorkflow } from '../contracts/invoice.ts';
import type { RecurrencePlanWorkflow } from '../contracts/recurrence-plan.ts';
import type { KeptCardWorkflow } from '../contracts/kept-card.ts';
import type { PaymentNoticeWorkflow } from '../contracts/payment-notice.ts';
import type { GatewayRefundsWorkflow, RefundWorkflow } from '../contracts/refund.ts';
import type { SubscriptionWorkflow } from '../contracts/subscription.ts';
import type { MandateWorkflow } from '../contracts/mandate.ts';
import type { WebhookDeliveryWorkflow } from '../contracts/webhook-delivery.ts';
import type { ReconciliationWorkflow } from '../contracts/reconciliation.ts';
import type { checkoutWorkflow } from './checkout.ts';
import type { directTransactionWorkflow } from './direct-transaction.ts';
import type { invoiceWorkflow } from './invoice.ts';
import type { recurrencePlanWorkflow } from './recurrence-plan.ts';
import type { refundWorkflow } from './refund.ts';
import type { gatewayRefundsWorkflow } from './gateway-refunds.ts';
import type { paymentNoticeWorkflow } from './payment-notice.ts';
import type { keptCardWorkflow } from './kept-card.ts';
import type { chargebackWorkflow } from './chargeback.ts';
import type { subscriptionWorkflow } from './subscription.ts';
import type { mandateWorkflow } from './mandate.ts';
import type { webhookDeliveryWorkflow } from './webhook-delivery.ts';
import type { reconciliationWorkflow } from './reconciliation.ts';

/** A workflow as the contract its starters use (contracts/) says it is: a mismatch fails the typecheck. */
type Fulfils<Workflow extends Contract, Contract> = Workflow;
export type WorkflowsFulfilTheirContracts = [
  Fulfils<typeof checkoutWorkflow, CheckoutWorkflow>,
  Fulfils<typeof subscriptionWorkflow, SubscriptionWorkflow>,
  Fulfils<typeof mandateWorkflow, MandateWorkflow>,
  Fulfils<typeof invoiceWorkflow, InvoiceWorkflow>,
  Fulfils<typeof refundWorkflow, RefundWorkflow>,
  Fulfils<typeof gatewayRefundsWorkflow, GatewayRefundsWorkflow>,
  Fulfils<typeof paymentNoticeWorkflow, PaymentNoticeWorkflow>,
  Fulfils<typeof keptCardWorkflow, KeptCardWorkflow>,
  Fulfils<typeof chargebackWorkflow, ChargebackWorkflow>,
  Fulfils<typeof directTransactionWorkflow, DirectTransactionWorkflow>,
  Fulfils<typeof recurrencePlanWorkflow, RecurrencePlanWorkflow>,
  Fulfils<typeof webhookDeliveryWorkflow, WebhookDeliveryWorkflow>,
  Fulfils<typeof reconciliationWorkflow, ReconciliationWorkflow>,
];
