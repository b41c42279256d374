import type { RecurrenceBilling, SubscriptionStatus } from './subscriptions.ts';

/**
 * Extra-charge invoices of a subscription (the spec's "Subscription invoice"), shared by the API, the
 * invoice workflow and its activities: who may be invoiced, the dates a request may ask for, the
 * invoice number, the keys of its gateway calls and how a gateway invoice's state reads. No clock
 * here: "now" is an argument.
 */

export const INVOICE_STATUSES = ['pending', 'paid', 'failed', 'voided'] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

/** DESIGN.md's event names of an invoice. */
export type InvoiceEvent = 'invoice.created' | 'invoice.paid' | 'invoice.failed' | 'invoice.voided';

/** The spec's eligible statuses: a subscription that still bills its customer. */
export const INVOICEABLE_STATUSES: readonly SubscriptionStatus[] = ['active', 'trialing', 'unpaid', 'past_due'];

/**
 * Who charges an invoice: `gateway`, its own invoice on the gateway subscription, charged on the
 * gateway's calendar; `manual`, this engine, charging the subscription's kept card with a new payment
 * on the due date (a subscription billed manually: Mercado Pago's, whose recurrence is not used).
 */
export type InvoiceBilling = 'gateway' | 'manual';

/** Who charges a subscription's invoices; null for a Pix Automático one, which takes none (decision 0096). */
export const invoiceBillingOf = (billing: RecurrenceBilling): InvoiceBilling | null =>
  billing === 'pix_automatico' ? null : billing;

/** What decides whether a subscription can take an extra charge. */
export interface InvoiceableSubscription {
  status: SubscriptionStatus;
  recurrenceBilling: RecurrenceBilling;
  gatewaySubscriptionId: string | null;
  cardTokenId: string | null;
}

/** Why a subscription cannot take an extra charge (the 409's detail); null when it can. */
export function notInvoiceable(s: InvoiceableSubscription): string | null {
  if (!INVOICEABLE_STATUSES.includes(s.status)) {
    return `The subscription is ${s.status}; extra charges need it ${INVOICEABLE_STATUSES.join(', ')}`;
  }
  // The rail allows one charge per cycle (the period's), and a pix-paid subscription keeps no card
  // (docs/decisions/0096-pix-automatico.md, "Extra charges").
  if (s.recurrenceBilling === 'pix_automatico') {
    return (
      'The subscription is billed by Pix Automático: its mandate takes one charge per period (the period’s own) ' +
      'and it keeps no card to charge; bill the amount through a checkout, or change its price'
    );
  }
  // The engine charges a manual subscription's invoice to the card it keeps (a pix or boleto buyer has none).
  if (s.recurrenceBilling === 'manual') {
    return s.cardTokenId ? null : 'The subscription is billed manually and has no saved card to charge';
  }
  // The gateway charges the invoice to the card of its own subscription.
  if (!s.gatewaySubscriptionId) return 'The subscription is not billed by the gateway (no gateway_subscription_id)';
  return null;
}

/** The organization's numbering: `<customer_invoice_prefix>-<n>`, n taken from customer_invoice_next_number. */
export const invoiceNumber = (prefix: string, n: number) => `${prefix}-${n}`;

/** One workflow per invoice, for its whole life. */
export const invoiceWorkflowId = (invoiceId: string) => `invoice:${invoiceId}`;
/** The gateway keys of an invoice: derived from its id, so a retried call never makes a second one. */
export const invoiceCreationKey = (invoiceId: string) => `invoice:${invoiceId}:create`;
export const invoiceVoidKey = (invoiceId: string) => `invoice:${invoiceId}:void`;
/**
 * A manual invoice's one charge of the kept card (its capture and void keys beside it, as
 * subscriptionChargeKeys derives them): one per invoice, never per try, so a retry or a lost answer's
 * lookup meets the gateway's first answer.
 */
export const invoiceChargeKey = (invoiceId: string) => `invoice:${invoiceId}:charge`;

/**
 * Brazil's calendar (America/São Paulo, UTC−3 all year since 2019): a due date is a day there, not
 * in UTC, where "today" turns over at 21:00 in Brasília.
 */
const BRAZIL_OFFSET_MS = -3 * 3_600_000;
const DAY_MS = 86_400_000;
export const brazilToday = (now: Date) => new Date(now.getTime() + BRAZIL_OFFSET_MS).toISOString().slice(0, 10);

/** Without an expiration_date the invoice stays payable this long after its due date, then is voided. */
export const DEFAULT_EXPIRATION_DAYS = 30;

/** Refusals of well-formed dates (422), with the field they name. */
export type InvoiceDateError = { code: 'invalid_due_date' | 'invalid_expiration_date'; detail: string };

/** The request's dates against the calendar: never in the past, and expiring no earlier than due. */
export function invoiceDatesError(
  dates: { dueDate: string; expirationDate?: string | null },
  today: string,
): InvoiceDateError | null {
  if (dates.dueDate < today) return { code: 'invalid_due_date', detail: `due_date is before today (${today})` };
  if (dates.expirationDate != null && dates.expirationDate < dates.dueDate) {
    return { code: 'invalid_expiration_date', detail: 'expiration_date is before due_date' };
  }
  return null;
}

/** The invoice's expiration date as stored and answered: the one asked for, else the documented default. */
export function invoiceExpirationDate(dueDate: string, expirationDate: string | null | undefined): string {
  return expirationDate ?? addDays(dueDate, DEFAULT_EXPIRATION_DAYS);
}

/** When a manual invoice's card is charged: the start of its due date in Brazil. */
export const invoiceChargeAt = (dueDate: string): Date =>
  new Date(Date.parse(`${dueDate}T00:00:00Z`) - BRAZIL_OFFSET_MS);

/**
 * When an unpaid invoice is voided: the end of its last payable day in Brazil, which is the
 * expiration date, else DEFAULT_EXPIRATION_DAYS after the due date.
 */
export function invoiceDeadline(dueDate: string, expirationDate: string | null): Date {
  const lastDay = invoiceExpirationDate(dueDate, expirationDate);
  return new Date(Date.parse(`${addDays(lastDay, 1)}T00:00:00Z`) - BRAZIL_OFFSET_MS);
}

const addDays = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);

/**
 * What a gateway invoice's state means for ours. The gateway says `failed` both when its charge was
 * refused (a transaction was made) and when the invoice lapsed unpaid (none was): only the first is
 * our `failed`; a lapse is voided like any invoice unpaid at its deadline.
 */
export function gatewayInvoiceOutcome(invoice: {
  status: 'pending' | 'paid' | 'failed' | 'voided';
  transactionId: string | null;
}): InvoiceStatus | 'lapsed' {
  if (invoice.status === 'failed') return invoice.transactionId ? 'failed' : 'lapsed';
  return invoice.status;
}

/** Refusal types of the invoice workflow's creation Update (the API turns them into its errors). */
export const INVOICE_CREATION_ABANDONED = 'InvoiceCreationAbandoned';

/** How long the gateway has to create the invoice while the request waits; past it nothing is kept. */
export const INVOICE_CREATION_WINDOW_MS = 20_000;
