import { brandOf, type SavedCard } from './mercadopago-cards.ts';
import { centsToReais, reaisToCents, reaisToCentsOrZero } from './mercadopago-money.ts';
import { mapPaymentStatus } from './mercadopago-status.ts';
import type {
  BoletoChargeInput,
  BuyerInput,
  CardChargeInput,
  GatewayTransaction,
  PaymentType,
  PixChargeInput,
  RecurringCharge,
  SaleDetails,
} from './port.ts';

/**
 * Our charges as Mercado Pago payment bodies (`POST /v1/payments`) and its payments as our
 * transactions. `external_reference` carries the call's idempotency key, so that
 * findTransactionByIdempotencyKey finds the payment with `GET /v1/payments/search`; our own reference
 * (the checkout id) travels in `metadata.reference`.
 */

/** The fields of a Mercado Pago payment this adapter reads (create, get and search answer them). */
export interface MpPayment {
  id?: number | string;
  status?: string;
  status_detail?: string;
  payment_method_id?: string;
  payment_type_id?: string;
  external_reference?: string;
  metadata?: { reference?: string } | null;
  transaction_amount?: number;
  transaction_amount_refunded?: number;
  /** "List of refunds issued against this payment" (the SDK's PaymentResponse): the panel's too. */
  refunds?: { id?: number | string; amount?: number; status?: string }[] | null;
  currency_id?: string;
  installments?: number;
  captured?: boolean;
  authorization_code?: string | null;
  date_created?: string;
  date_approved?: string | null;
  /** When the payment's money is released to the seller's balance (its release report's DATE then). */
  money_release_date?: string | null;
  date_of_expiration?: string | null;
  payer?: { id?: string | number | null } | null;
  card?: MpCard | null;
  transaction_details?: {
    total_paid_amount?: number;
    digitable_line?: string;
    external_resource_url?: string;
    barcode?: { content?: string };
  };
  point_of_interaction?: { transaction_data?: { qr_code?: string; qr_code_base64?: string; ticket_url?: string } };
  /** A card payment `pending_challenge`: the issuer's 3DS challenge page and its request. */
  three_ds_info?: { external_resource_url?: string; creq?: string } | null;
}

interface MpCard {
  id?: string | null;
  first_six_digits?: string;
  last_four_digits?: string;
  expiration_month?: number;
  expiration_year?: number;
  cardholder?: { name?: string };
}

interface Common {
  notificationUrl: string | null;
  /** The operator's own statement descriptor (MERCADOPAGO_STATEMENT_DESCRIPTOR); else the seller's name. */
  statementDescriptor?: string | null;
}

function base(reference: string, amount: number, key: string, common: Common, sale?: SaleDetails) {
  const descriptor = statementDescriptorOf(common.statementDescriptor || sale?.merchantName);
  const additionalInfo = sale ? additionalInfoOf(sale) : null;
  return {
    transaction_amount: centsToReais(amount),
    external_reference: key,
    metadata: { reference },
    ...(common.notificationUrl ? { notification_url: common.notificationUrl } : {}),
    ...(descriptor ? { statement_descriptor: descriptor } : {}),
    ...(additionalInfo ? { additional_info: additionalInfo } : {}),
  };
}

/**
 * The name on the buyer's card statement. Mercado Pago's guides give it "up to 13 characters" (the
 * Checkout Pro page of mercadopago.com.mx; the .com.br one says 16): the shorter, in plain letters,
 * digits and spaces (accents dropped, anything else a space), so no issuer cuts or refuses it.
 */
export const STATEMENT_DESCRIPTOR_MAX = 13;

export function statementDescriptorOf(name: string | null | undefined): string | null {
  const plain = (name ?? '')
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9 ]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return plain.slice(0, STATEMENT_DESCRIPTOR_MAX).trim() || null;
}

/**
 * `additional_info`: what was sold, the payer's phone and the buyer's IP address, which Mercado Pago's
 * risk analysis weighs to approve more payments (the payments API's "data for fraud prevention";
 * the guides' industry data pages list `items[].id/title/category_id/quantity/unit_price` and
 * `payer.phone.area_code/number`). Null when there is nothing to send.
 */
export function additionalInfoOf(sale: SaleDetails) {
  const info = {
    ...(sale.items?.length
      ? {
          items: sale.items.map((i) => ({
            id: i.id,
            title: i.title,
            quantity: i.quantity,
            unit_price: centsToReais(i.unitPrice),
            ...(i.category ? { category_id: i.category } : {}),
          })),
        }
      : {}),
    ...(sale.payerPhone
      ? { payer: { phone: { area_code: sale.payerPhone.areaCode, number: sale.payerPhone.number } } }
      : {}),
    ...(sale.buyerIp ? { ip_address: sale.buyerIp } : {}),
  };
  return Object.keys(info).length > 0 ? info : null;
}

/**
 * A card payment on a token from Mercado Pago's tokenization; `capture: false` pre-authorizes. A
 * charge the merchant starts without the buyer (a renewal, an extra charge) goes in `binary_mode`:
 * "the payment can only be approved or declined", never left pending (3DS) or in process (manual
 * review), which nobody would be there to complete (decision 0069). With the buyer present, 3-D Secure
 * is offered (`three_d_secure_mode: optional`): the issuer may approve at once or ask for a challenge,
 * which the checkout page shows (decision 0075).
 *
 * What names the card and its payer (decision 0074), as the recurring-charges guide asks:
 * - a browser's token (the buyer present): `payment_method_id` and `issuer_id` as the browser's script
 *   looked them up, and the payer's `email`, name and `identification` ("The minimum required fields
 *   to send are: token, transaction_amount, installments, payment_method_id and payer.email");
 * - a kept card (`saved`): the payer as the customer that keeps it (`type: customer`, its id) and the
 *   card's payment method and issuer; merchant-initiated, with the subscription it bills as
 *   `point_of_interaction` of type SUBSCRIPTIONS, the buyer not present (`user_present: false`).
 */
export function cardPaymentBody(
  input: CardChargeInput & { card: { token: string } },
  key: string,
  common: Common,
  saved?: SavedCard,
) {
  const method = saved?.paymentMethodId
    ? { paymentMethodId: saved.paymentMethodId, issuerId: saved.issuerId }
    : (input.cardMethod ?? null);
  const customerId = saved?.customerId ?? input.buyerId ?? null;
  const payer = {
    ...(input.payer?.email ? payerOf(input.payer) : {}),
    ...(customerId ? { type: 'customer', id: customerId } : {}),
  };
  return {
    ...base(input.reference, input.amount, key, common, input.sale),
    token: input.card.token,
    installments: input.installments,
    capture: input.capture,
    ...(method ? { payment_method_id: method.paymentMethodId } : {}),
    ...(method?.issuerId ? { issuer_id: issuerIdOf(method.issuerId) } : {}),
    ...(input.initiatedBy === 'merchant' ? { binary_mode: true } : { three_d_secure_mode: 'optional' }),
    ...(input.description ? { description: input.description } : {}),
    ...(Object.keys(payer).length > 0 ? { payer } : {}),
    ...(input.initiatedBy === 'merchant' && input.recurring
      ? { point_of_interaction: subscriptionMessaging(input.recurring) }
      : {}),
  };
}

/** The issuer as the reference types it (a number), where it is one. */
const issuerIdOf = (id: string) => (/^\d+$/.test(id) ? Number(id) : id);

const INVOICE_PERIOD = { day: 'daily', week: 'weekly', month: 'monthly', year: 'yearly' } as const;

/**
 * Automatic payments' subscription messaging for a later payment of a subscription ("Subscription
 * messaging", Process subsequent payments): not its first (`first_time_use: false`), its id, the
 * period's number, how often it bills, the billing date, and that the buyer is not there. The first
 * payment's id (`payment_reference`) is not sent: the subscription does not keep it (decision 0074).
 */
export function subscriptionMessaging(r: RecurringCharge) {
  return {
    type: 'SUBSCRIPTIONS',
    transaction_data: {
      first_time_use: false,
      subscription_id: r.subscriptionId,
      subscription_sequence: { number: r.sequence },
      invoice_period: { period: r.intervalCount, type: INVOICE_PERIOD[r.interval] },
      billing_date: r.billingDate,
      user_present: false,
    },
  };
}

/** The device id of Mercado Pago's security script, which its payments API takes as `X-Meli-Session-Id`. */
export function deviceSessionOf(sale: SaleDetails | undefined): { meliSessionId: string } | undefined {
  return sale?.deviceSessionId ? { meliSessionId: sale.deviceSessionId } : undefined;
}

/** Mercado Pago's payer: a CPF has 11 digits, a CNPJ 14. */
export function payerOf(buyer: BuyerInput) {
  const digits = buyer.taxId?.replace(/\D/g, '') ?? '';
  const [firstName, ...rest] = (buyer.name ?? '').trim().split(/\s+/);
  return {
    email: buyer.email,
    ...(firstName ? { first_name: firstName } : {}),
    ...(rest.length > 0 ? { last_name: rest.join(' ') } : {}),
    ...(digits ? { identification: { type: digits.length > 11 ? 'CNPJ' : 'CPF', number: digits } } : {}),
    ...(buyer.address ? { address: payerAddressOf(buyer.address) } : {}),
  };
}

/** `Av. Paulista, 1000 - Bela Vista`: the street, its number and the neighbourhood of a Brazilian address line. */
const ADDRESS_LINE = /^(.+?),\s*(\d+[A-Za-z]?|s\/n)\b\s*(?:[-–,]\s*(.+))?$/i;

/**
 * Our one-line address as Mercado Pago's payer address (a boleto prints it). The line is split as
 * Brazilian addresses are written; one that does not split goes whole as the street, `S/N` (no number)
 * as its number and the city as its neighbourhood, which Mercado Pago accepts.
 */
export function payerAddressOf(a: NonNullable<BuyerInput['address']>) {
  const parts = ADDRESS_LINE.exec(a.line1.trim());
  return {
    zip_code: (a.postal_code ?? '').replace(/\D/g, ''),
    street_name: parts ? parts[1]!.trim() : a.line1.trim(),
    street_number: parts ? parts[2]!.toUpperCase() : 'S/N',
    neighborhood: parts?.[3]?.trim() || a.city,
    city: a.city,
    federal_unit: (a.state ?? '').toUpperCase(),
  };
}

/** `2026-01-31T12:00:00.000+00:00`: the date format Mercado Pago's reference shows (an offset, not `Z`). */
export const mpDateTime = (date: Date) => date.toISOString().replace('Z', '+00:00');

/**
 * A pix's expiry must lie "between 30 minutes and up to 30 days from the date of issue" (Checkout
 * Transparente, receiving payments by Pix), measured on Mercado Pago's clock when the request arrives.
 * The engine asks for as little as a checkout has left (30 minutes at most), measured before the call:
 * so the asked validity is raised to the floor plus a margin for the transit and the clocks' drift, and
 * capped below the ceiling. The answer's date_of_expiration is what the engine then keeps.
 */
export const PIX_EXPIRY_WINDOW = { minMs: 30 * 60_000, maxMs: 30 * 24 * 3600_000, marginMs: 2 * 60_000 };

export function pixExpiry(now: Date, expiresInSeconds: number): Date {
  const { minMs, maxMs, marginMs } = PIX_EXPIRY_WINDOW;
  const asked = expiresInSeconds * 1000;
  return new Date(now.getTime() + Math.min(Math.max(asked, minMs + marginMs), maxMs - marginMs));
}

/** A pix needs the payer's e-mail (and takes their document and name): the page's payer, always sent. */
export function pixPaymentBody(input: PixChargeInput & { buyer: BuyerInput }, key: string, common: Common, now: Date) {
  return {
    ...base(input.reference, input.amount, key, common, input.sale),
    payment_method_id: 'pix',
    date_of_expiration: mpDateTime(pixExpiry(now, input.expiresInSeconds)),
    payer: payerOf(input.buyer),
  };
}

/** Payable until the end of its due date, Brasília time (boletos are Brazilian banking days). */
export function boletoPaymentBody(input: BoletoChargeInput, key: string, common: Common) {
  return {
    ...base(input.reference, input.amount, key, common, input.sale),
    payment_method_id: 'bolbradesco',
    date_of_expiration: `${input.dueDate}T23:59:59.000-03:00`,
    payer: payerOf(input.buyer),
  };
}

function paymentTypeOf(p: MpPayment): PaymentType {
  if (p.payment_method_id === 'pix') return 'pix';
  if (p.payment_type_id === 'ticket' || p.payment_method_id === 'bolbradesco') return 'boleto';
  return 'credit';
}

/** Whole-cent installments that add up to the amount (the first ones carry the remainder). */
export function splitInstallments(amount: number, installments: number): number[] {
  const n = Math.max(1, installments);
  const each = Math.floor(amount / n);
  return Array.from({ length: n }, (_, i) => each + (i < amount - each * n ? 1 : 0));
}

const iso = (value: string | null | undefined) => (value ? new Date(value).toISOString() : null);

function cardOf(p: MpPayment): GatewayTransaction['card'] {
  const card = p.card;
  if (!card?.last_four_digits) return null;
  return {
    id: card.id ?? '',
    brand: brandOf(p.payment_method_id),
    first4: (card.first_six_digits ?? '').slice(0, 4),
    last4: card.last_four_digits,
    holderName: card.cardholder?.name ?? '',
    expirationMonth: String(card.expiration_month ?? '').padStart(2, '0'),
    expirationYear: String(card.expiration_year ?? ''),
  };
}

function pixOf(p: MpPayment): GatewayTransaction['pix'] {
  const data = p.point_of_interaction?.transaction_data;
  if (!data?.qr_code) return null;
  return {
    qrCode: data.qr_code,
    qrCodeImage: `data:image/png;base64,${data.qr_code_base64 ?? ''}`,
    expiresAt: iso(p.date_of_expiration) ?? '',
    // Mercado Pago's own page of the pix (its QR code and instructions), for a buyer away from this page.
    ...(data.ticket_url ? { url: data.ticket_url } : {}),
  };
}

function boletoOf(p: MpPayment): GatewayTransaction['boleto'] {
  const details = p.transaction_details;
  if (!details?.digitable_line && !details?.barcode?.content) return null;
  return {
    barcode: details.barcode?.content ?? '',
    digitableLine: details.digitable_line ?? '',
    dueDate: (p.date_of_expiration ?? '').slice(0, 10),
    url: details.external_resource_url ?? '',
  };
}

/** The payment's refunds that took money back (a refund `rejected` or `cancelled` took none); none: absent. */
function refundsOf(p: MpPayment): GatewayTransaction['refunds'] {
  const refunds = (p.refunds ?? [])
    .filter((r) => r.id !== undefined && r.status !== 'rejected' && r.status !== 'cancelled')
    .map((r) => ({ id: String(r.id), amount: reaisToCentsOrZero(r.amount) }));
  return refunds.length > 0 ? refunds : undefined;
}

/** The challenge of a payment that waits on it; null once it no longer does. */
function threeDsOf(p: MpPayment): GatewayTransaction['threeDs'] {
  const info = p.three_ds_info;
  if (p.status_detail !== 'pending_challenge' || !info?.external_resource_url || !info.creq) return null;
  return { url: info.external_resource_url, creq: info.creq };
}

const CAPTURED = new Set(['approved', 'refunded', 'charged_back', 'in_mediation']);

export function transactionFromPayment(p: MpPayment): GatewayTransaction {
  const paymentType = paymentTypeOf(p);
  const { status, declineReason } = mapPaymentStatus(p.status ?? '', p.status_detail, paymentType);
  const baseAmount = reaisToCents(p.transaction_amount ?? 0);
  const amount = p.transaction_details?.total_paid_amount
    ? reaisToCents(p.transaction_details.total_paid_amount)
    : baseAmount;
  const installments = p.installments ?? 1;
  return {
    id: String(p.id),
    reference: p.metadata?.reference ?? p.external_reference ?? '',
    status,
    paymentType,
    amount,
    baseAmount,
    currency: p.currency_id ?? 'BRL',
    installments,
    installmentAmounts: splitInstallments(amount, installments),
    authorizationCode: p.authorization_code ?? null,
    declineReason,
    card: cardOf(p),
    pix: pixOf(p),
    boleto: boletoOf(p),
    buyerId: p.payer?.id ? String(p.payer.id) : null,
    transactionNumber: String(p.id),
    // What a refund is measured against: Mercado Pago refunds `transaction_amount` (the seller's price),
    // never the buyer's instalment interest in `total_paid_amount` (docs/decisions/0064).
    capturedAmount: CAPTURED.has(p.status ?? '') && p.captured !== false ? baseAmount : 0,
    refundedAmount: reaisToCentsOrZero(p.transaction_amount_refunded),
    refunds: refundsOf(p),
    threeDs: threeDsOf(p),
    createdAt: iso(p.date_created) ?? new Date(0).toISOString(),
    confirmedAt: iso(p.date_approved),
    releaseDate: iso(p.money_release_date),
  };
}
