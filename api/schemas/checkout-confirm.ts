import { z } from 'zod';
import { MANDATE_PERIODICITIES } from '../../domain/pix-automatico.ts';
import { emailAddress, errorBody, nonBlank } from '../../use-cases/schemas/common.ts';
import { billingAddressInput } from '../../use-cases/schemas/customers.ts';

export const confirmSdkParams = z.object({ client_secret: z.string().min(1).max(200) });

const digits = (label: string, pattern: RegExp) => z.string().regex(pattern, `${label} is not valid`);

export const confirmCard = z.strictObject({
  number: digits('number', /^\d{12,19}$/),
  holder_name: nonBlank(200),
  expiration_month: digits('expiration_month', /^(0?[1-9]|1[0-2])$/),
  expiration_year: digits('expiration_year', /^\d{2}(\d{2})?$/),
  cvv: digits('cvv', /^\d{3,4}$/),
  installments: z.number().int().min(1).max(12).default(1),
});

/** A card tokenized in the buyer's browser by the gateway's own script: our server never sees its number. */
export const confirmCardToken = z
  .strictObject({
    token: z
      .string()
      .min(1)
      .max(255)
      .meta({
        description:
          "The single-use token the gateway's browser script made (Mercado Pago: MercadoPago.js createCardToken " +
          "with the seller's public key; the sandbox: the simulated gateway's script, same shape)",
      }),
    installments: z.number().int().min(1).max(12).default(1),
    payment_method_id: z
      .string()
      .regex(/^[a-z0-9_]{1,40}$/, 'payment_method_id is not valid')
      .optional()
      .meta({
        description:
          "The card's payment method as the gateway's browser script found it from the card's BIN (Mercado Pago: " +
          "`getPaymentMethods`' `id`, e.g. `master`), sent with the card's first payment",
      }),
    issuer_id: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,40}$/, 'issuer_id is not valid')
      .optional()
      .meta({ description: "The card's issuer as the gateway's browser script found it (Mercado Pago: `issuer.id`)" }),
    kept_card: z
      .boolean()
      .optional()
      .meta({
        description:
          "True: the token was minted in the buyer's browser from the card the checkout's subscription keeps, with " +
          'the security code the buyer typed again (Mercado Pago: `mp.fields.createCardToken({ cardId })` with a ' +
          "`securityCode` Secure Field; the card's id is the hosted page's). The payment names the card's customer, " +
          'payment method and issuer; 422 `no_kept_card` for a checkout whose subscription keeps no such card',
      }),
  })
  .meta({
    description: 'Instead of card (our addition): the only card a live deployment takes unless it accepts card data',
  });

/** The spec's body; `boleto` and `card_token` are our additions (docs/decisions/0022-checkout-payment-rules.md, 0049-mercado-pago-adapter.md). */
export const confirmSdkBody = z.strictObject({
  payment_method: z.enum(['credit_card', 'pix', 'boleto']),
  customer_email: emailAddress().optional(),
  customer_name: nonBlank(200).optional(),
  customer_tax_id: nonBlank(32).optional(),
  customer_billing_address: billingAddressInput
    .optional()
    .meta({ description: 'Required when the checkout has require_billing_address and none yet (our addition)' }),
  discount_code: nonBlank(100).optional(),
  card: confirmCard.optional().meta({
    description:
      'Card data, tokenized by our server: the sandbox, or a live deployment with ACCEPT_RAW_CARD_DATA_IN_FULL_PCI_SCOPE=true ' +
      '(422 card_data_refused otherwise). Send card or card_token, not both.',
  }),
  card_token: confirmCardToken.optional(),
  pix_automatico: z
    .boolean()
    .optional()
    .meta({
      description:
        'True with payment_method pix: the buyer pays the first period with a QR code that also authorizes a Pix ' +
        'Automático mandate (journey 3), and the subscription is billed through it (our addition, decision 0096). ' +
        'For a checkout with a weekly to yearly recurring price, no trial, that pays no existing subscription, on a ' +
        "gateway that offers Pix Automático (the public checkout's pix_automatico_offered): else 422 " +
        '`pix_automatico_not_allowed` or `pix_automatico_unavailable`; the buyer needs a name and a CPF or CNPJ. ' +
        'With another payment_method, 400. A checkout created with recurrence_billing pix_automatico is paid so ' +
        'whatever this says',
    }),
  device_session_id: z
    .string()
    .regex(/^[\x21-\x7e]{1,500}$/, 'must be 1 to 500 visible ASCII characters')
    .optional()
    .meta({
      description:
        "The device id the gateway's security script gave this browser (Mercado Pago: `MP_DEVICE_SESSION_ID` of " +
        'security.js), sent with the card payment for its risk analysis; gateways without one ignore it (our addition)',
    }),
});
export type ConfirmSdkBody = z.infer<typeof confirmSdkBody>;

export const gatewayPaymentData = z.object({
  transaction_id: z.string(),
  status: z.string(),
  authorization_code: z.string().nullable(),
  installments: z.number().int(),
  pix: z
    .object({
      qr_code: z.string(),
      qr_code_image: z.string(),
      expires_at: z.string(),
      url: z.string().optional().describe("The gateway's own page of this pix, where it has one"),
    })
    .optional(),
  boleto: z
    .object({ barcode: z.string(), digitable_line: z.string(), due_date: z.string(), url: z.string() })
    .optional(),
  three_ds: z
    .object({
      url: z
        .string()
        .describe("The issuer's 3-D Secure challenge page (Mercado Pago's three_ds_info.external_resource_url)"),
      creq: z.string().describe("The challenge request the buyer's browser posts to url, in a frame"),
    })
    .optional()
    .describe("A card payment waiting on the buyer's 3-D Secure challenge (our addition)"),
  review: z
    .object({ until: z.string() })
    .optional()
    .describe(
      'A card payment the gateway is still reviewing (status pending; Mercado Pago: in_process): the checkout ' +
        'waits for its outcome until `until`, then cancels it at the gateway and opens again (our addition)',
    ),
  pix_automatico: z
    .object({
      mandate_id: z.string().describe("The gateway's id of the mandate (the BCB's idRec)"),
      periodicity: z.enum(MANDATE_PERIODICITIES),
      start_date: z.string().describe('YYYY-MM-DD: the estimated day of its first charge after this payment'),
      amount: z.number().int().describe('What each period is expected to cost, in cents'),
    })
    .optional()
    .describe(
      "A Pix Automático checkout (recurrence_billing pix_automatico, our addition): the pix's QR code also " +
        'authorizes this mandate, which the subscription is billed through from then on',
    ),
});

export const confirmSdkResponse = z.object({
  id: z.string(),
  status: z.enum(['open', 'confirmed', 'succeeded', 'failed', 'expired']),
  payment_method: z.string().nullable(),
  amount: z.number().int().describe('The price, after discount, in cents (without installment interest)'),
  installments: z.number().int().describe('1 for pix and boleto'),
  installment_amount: z.number().int().describe('What the buyer pays each month, interest included, in cents'),
  total_amount: z
    .number()
    .int()
    .describe('What the buyer pays in all, installment interest included (the amount charged), in cents'),
  currency: z.string(),
  gateway_payment_data: gatewayPaymentData.nullable(),
  decline_reason: z.string().nullable(),
  customer_id: z
    .string()
    .nullable()
    .describe(
      "The checkout's customer, as its GET shows it: once succeeded the sale's (found or created), before that the " +
        'one the checkout was opened with, if any (our addition)',
    ),
  subscription_id: z
    .string()
    .nullable()
    .describe(
      'Once a recurring price is paid, the subscription the sale started (or the renewal or upgrade checkout’s own); ' +
        'null for a one-time price (our addition)',
    ),
});

/** 422: the usual error body; a declined payment (code payment_declined) adds its reason. The checkout stays open. */
export const paymentDeclinedBody = errorBody.extend({ decline_reason: z.string().optional() });

export const gatewayCallbackBody = z.object({
  id: z.string().min(1).max(200),
  type: z.enum([
    'transaction.updated',
    'invoice.updated',
    'chargeback.updated',
    'card.updated',
    'mandate.updated',
    'mandate_charge.updated',
  ]),
  transactionId: z.string().min(1).optional(),
  invoiceId: z.string().min(1).optional(),
  /** chargeback.updated: the chargeback to read back from the gateway (decision 0072). */
  chargebackId: z.string().min(1).max(200).optional(),
  /** card.updated: the kept card the issuer's card updater replaced, and its replacement (decision 0079). */
  cardId: z.string().min(1).max(200).optional(),
  replacedBy: z.string().min(1).max(200).optional(),
  /** mandate.updated, mandate_charge.updated: the Pix Automático mandate or cycle charge to read back (decision 0096). */
  mandateId: z.string().min(1).max(200).optional(),
  mandateChargeId: z.string().min(1).max(200).optional(),
  status: z.string().min(1),
  occurredAt: z.string(),
});

export const gatewayCallbackResponse = z.object({ received: z.literal(true), duplicate: z.boolean() });
