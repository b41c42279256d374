import type { InferEntity } from '@mikro-orm/core';
import { z } from 'zod';
import type { Checkout } from '../../db/entities/index.ts';
import { billingAddressInput, billingAddressSchema, presentBillingAddress } from './customers.ts';
import { emailAddress, iso, listQuery, metadata, paginated, TAX_ID_FORMAT, uuid, nonBlank } from './common.ts';
import { CHECKOUT_STATUSES } from '../../domain/checkout.ts';
import { checkoutPageUrl } from '../checkout-pages.ts';

/**
 * Wire shapes of checkouts: the spec's Checkout record (plus what the engine adds: product, quantity,
 * amounts before and after discount, customer fields, workflow id), the creation and update bodies, and
 * the public view the hosted checkout page reads with the client_secret.
 */

export type CheckoutEntity = InferEntity<typeof Checkout>;

const timestamp = z.string().meta({ description: 'ISO 8601 UTC', example: '2025-01-31T12:00:00.000Z' });
const httpUrl = z
  .url({ protocol: /^https?$/ })
  .max(2048)
  .meta({ description: 'http(s) URL' });
const text = nonBlank(256);
const email = emailAddress().toLowerCase();

/** An origin is scheme://host[:port] and nothing else: it is compared with the browser's Origin header. */
const origin = z
  .url({ protocol: /^https?$/ })
  .max(2048)
  // Checks run on after a failed one: a value that is no URL at all must not reach `new URL` (a 500).
  .refine((value) => URL.canParse(value) && new URL(value).origin === value.replace(/\/$/, ''), {
    message: 'must be an origin (scheme://host[:port]) without path, query or fragment',
  })
  .transform((value) => new URL(value).origin)
  .meta({ description: 'scheme://host[:port]', example: 'https://shop.example.com' });

export const TRIAL_INTERVALS = ['day', 'week', 'month', 'year'] as const;
import { RECURRENCE_BILLINGS } from '../../domain/subscriptions.ts';

export const RECURRENCE_BILLING = RECURRENCE_BILLINGS;

/** The customer fields a checkout carries, shared by creation and update. */
const customerFields = {
  customer_name: text.nullable().optional(),
  customer_email: email.nullable().optional(),
  customer_ip_address: z.union([z.ipv4(), z.ipv6()]).nullable().optional().meta({ description: 'For anti-fraud' }),
  customer_billing_name: text.nullable().optional(),
  customer_billing_address: billingAddressInput.nullable().optional(),
  customer_tax_id: z.string().max(32).meta(TAX_ID_FORMAT).nullable().optional(),
  customer_metadata: metadata.optional(),
  is_business_customer: z.boolean().optional(),
  external_customer_id: z.string().min(1).max(256).nullable().optional(),
};

const createCheckoutFields = z.strictObject({
  payment_processor: z.literal('gateway').default('gateway').meta({ description: 'Only gateway is accepted' }),
  product_id: uuid.optional().meta({ description: 'Recommended. The product charged, at its default price' }),
  product_price_id: uuid.optional().meta({
    description: 'Deprecated (answered with a Deprecation header): prefer product_id',
    deprecated: true,
  }),
  products: z.array(uuid).min(1).max(20).optional().meta({
    description:
      'Multi-item checkout: the products offered. The checkout charges product_id (or the first of these) at its default price, unless product_price_id names one',
  }),
  discount_id: uuid.optional().meta({ description: 'Pre-applied discount; must apply to the product (else 422)' }),
  allow_discount_codes: z.boolean().default(true),
  amount: z.number().int().min(1).optional().meta({
    description: 'Cents per unit, required for free-price products (one_time price with unit_amount 0) only',
  }),
  quantity: z.number().int().min(1).max(10_000).default(1).meta({ description: 'Total = unit amount × quantity' }),
  customer_id: uuid.optional().meta({ description: 'An existing customer of the organization' }),
  ...customerFields,
  subscription_id: uuid.optional().meta({
    description:
      'Existing subscription, for plan upgrades: once paid, the subscription moves to this price with a period ' +
      'starting at the payment, and the rest of its current period is credited (per proration_behavior). ' +
      'For a manually billed subscription that has not ended, a recurring price in its currency, no trial, and ' +
      "the subscription's customer; else 422 `upgrade_refused` (`subscription_not_found` for an unknown one)",
  }),
  recurrence_billing: z
    .enum(RECURRENCE_BILLING)
    .optional()
    .meta({
      description:
        "Who bills a recurring price's renewals. Unsent: `gateway` where the gateway bills recurrence (the simulator), " +
        '`manual` with Mercado Pago, where `gateway` is a 422 `gateway_recurrence_unavailable`',
    }),
  trial_interval: z.enum(TRIAL_INTERVALS).optional().meta({ description: 'Only for recurring prices' }),
  trial_interval_count: z.number().int().min(1).max(1000).optional(),
  require_billing_address: z.boolean().default(false),
  success_url: httpUrl.optional(),
  cancel_url: httpUrl.optional(),
  embed_origin: origin.optional(),
  metadata: metadata.optional(),
  no_fees_installments: z.boolean().default(false),
  checkout_link_id: uuid.optional().meta({ description: 'The reusable checkout link this checkout came from' }),
  expires_in_minutes: z
    .number()
    .int()
    .min(10)
    .max(1440)
    .optional()
    .meta({ description: 'Minutes until expires_at, 10 to 1440 (default 60)' }),
});
/** The service's own rules between fields (use-cases/checkout-creation.ts answers them 400), stated in the document. */
export const createCheckoutBody = createCheckoutFields.meta({
  description:
    'A product is required (product_id, product_price_id or products); trial_interval and trial_interval_count go together',
  anyOf: [{ required: ['product_id'] }, { required: ['product_price_id'] }, { required: ['products'] }],
  dependentRequired: { trial_interval: ['trial_interval_count'], trial_interval_count: ['trial_interval'] },
});
export type CreateCheckoutBody = z.input<typeof createCheckoutBody>;
export type CreateCheckoutInput = z.output<typeof createCheckoutBody>;

export const updateCheckoutBody = z.strictObject({
  ...customerFields,
  customer_id: uuid.nullable().optional(),
  metadata: metadata.optional().meta({ description: 'Replaces the whole metadata object' }),
  success_url: httpUrl.nullable().optional(),
  cancel_url: httpUrl.nullable().optional(),
  discount_id: uuid.nullable().optional().meta({ description: 'null removes the discount; re-prices the checkout' }),
  quantity: z.number().int().min(1).max(10_000).optional().meta({ description: 'Re-prices the checkout' }),
});
export type UpdateCheckoutBody = z.output<typeof updateCheckoutBody>;

export const checkoutParams = z.object({ id: z.string().max(64) });
export const clientSecretParams = z.object({ client_secret: z.string().max(128) });

export const listCheckoutsQuery = listQuery(['created_at', 'expires_at', 'amount']).extend({
  status: z.enum(CHECKOUT_STATUSES).optional(),
  product_id: uuid.optional(),
  customer_id: uuid.optional(),
});

const gatewayPaymentData = z
  .record(z.string(), z.unknown())
  .nullable()
  .meta({ description: 'After confirmation: transaction_id, status, authorization_code, installments' });

export const checkoutSchema = z.object({
  id: z.string(),
  organization_id: z.string(),
  status: z.enum(CHECKOUT_STATUSES),
  client_secret: z.string().meta({ description: 'For the frontend; authenticates the public checkout endpoints' }),
  payment_processor: z.literal('gateway'),
  product_id: z.string(),
  product_price_id: z.string(),
  products: z.array(z.string()),
  quantity: z.number().int(),
  currency: z.string().meta({ description: 'Upper case', example: 'BRL' }),
  subtotal_amount: z.number().int().meta({ description: 'Unit amount × quantity, cents' }),
  discount_amount: z.number().int(),
  amount: z.number().int().meta({ description: 'Charged, after discount, cents' }),
  discount_id: z.string().nullable(),
  allow_discount_codes: z.boolean(),
  customer_id: z.string().nullable(),
  external_customer_id: z.string().nullable(),
  is_business_customer: z.boolean(),
  customer_name: z.string().nullable(),
  customer_email: z.string().nullable(),
  customer_ip_address: z.string().nullable(),
  customer_billing_name: z.string().nullable(),
  customer_billing_address: billingAddressSchema.nullable(),
  customer_tax_id: z.string().nullable(),
  customer_metadata: z.record(z.string(), z.unknown()),
  subscription_id: z.string().nullable(),
  recurrence_billing: z.enum(RECURRENCE_BILLING),
  trial_interval: z.enum(TRIAL_INTERVALS).nullable(),
  trial_interval_count: z.number().int().nullable(),
  require_billing_address: z.boolean(),
  success_url: z.string().nullable(),
  cancel_url: z.string().nullable(),
  embed_origin: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  no_fees_installments: z.boolean(),
  checkout_link_id: z.string().nullable(),
  payment_method: z.string().nullable(),
  gateway_payment_data: gatewayPaymentData,
  decline_reason: z.string().nullable(),
  workflow_id: z.string().meta({ description: 'checkout:<id>' }),
  expires_at: timestamp,
  created_at: timestamp,
  updated_at: timestamp,
});
export type CheckoutRecord = z.infer<typeof checkoutSchema>;

/**
 * A checkout as the API answers it: its record (the one its events carry) and the hosted page's absolute
 * address, so an integration redirects the buyer without building the path (Polar's checkout has it too).
 * Events leave it out, as subscriptions' leave out their workflow_url: their receiver can build it from
 * client_secret, and the worker that writes most of them does not serve the pages.
 */
export const checkoutAnswerSchema = checkoutSchema.extend({
  url: z.string().meta({
    description:
      'The hosted checkout page, where the buyer pays: PUBLIC_BASE_URL/checkout/c/{client_secret} (our addition; events leave it out)',
    example: 'https://billing.example.com/checkout/c/cs_…',
  }),
});
export type CheckoutAnswer = z.infer<typeof checkoutAnswerSchema>;

export const checkoutPage = paginated(checkoutAnswerSchema);

/** The API's answer of a checkout: its record and its page's address on this deployment. */
export function checkoutAnswer(c: CheckoutEntity, publicBaseUrl: string): CheckoutAnswer {
  return { ...checkoutRecord(c), url: checkoutPageUrl(publicBaseUrl, c.clientSecret) };
}

export function checkoutRecord(c: CheckoutEntity): CheckoutRecord {
  return {
    id: c.id,
    organization_id: c.organizationId,
    status: c.status,
    client_secret: c.clientSecret,
    payment_processor: 'gateway',
    product_id: c.productId,
    product_price_id: c.productPriceId,
    products: [...c.products],
    quantity: c.quantity,
    currency: c.currency,
    subtotal_amount: Number(c.subtotalAmount),
    discount_amount: Number(c.discountAmount),
    amount: Number(c.amount),
    discount_id: c.discountId ?? null,
    allow_discount_codes: c.allowDiscountCodes,
    customer_id: c.customerId ?? null,
    external_customer_id: c.externalCustomerId ?? null,
    is_business_customer: c.isBusinessCustomer,
    customer_name: c.customerName ?? null,
    customer_email: c.customerEmail ?? null,
    customer_ip_address: c.customerIpAddress ?? null,
    customer_billing_name: c.customerBillingName ?? null,
    customer_billing_address: presentBillingAddress(c.customerBillingAddress),
    customer_tax_id: c.customerTaxId ?? null,
    customer_metadata: c.customerMetadata ?? {},
    subscription_id: c.subscriptionId ?? null,
    recurrence_billing: c.recurrenceBilling,
    trial_interval: c.trialInterval ?? null,
    trial_interval_count: c.trialIntervalCount ?? null,
    require_billing_address: c.requireBillingAddress,
    success_url: c.successUrl ?? null,
    cancel_url: c.cancelUrl ?? null,
    embed_origin: c.embedOrigin ?? null,
    metadata: c.metadata ?? {},
    no_fees_installments: c.noFeesInstallments,
    checkout_link_id: c.checkoutLinkId ?? null,
    payment_method: c.paymentMethod ?? null,
    gateway_payment_data: c.gatewayPaymentData ?? null,
    decline_reason: c.declineReason ?? null,
    workflow_id: c.workflowId,
    expires_at: iso(c.expiresAt)!,
    created_at: iso(c.createdAt)!,
    updated_at: iso(c.updatedAt)!,
  };
}

/**
 * What the hosted checkout page (and anyone holding the client_secret) may read: what the buyer sees
 * and fills in. Never the merchant's metadata, customer_metadata, customer_id or any other internal id
 * but the checkout's own, the product's and the price's.
 */
export const publicCheckoutSchema = z.object({
  id: z.string(),
  status: z.enum(CHECKOUT_STATUSES),
  amount: z.number().int(),
  currency: z.string(),
  subtotal_amount: z.number().int(),
  discount_amount: z.number().int(),
  quantity: z.number().int(),
  product: z.object({ id: z.string(), name: z.string(), description: z.string().nullable() }),
  price: z.object({
    id: z.string(),
    type: z.enum(['one_time', 'recurring']),
    interval: z.string().nullable(),
    interval_count: z.number().int().nullable(),
    unit_amount: z.number().int(),
  }),
  customer_email: z.string().nullable(),
  customer_name: z.string().nullable(),
  success_url: z.string().nullable(),
  cancel_url: z.string().nullable(),
  expires_at: timestamp,
  allow_discount_codes: z.boolean(),
  require_billing_address: z.boolean(),
  is_business_customer: z.boolean(),
  trial_interval: z.enum(TRIAL_INTERVALS).nullable(),
  trial_interval_count: z.number().int().nullable(),
  recurrence_billing: z.enum(RECURRENCE_BILLING).meta({
    description:
      'How the subscription renews; pix_automatico: the checkout is paid with pix only, and its QR code authorizes the mandate',
  }),
  pix_automatico_offered: z.boolean().meta({
    description:
      'The buyer may pay with pix and `pix_automatico: true` (confirm-sdk): the QR code pays the first period and ' +
      'authorizes a Pix Automático mandate that bills the subscription (a weekly to yearly recurring price, no trial, ' +
      'a new subscription, a gateway that offers it; false for a checkout created as pix_automatico, which needs no ' +
      'choice). Our addition',
  }),
  payment_method: z.string().nullable(),
  gateway_payment_data: gatewayPaymentData,
  decline_reason: z.string().nullable(),
  max_installments: z.number().int().meta({ description: '1 to 12; 1 for recurring prices other than yearly' }),
  no_fees_installments: z.boolean(),
  installment_options: z
    .array(z.object({ installments: z.number().int(), total: z.number().int(), installment_amount: z.number().int() }))
    .meta({
      description:
        'What the buyer pays in each number of installments, interest included (the same rule the gateway applies)',
    }),
  organization: z.object({ name: z.string(), slug: z.string(), avatar_url: z.string().nullable() }),
});
export type PublicCheckout = z.infer<typeof publicCheckoutSchema>;

export const sellerConfigSchema = z.object({
  seller_id: z
    .string()
    .meta({ description: "The organization's seller id at the gateway; send it to transactions/direct" }),
  checkout_id: z.string(),
  currency: z.string(),
  amount: z.number().int(),
  max_installments: z.number().int(),
  no_fees_installments: z.boolean(),
  payment_methods: z.array(z.enum(['credit_card', 'pix', 'boleto'])),
});
