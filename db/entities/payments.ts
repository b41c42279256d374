import { defineEntity, p } from '@mikro-orm/core';
import { CHECKOUT_STATUSES, type ConfirmCardToken, type ConfirmPaymentMethod } from '../../domain/checkout.ts';
import { RECURRENCE_BILLINGS, SUBSCRIPTION_STATUSES } from '../../domain/subscriptions.ts';
import type { BillingAddress } from './customer.ts';

export const Discount = defineEntity({
  name: 'Discount',
  tableName: 'discounts',
  properties: {
    id: p.uuid().primary(),
    organizationId: p.uuid(),
    name: p.string(),
    code: p.string().nullable(),
    type: p.enum(['percentage', 'fixed'] as const),
    basisPoints: p.integer().nullable(),
    amount: p.bigint('number').nullable(),
    currency: p.string().nullable(),
    duration: p.enum(['once', 'forever', 'repeating'] as const),
    durationInMonths: p.integer().nullable(),
    startsAt: p.datetime().nullable(),
    endsAt: p.datetime().nullable(),
    maxRedemptions: p.integer().nullable(),
    redemptionsCount: p.integer(),
    productIds: p.array(),
    metadata: p.json<Record<string, unknown>>(),
    createdAt: p.datetime(),
    modifiedAt: p.datetime().nullable(),
    deletedAt: p.datetime().nullable(),
  },
});

export const CheckoutLink = defineEntity({
  name: 'CheckoutLink',
  tableName: 'checkout_links',
  properties: {
    id: p.uuid().primary(),
    organizationId: p.uuid(),
    label: p.string().nullable(),
    productIds: p.array(),
    discountId: p.uuid().nullable(),
    allowDiscountCodes: p.boolean(),
    successUrl: p.string().nullable(),
    cancelUrl: p.string().nullable(),
    metadata: p.json<Record<string, unknown>>(),
    isArchived: p.boolean(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});

export const Checkout = defineEntity({
  name: 'Checkout',
  tableName: 'checkouts',
  properties: {
    id: p.uuid().primary(),
    organizationId: p.uuid(),
    status: p.enum(CHECKOUT_STATUSES),
    clientSecret: p.string().unique(),
    workflowId: p.string(),
    productId: p.uuid(),
    productPriceId: p.uuid(),
    products: p.array(),
    checkoutLinkId: p.uuid().nullable(),
    quantity: p.integer(),
    currency: p.string(),
    subtotalAmount: p.bigint('number'),
    discountAmount: p.bigint('number'),
    amount: p.bigint('number'),
    discountId: p.uuid().nullable(),
    allowDiscountCodes: p.boolean(),
    customerId: p.uuid().nullable(),
    externalCustomerId: p.string().nullable(),
    isBusinessCustomer: p.boolean(),
    customerName: p.string().nullable(),
    customerEmail: p.string().nullable(),
    customerIpAddress: p.string().nullable(),
    customerBillingName: p.string().nullable(),
    customerBillingAddress: p.json<BillingAddress>().nullable(),
    customerTaxId: p.string().nullable(),
    customerMetadata: p.json<Record<string, unknown>>(),
    subscriptionId: p.uuid().nullable(),
    /** The period of `subscriptionId` this checkout pays (a renewal checkout); null otherwise. */
    renewalPeriod: p.integer().nullable(),
    /** What a renewal checkout took from its subscription's balance (its amount is the price plus this). */
    balanceApplied: p.bigint('number'),
    recurrenceBilling: p.enum(RECURRENCE_BILLINGS),
    trialInterval: p.enum(['day', 'week', 'month', 'year'] as const).nullable(),
    trialIntervalCount: p.integer().nullable(),
    requireBillingAddress: p.boolean(),
    successUrl: p.string().nullable(),
    cancelUrl: p.string().nullable(),
    embedOrigin: p.string().nullable(),
    metadata: p.json<Record<string, unknown>>(),
    noFeesInstallments: p.boolean(),
    paymentMethod: p.string().nullable(),
    gatewayPaymentData: p.json<Record<string, unknown>>().nullable(),
    declineReason: p.string().nullable(),
    /** The number of the last confirmation: each payment call's gateway key carries it (0: none yet). */
    paymentSlot: p.integer().default(0),
    /** What that confirmation asked the gateway for (method, card token, installments). */
    confirmation: p.json<StoredConfirmation>().nullable(),
    expiresAt: p.datetime(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});

/** What a confirmation asked the gateway for, kept on the checkout (its `confirmation` column). */
export interface StoredConfirmation {
  payment_method: ConfirmPaymentMethod;
  card: ConfirmCardToken | null;
  installments: number;
  /** The buyer chose Pix Automático for this pix (decision 0096's opt-in); absent: not chosen. */
  pix_automatico?: boolean;
}

export const DiscountRedemption = defineEntity({
  name: 'DiscountRedemption',
  tableName: 'discount_redemptions',
  properties: {
    discountId: p.uuid().primary(),
    checkoutId: p.uuid().primary(),
    createdAt: p.datetime(),
  },
});

export const Transaction = defineEntity({
  name: 'Transaction',
  tableName: 'transactions',
  properties: {
    id: p.uuid().primary(),
    organizationId: p.uuid(),
    checkoutId: p.uuid().nullable(),
    gatewayTransactionId: p.string().unique(),
    transactionNumber: p.bigint('string').nullable(),
    status: p.string(),
    paymentType: p.enum(['credit', 'pix', 'boleto'] as const),
    amount: p.bigint('number'),
    currency: p.string(),
    installments: p.integer(),
    card: p.json<Record<string, unknown>>().nullable(),
    authorizationCode: p.string().nullable(),
    declineReason: p.string().nullable(),
    buyer: p.json<Record<string, unknown>>().nullable(),
    capturedAmount: p.bigint('number'),
    refundedAmount: p.bigint('number').default(0),
    confirmedAt: p.datetime().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});

export const Subscription = defineEntity({
  name: 'Subscription',
  tableName: 'subscriptions',
  properties: {
    id: p.uuid().primary(),
    organizationId: p.uuid(),
    customerId: p.uuid(),
    productId: p.uuid(),
    priceId: p.uuid(),
    checkoutId: p.uuid().nullable(),
    status: p.enum(SUBSCRIPTION_STATUSES),
    recurrenceBilling: p.enum(RECURRENCE_BILLINGS),
    gatewaySubscriptionId: p.string().nullable(),
    amount: p.bigint('number'),
    currency: p.string(),
    discountId: p.uuid().nullable(),
    currentPeriodStart: p.datetime(),
    currentPeriodEnd: p.datetime(),
    trialEnd: p.datetime().nullable(),
    cancelAtPeriodEnd: p.boolean(),
    canceledAt: p.datetime().nullable(),
    createdAt: p.datetime(),
    modifiedAt: p.datetime().nullable(),
    workflowId: p.string(),
    /** Start of period `anchorPeriod`: every later boundary is counted from it (domain/subscriptions.ts). */
    billingAnchor: p.datetime(),
    /** 1, or the period an upgrade checkout started (it anchored the periods after it anew). */
    anchorPeriod: p.integer(),
    /** 0 while in the trial, then 1, 2… */
    periodNumber: p.integer(),
    /** The gateway's token of the card manual renewals charge; null when paid by pix or boleto. */
    cardTokenId: p.string().nullable(),
    endedAt: p.datetime().nullable(),
    /** The price before discounts; each renewal applies the discount again while it lasts. */
    subtotalAmount: p.bigint('number'),
    /** Owed (positive) or credited (negative) by plan changes and upgrades; the next renewals take it. */
    balanceAmount: p.bigint('number'),
    /** How many plan changes were recorded: the next one's number keys its charge (priceChangeKey). */
    priceChanges: p.integer(),
    /** The gateway-billed period whose balance was settled last (activities/gateway-renewals.ts). */
    balanceSettledPeriod: p.integer().nullable(),
    /** The merchant's key/value metadata, replaced whole by PATCH (through the workflow). */
    metadata: p.json<Record<string, unknown>>(),
  },
});

/** One renewal charge or dunning retry of a subscription's period, with its outcome. */
export const SubscriptionCharge = defineEntity({
  name: 'SubscriptionCharge',
  tableName: 'subscription_charges',
  properties: {
    id: p.uuid().primary(),
    organizationId: p.uuid(),
    subscriptionId: p.uuid(),
    periodNumber: p.integer(),
    tryNumber: p.integer(),
    amount: p.bigint('number'),
    currency: p.string(),
    outcome: p.enum(['succeeded', 'failed', 'refunded'] as const),
    declineReason: p.string().nullable(),
    transactionId: p.uuid().nullable(),
    /** The renewal or upgrade checkout whose sale paid it; null for the saved card's charges. */
    checkoutId: p.uuid().nullable(),
    attemptedAt: p.datetime(),
  },
});

export const Sale = defineEntity({
  name: 'Sale',
  tableName: 'sales',
  properties: {
    id: p.uuid().primary(),
    organizationId: p.uuid(),
    checkoutId: p.uuid().nullable(),
    transactionId: p.uuid().nullable(),
    customerId: p.uuid(),
    productId: p.uuid(),
    priceId: p.uuid(),
    subscriptionId: p.uuid().nullable(),
    /** The extra-charge invoice it pays; null otherwise. */
    invoiceId: p.uuid().nullable(),
    discountId: p.uuid().nullable(),
    currency: p.string(),
    subtotalAmount: p.bigint('number'),
    discountAmount: p.bigint('number'),
    amount: p.bigint('number'),
    installments: p.integer(),
    paymentMethod: p.string(),
    status: p.enum(['paid', 'refunded', 'partially_refunded'] as const),
    refundedAmount: p.bigint('number'),
    /** What lost disputes took back (decision 0072). */
    chargedBackAmount: p.bigint('number').default(0),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});

/** A dispute (chargeback) of a sale's payment, as the gateway reports it (decision 0072). */
export const Dispute = defineEntity({
  name: 'Dispute',
  tableName: 'disputes',
  properties: {
    id: p.uuid().primary(),
    organizationId: p.uuid(),
    saleId: p.uuid(),
    transactionId: p.uuid(),
    gatewayDisputeId: p.string().unique(),
    status: p.enum(['opened', 'won', 'lost'] as const),
    amount: p.bigint('number'),
    /** What the dispute took back: its amount (at most what was left of the sale) once lost, else 0. */
    lostAmount: p.bigint('number').default(0),
    currency: p.string(),
    openedAt: p.datetime(),
    closedAt: p.datetime().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});

export const Refund = defineEntity({
  name: 'Refund',
  tableName: 'refunds',
  properties: {
    id: p.uuid().primary(),
    organizationId: p.uuid(),
    /** Null for a late payment of a checkout that ended without a sale, given back (decision 0095). */
    saleId: p.uuid().nullable(),
    transactionId: p.uuid(),
    amount: p.bigint('number'),
    reason: p.string().nullable(),
    status: p.enum(['pending', 'succeeded', 'failed'] as const),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});

/** A gateway notification already handled: a repeated delivery is acknowledged and ignored. */
export const GatewayCallback = defineEntity({
  name: 'GatewayCallback',
  tableName: 'gateway_callbacks',
  properties: {
    id: p.string().primary(),
    type: p.string(),
    payload: p.json<Record<string, unknown>>(),
    receivedAt: p.datetime(),
  },
});
