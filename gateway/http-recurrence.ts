import { z } from 'zod';
import { cents, currency, date, positiveCents, reference, timestamp } from './http-fields.ts';
import type {
  GatewayInvoice,
  GatewayInvoiceInput,
  GatewaySubscription,
  GatewaySubscriptionInput,
  RecurrencePlan,
  RecurrencePlanInput,
} from './port.ts';

/** The gateway's own recurrence: plans, the subscriptions that bill them, and their invoices. */

const interval = z.enum(['day', 'week', 'month', 'year']);

export const wirePlanInput = z.object({
  reference,
  name: z.string().min(1).max(255),
  amount: positiveCents,
  currency,
  interval,
  interval_count: z.number().int().min(1),
});
export type WirePlanInput = z.infer<typeof wirePlanInput>;

export function planInputToWire(p: RecurrencePlanInput): WirePlanInput {
  return {
    reference: p.reference,
    name: p.name,
    amount: p.amount,
    currency: p.currency,
    interval: p.interval,
    interval_count: p.intervalCount,
  };
}

export function planInputFromWire(w: WirePlanInput): RecurrencePlanInput {
  return {
    reference: w.reference,
    name: w.name,
    amount: w.amount,
    currency: w.currency,
    interval: w.interval,
    intervalCount: w.interval_count,
  };
}

export const wirePlan = z.object({
  id: z.string(),
  reference: z.string(),
  amount: cents,
  currency: z.string(),
  interval: z.string(),
  interval_count: z.number().int(),
  created_at: timestamp,
});
export type WirePlan = z.infer<typeof wirePlan>;

export function planToWire(p: RecurrencePlan): WirePlan {
  return {
    id: p.id,
    reference: p.reference,
    amount: p.amount,
    currency: p.currency,
    interval: p.interval,
    interval_count: p.intervalCount,
    created_at: p.createdAt,
  };
}

export function planFromWire(w: WirePlan): RecurrencePlan {
  return {
    id: w.id,
    reference: w.reference,
    amount: w.amount,
    currency: w.currency,
    interval: w.interval,
    intervalCount: w.interval_count,
    createdAt: w.created_at,
  };
}

export const wireSubscriptionInput = z.object({
  reference,
  plan_id: z.string().min(1),
  buyer_id: z.string().min(1),
  card_token: z.string().min(1),
  start_date: date,
});
export type WireSubscriptionInput = z.infer<typeof wireSubscriptionInput>;

export function subscriptionInputToWire(s: GatewaySubscriptionInput): WireSubscriptionInput {
  return {
    reference: s.reference,
    plan_id: s.planId,
    buyer_id: s.buyerId,
    card_token: s.cardToken,
    start_date: s.startDate,
  };
}

export function subscriptionInputFromWire(w: WireSubscriptionInput): GatewaySubscriptionInput {
  return {
    reference: w.reference,
    planId: w.plan_id,
    buyerId: w.buyer_id,
    cardToken: w.card_token,
    startDate: w.start_date,
  };
}

export const wireSubscription = z.object({
  id: z.string(),
  reference: z.string(),
  plan_id: z.string(),
  buyer_id: z.string(),
  status: z.enum(['active', 'canceled']),
  created_at: timestamp,
});
export type WireSubscription = z.infer<typeof wireSubscription>;

export function subscriptionToWire(s: GatewaySubscription): WireSubscription {
  return {
    id: s.id,
    reference: s.reference,
    plan_id: s.planId,
    buyer_id: s.buyerId,
    status: s.status,
    created_at: s.createdAt,
  };
}

export function subscriptionFromWire(w: WireSubscription): GatewaySubscription {
  return {
    id: w.id,
    reference: w.reference,
    planId: w.plan_id,
    buyerId: w.buyer_id,
    status: w.status,
    createdAt: w.created_at,
  };
}

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
