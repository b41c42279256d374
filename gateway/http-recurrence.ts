import { z } from 'zod';
import { cents, currency, date, positiveCents, snakeCaseTwin, timestamp } from './http-fields.ts';
import type { GatewayInvoice, GatewayInvoiceInput } from './port.ts';
import { gatewaySubscription, gatewaySubscriptionInput, recurrencePlan, recurrencePlanInput } from './recurrence.ts';

/**
 * The gateway's own recurrence on the wire: plans and the subscriptions that bill them (recurrence.ts
 * with snake_case keys), and their invoices, whose optional fields travel as explicit nulls.
 */

const planInputTwin = snakeCaseTwin(recurrencePlanInput);
export const wirePlanInput = planInputTwin.wire;
export type WirePlanInput = z.infer<typeof wirePlanInput>;
export const planInputToWire = planInputTwin.toWire;
export const planInputFromWire = planInputTwin.fromWire;

const planTwin = snakeCaseTwin(recurrencePlan);
export const wirePlan = planTwin.wire;
export type WirePlan = z.infer<typeof wirePlan>;
export const planToWire = planTwin.toWire;
export const planFromWire = planTwin.fromWire;

const subscriptionInputTwin = snakeCaseTwin(gatewaySubscriptionInput);
export const wireSubscriptionInput = subscriptionInputTwin.wire;
export type WireSubscriptionInput = z.infer<typeof wireSubscriptionInput>;
export const subscriptionInputToWire = subscriptionInputTwin.toWire;
export const subscriptionInputFromWire = subscriptionInputTwin.fromWire;

const subscriptionTwin = snakeCaseTwin(gatewaySubscription);
export const wireSubscription = subscriptionTwin.wire;
export type WireSubscription = z.infer<typeof wireSubscription>;
export const subscriptionToWire = subscriptionTwin.toWire;
export const subscriptionFromWire = subscriptionTwin.fromWire;

/** `POST /v1/subscriptions/:id/plan`: the plan the subscription moves to. */
export const wireSubscriptionPlanChange = z.object({ plan_id: z.string().min(1) });
export type WireSubscriptionPlanChange = z.infer<typeof wireSubscriptionPlanChange>;

export const wireInvoiceInput = z.object({
  subscription_id: z.string().min(1),
  amount: positiveCents,
  currency,
  description: z.string().max(255).nullish(),
  due_date: date,
  expiration_date: date.nullish(),
  no_fees_installments: z.boolean(),
});
export type WireInvoiceInput = z.infer<typeof wireInvoiceInput>;

export function invoiceInputToWire(i: GatewayInvoiceInput): WireInvoiceInput {
  return {
    subscription_id: i.subscriptionId,
    amount: i.amount,
    currency: i.currency,
    description: i.description ?? null,
    due_date: i.dueDate,
    expiration_date: i.expirationDate ?? null,
    no_fees_installments: i.noFeesInstallments,
  };
}

export function invoiceInputFromWire(w: WireInvoiceInput): GatewayInvoiceInput {
  return {
    subscriptionId: w.subscription_id,
    amount: w.amount,
    currency: w.currency,
    description: w.description ?? null,
    dueDate: w.due_date,
    expirationDate: w.expiration_date ?? null,
    noFeesInstallments: w.no_fees_installments,
  };
}

export const wireInvoice = z.object({
  id: z.string(),
  subscription_id: z.string(),
  amount: cents,
  currency: z.string(),
  status: z.enum(['pending', 'paid', 'failed', 'voided']),
  due_date: z.string(),
  expiration_date: z.string().nullable(),
  paid_at: timestamp.nullable(),
  created_at: timestamp,
  transaction_id: z.string().nullable(),
  cycle: z.number().int().min(0).nullable(),
});
export type WireInvoice = z.infer<typeof wireInvoice>;
export const wireInvoiceList = z.object({ items: z.array(wireInvoice) });

export function invoiceToWire(i: GatewayInvoice): WireInvoice {
  return {
    id: i.id,
    subscription_id: i.subscriptionId,
    amount: i.amount,
    currency: i.currency,
    status: i.status,
    due_date: i.dueDate,
    expiration_date: i.expirationDate ?? null,
    paid_at: i.paidAt ?? null,
    created_at: i.createdAt,
    transaction_id: i.transactionId,
    cycle: i.cycle,
  };
}

export function invoiceFromWire(w: WireInvoice): GatewayInvoice {
  return {
    id: w.id,
    subscriptionId: w.subscription_id,
    amount: w.amount,
    currency: w.currency,
    status: w.status,
    dueDate: w.due_date,
    expirationDate: w.expiration_date,
    paidAt: w.paid_at,
    createdAt: w.created_at,
    transactionId: w.transaction_id,
    cycle: w.cycle,
  };
}

/** The sandbox's cycle billing (`billSandboxCycle`): which cycle, and the key that makes a retry answer the first try. */
export const wireBillCycle = z.strictObject({
  cycle: z.number().int().min(0),
  idempotency_key: z.string().min(1).max(255),
});
