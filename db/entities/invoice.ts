import { defineEntity, p } from '@mikro-orm/core';
import { INVOICE_STATUSES } from '../../domain/invoices.ts';

/** An extra charge on a subscription: created at the gateway, or charged by the engine (migrations 0009, 0027). */
export const SubscriptionInvoice = defineEntity({
  name: 'SubscriptionInvoice',
  tableName: 'subscription_invoices',
  properties: {
    id: p.uuid().primary(),
    organizationId: p.uuid(),
    subscriptionId: p.uuid(),
    /** `<customer_invoice_prefix>-<n>`, unique per organization. */
    number: p.string(),
    /** Null for a manual subscription's invoice: the engine charges the kept card, no gateway invoice exists. */
    gatewayInvoiceId: p.string().unique().nullable(),
    amount: p.bigint('number'),
    currency: p.string(),
    description: p.text().nullable(),
    dueDate: p.date(),
    expirationDate: p.date().nullable(),
    paymentMethod: p.string(),
    status: p.enum(INVOICE_STATUSES),
    noFeesInstallments: p.boolean(),
    /** Why it failed (the gateway's decline reason); null otherwise. */
    failureReason: p.string().nullable(),
    /** Our transaction of the gateway's charge, once one was made. */
    transactionId: p.uuid().nullable(),
    paidAt: p.datetime().nullable(),
    workflowId: p.string(),
    createdAt: p.datetime(),
    modifiedAt: p.datetime(),
  },
});
