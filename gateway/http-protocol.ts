import { z } from 'zod';
import type {
  BoletoChargeInput,
  Buyer,
  BuyerInput,
  CardChargeInput,
  CardInput,
  CardToken,
  GatewayInvoice,
  GatewayInvoiceInput,
  GatewaySubscription,
  GatewaySubscriptionInput,
  GatewayTransaction,
  PixChargeInput,
  RecurrencePlan,
  RecurrencePlanInput,
} from './port.ts';

/**
 * The gateway's REST protocol, shared by the HTTP adapter (client) and the simulated-gateway server:
 * the route table, the snake_case wire shapes (zod) and the one explicit camelCase ⇄ snake_case
 * mapping of each shape. A field renamed here is renamed on both sides at once.
 *
 * Conventions: `Authorization: Bearer <api key>` (the key names the seller account, so no seller id
 * travels in paths), `Idempotency-Key` on every POST, JSON bodies, money in integer cents, and
 * errors as `{ error: { type, message } }`.
 */

export const ROUTES = {
  tokenizeCard: { method: 'POST', path: '/v1/cards/tokens' },
  createBuyer: { method: 'POST', path: '/v1/buyers' },
  createTransaction: { method: 'POST', path: '/v1/transactions' },
  /**
   * `GET /v1/transactions?idempotency_key=…`: the transaction a createTransaction call made under
   * that key, as it stands now, in a list of zero or one (`{ data: [...] }`).
   */
  findTransactions: { method: 'GET', path: '/v1/transactions' },
  getTransaction: { method: 'GET', path: '/v1/transactions/:id' },
  captureTransaction: { method: 'POST', path: '/v1/transactions/:id/capture' },
  voidTransaction: { method: 'POST', path: '/v1/transactions/:id/void' },
  refundTransaction: { method: 'POST', path: '/v1/transactions/:id/refunds' },
  createPlan: { method: 'POST', path: '/v1/plans' },
  createSubscription: { method: 'POST', path: '/v1/subscriptions' },
  cancelSubscription: { method: 'POST', path: '/v1/subscriptions/:id/cancel' },
  /** Body `{ plan_id }`: the subscription bills that plan from its next cycle on. */
  changeSubscriptionPlan: { method: 'POST', path: '/v1/subscriptions/:id/plan' },
  createInvoice: { method: 'POST', path: '/v1/invoices' },
  cancelInvoice: { method: 'POST', path: '/v1/invoices/:id/cancel' },
  getInvoice: { method: 'GET', path: '/v1/invoices/:id' },
  listSubscriptionInvoices: { method: 'GET', path: '/v1/subscriptions/:id/invoices' },
  // Controls of the simulated server only (`/v1/_…`); no real gateway has them.
  /** Fault injection for tests. */
  faults: { method: 'POST', path: '/v1/_faults' },
  /** The buyer pays a pending pix or boleto. */
  sandboxPayTransaction: { method: 'POST', path: '/v1/_sandbox/transactions/:id/pay' },
  /** A pending pix or boleto lapses now. */
  sandboxExpireTransaction: { method: 'POST', path: '/v1/_sandbox/transactions/:id/expire' },
  /** The gateway charges a subscription invoice to its card. */
  sandboxPayInvoice: { method: 'POST', path: '/v1/_sandbox/invoices/:id/pay' },
  /** The gateway's charge of a subscription invoice is refused. */
  sandboxFailInvoice: { method: 'POST', path: '/v1/_sandbox/invoices/:id/fail' },
  /** The gateway's recurrence bills a subscription's next (or refused) cycle now. */
  sandboxBillSubscription: { method: 'POST', path: '/v1/_sandbox/subscriptions/:id/bill' },
} as const;

/** Control routes are never subject to injected faults and take no Idempotency-Key. */
export const CONTROL_PREFIX = '/v1/_';

export type RouteName = keyof typeof ROUTES;

/** The concrete path of a route, with its `:id` filled in (escaped: ids come from outside). */
export function routePath(route: RouteName, id?: string): string {
  const { path } = ROUTES[route];
  if (!path.includes(':id')) return path;
  if (id === undefined) throw new Error(`route ${route} needs an id`);
  return path.replace(':id', encodeURIComponent(id));
}

export const IDEMPOTENCY_HEADER = 'idempotency-key';

// ---------------------------------------------------------------------------------------------
// Errors

export const ERROR_TYPES = [
  'invalid_request',
  'unauthorized',
  'not_found',
  'request_refused',
  'rate_limited',
  'internal',
  'unavailable',
] as const;
export type ErrorType = (typeof ERROR_TYPES)[number];

export const wireError = z.object({ error: z.object({ type: z.string(), message: z.string() }) });
export type WireError = z.infer<typeof wireError>;

/** The error type a status is answered with, so a status and its type never disagree. */
export function errorTypeFor(status: number): ErrorType {
  if (status === 400) return 'invalid_request';
  if (status === 401) return 'unauthorized';
  if (status === 404) return 'not_found';
  if (status === 429) return 'rate_limited';
  if (status === 503) return 'unavailable';
  if (status >= 500) return 'internal';
  return 'request_refused';
}

export function errorBody(status: number, message: string): WireError {
  return { error: { type: errorTypeFor(status), message } };
}

// ---------------------------------------------------------------------------------------------
// Shared pieces

const cents = z.number().int().nonnegative();
const positiveCents = z.number().int().positive();
const currency = z.string().min(3).max(3);
const date = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'expected YYYY-MM-DD');
const timestamp = z.string().min(1);
const reference = z.string().min(1).max(255);

// ---------------------------------------------------------------------------------------------
// Cards

export const wireCardInput = z.object({
  number: z.string().min(1).max(32),
  holder_name: z.string().min(1).max(255),
  expiration_month: z.string().min(1).max(2),
  expiration_year: z.string().min(2).max(4),
  cvv: z.string().min(3).max(4),
});
export type WireCardInput = z.infer<typeof wireCardInput>;

export function cardInputToWire(c: CardInput): WireCardInput {
  return {
    number: c.number,
    holder_name: c.holderName,
    expiration_month: c.expirationMonth,
    expiration_year: c.expirationYear,
    cvv: c.cvv,
  };
}

export function cardInputFromWire(w: WireCardInput): CardInput {
  return {
    number: w.number,
    holderName: w.holder_name,
    expirationMonth: w.expiration_month,
    expirationYear: w.expiration_year,
    cvv: w.cvv,
  };
}

export const wireCardToken = z.object({
  id: z.string(),
  brand: z.string(),
  first4: z.string(),
  last4: z.string(),
  holder_name: z.string(),
  expiration_month: z.string(),
  expiration_year: z.string(),
});
export type WireCardToken = z.infer<typeof wireCardToken>;

export function cardTokenToWire(t: CardToken): WireCardToken {
  return {
    id: t.id,
    brand: t.brand,
    first4: t.first4,
    last4: t.last4,
    holder_name: t.holderName,
    expiration_month: t.expirationMonth,
    expiration_year: t.expirationYear,
  };
}

export function cardTokenFromWire(w: WireCardToken): CardToken {
  return {
    id: w.id,
    brand: w.brand,
    first4: w.first4,
    last4: w.last4,
    holderName: w.holder_name,
    expirationMonth: w.expiration_month,
    expirationYear: w.expiration_year,
  };
}

// ---------------------------------------------------------------------------------------------
// Buyers

export const wireBuyerInput = z.object({
  email: z.string().min(3).max(320),
  name: z.string().max(255).nullish(),
  tax_id: z.string().max(32).nullish(),
});
export type WireBuyerInput = z.infer<typeof wireBuyerInput>;

export function buyerInputToWire(b: BuyerInput): WireBuyerInput {
  return { email: b.email, name: b.name ?? null, tax_id: b.taxId ?? null };
}

export function buyerInputFromWire(w: WireBuyerInput): BuyerInput {
  return { email: w.email, name: w.name ?? null, taxId: w.tax_id ?? null };
}

export const wireBuyer = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string().nullable(),
  tax_id: z.string().nullable(),
});
export type WireBuyer = z.infer<typeof wireBuyer>;

export function buyerToWire(b: Buyer): WireBuyer {
  return { id: b.id, email: b.email, name: b.name ?? null, tax_id: b.taxId ?? null };
}

export function buyerFromWire(w: WireBuyer): Buyer {
  return { id: w.id, email: w.email, name: w.name, taxId: w.tax_id };
}

// ---------------------------------------------------------------------------------------------
// Transactions

const transactionStatus = z.enum([
  'new',
  'pending',
  'pre_authorized',
  'succeeded',
  'failed',
  'canceled',
  'reversed',
  'refunded',
  'partial_refunded',
  'dispute',
  'charged_back',
]);
const declineReason = z.enum([
  'card_declined',
  'insufficient_funds',
  'expired_card',
  'incorrect_cvc',
  'do_not_honor',
  'fraud_suspected',
  'invalid_card',
  'expired',
  'overdue',
]);
const paymentType = z.enum(['credit', 'pix', 'boleto']);

export const wireTransaction = z.object({
  id: z.string(),
  reference: z.string(),
  status: transactionStatus,
  payment_type: paymentType,
  amount: cents,
  base_amount: cents,
  currency: z.string(),
  installments: z.number().int(),
  installment_amounts: z.array(cents),
  authorization_code: z.string().nullable(),
  decline_reason: declineReason.nullable(),
  card: wireCardToken.nullable(),
  pix: z.object({ qr_code: z.string(), qr_code_image: z.string(), expires_at: timestamp }).nullable(),
  boleto: z
    .object({ barcode: z.string(), digitable_line: z.string(), due_date: z.string(), url: z.string() })
    .nullable(),
  buyer_id: z.string().nullable(),
  transaction_number: z.string(),
  captured_amount: cents,
  refunded_amount: cents,
  created_at: timestamp,
  confirmed_at: timestamp.nullable(),
});
export type WireTransaction = z.infer<typeof wireTransaction>;

export function transactionToWire(t: GatewayTransaction): WireTransaction {
  return {
    id: t.id,
    reference: t.reference,
    status: t.status,
    payment_type: t.paymentType,
    amount: t.amount,
    base_amount: t.baseAmount,
    currency: t.currency,
    installments: t.installments,
    installment_amounts: t.installmentAmounts,
    authorization_code: t.authorizationCode ?? null,
    decline_reason: t.declineReason ?? null,
    card: t.card ? cardTokenToWire(t.card) : null,
    pix: t.pix ? { qr_code: t.pix.qrCode, qr_code_image: t.pix.qrCodeImage, expires_at: t.pix.expiresAt } : null,
    boleto: t.boleto
      ? {
          barcode: t.boleto.barcode,
          digitable_line: t.boleto.digitableLine,
          due_date: t.boleto.dueDate,
          url: t.boleto.url,
        }
      : null,
    buyer_id: t.buyerId ?? null,
    transaction_number: t.transactionNumber,
    captured_amount: t.capturedAmount,
    refunded_amount: t.refundedAmount,
    created_at: t.createdAt,
    confirmed_at: t.confirmedAt ?? null,
  };
}

export function transactionFromWire(w: WireTransaction): GatewayTransaction {
  return {
    id: w.id,
    reference: w.reference,
    status: w.status,
    paymentType: w.payment_type,
    amount: w.amount,
    baseAmount: w.base_amount,
    currency: w.currency,
    installments: w.installments,
    installmentAmounts: w.installment_amounts,
    authorizationCode: w.authorization_code,
    declineReason: w.decline_reason,
    card: w.card ? cardTokenFromWire(w.card) : null,
    pix: w.pix ? { qrCode: w.pix.qr_code, qrCodeImage: w.pix.qr_code_image, expiresAt: w.pix.expires_at } : null,
    boleto: w.boleto
      ? {
          barcode: w.boleto.barcode,
          digitableLine: w.boleto.digitable_line,
          dueDate: w.boleto.due_date,
          url: w.boleto.url,
        }
      : null,
    buyerId: w.buyer_id,
    transactionNumber: w.transaction_number,
    capturedAmount: w.captured_amount,
    refundedAmount: w.refunded_amount,
    createdAt: w.created_at,
    confirmedAt: w.confirmed_at,
  };
}

/** `POST /v1/transactions`: one resource for the three payment types, told apart by `payment_type`. */
export const wireCreateTransaction = z.discriminatedUnion('payment_type', [
  z.object({
    payment_type: z.literal('credit'),
    reference,
    amount: positiveCents,
    currency,
    installments: z.number().int().min(1).max(12),
    no_fees_installments: z.boolean(),
    card: z.union([z.object({ token: z.string().min(1) }).strict(), wireCardInput.strict()]),
    buyer_id: z.string().min(1).nullish(),
    capture: z.boolean(),
    description: z.string().max(255).nullish(),
  }),
  z.object({
    payment_type: z.literal('pix'),
    reference,
    amount: positiveCents,
    currency,
    buyer: wireBuyerInput.nullish(),
    expires_in_seconds: z.number().int().positive(),
  }),
  z.object({
    payment_type: z.literal('boleto'),
    reference,
    amount: positiveCents,
    currency,
    buyer: wireBuyerInput,
    due_date: date,
  }),
]);
export type WireCreateTransaction = z.infer<typeof wireCreateTransaction>;

export type CreateTransactionInput =
  | { paymentType: 'credit'; input: CardChargeInput }
  | { paymentType: 'pix'; input: PixChargeInput }
  | { paymentType: 'boleto'; input: BoletoChargeInput };

export function createTransactionToWire(c: CreateTransactionInput): WireCreateTransaction {
  switch (c.paymentType) {
    case 'credit': {
      const i = c.input;
      return {
        payment_type: 'credit',
        reference: i.reference,
        amount: i.amount,
        currency: i.currency,
        installments: i.installments,
        no_fees_installments: i.noFeesInstallments,
        card: 'token' in i.card ? { token: i.card.token } : cardInputToWire(i.card),
        buyer_id: i.buyerId ?? null,
        capture: i.capture,
        description: i.description ?? null,
      };
    }
    case 'pix': {
      const i = c.input;
      return {
        payment_type: 'pix',
        reference: i.reference,
        amount: i.amount,
        currency: i.currency,
        buyer: i.buyer ? buyerInputToWire(i.buyer) : null,
        expires_in_seconds: i.expiresInSeconds,
      };
    }
    case 'boleto': {
      const i = c.input;
      return {
        payment_type: 'boleto',
        reference: i.reference,
        amount: i.amount,
        currency: i.currency,
        buyer: buyerInputToWire(i.buyer),
        due_date: i.dueDate,
      };
    }
  }
}

export function createTransactionFromWire(w: WireCreateTransaction): CreateTransactionInput {
  switch (w.payment_type) {
    case 'credit':
      return {
        paymentType: 'credit',
        input: {
          reference: w.reference,
          amount: w.amount,
          currency: w.currency,
          installments: w.installments,
          noFeesInstallments: w.no_fees_installments,
          card: 'token' in w.card ? { token: w.card.token } : cardInputFromWire(w.card),
          buyerId: w.buyer_id ?? null,
          capture: w.capture,
          ...(w.description != null ? { description: w.description } : {}),
        },
      };
    case 'pix':
      return {
        paymentType: 'pix',
        input: {
          reference: w.reference,
          amount: w.amount,
          currency: w.currency,
          buyer: w.buyer ? buyerInputFromWire(w.buyer) : null,
          expiresInSeconds: w.expires_in_seconds,
        },
      };
    case 'boleto':
      return {
        paymentType: 'boleto',
        input: {
          reference: w.reference,
          amount: w.amount,
          currency: w.currency,
          buyer: buyerInputFromWire(w.buyer),
          dueDate: w.due_date,
        },
      };
  }
}

/** The query of `GET /v1/transactions`: the one filter there is, required. */
export const wireTransactionQuery = z.object({ idempotency_key: z.string().min(1).max(255) });
export type WireTransactionQuery = z.infer<typeof wireTransactionQuery>;

/** The answer of `GET /v1/transactions`: an empty list when no call under that key completed. */
export const wireTransactionList = z.object({ data: z.array(wireTransaction).max(1) });
export type WireTransactionList = z.infer<typeof wireTransactionList>;

/** The path and query of the lookup by idempotency key. */
export function transactionQueryPath(idempotencyKey: string): string {
  const query: WireTransactionQuery = { idempotency_key: idempotencyKey };
  return `${ROUTES.findTransactions.path}?${new URLSearchParams(query).toString()}`;
}

/** `POST /v1/transactions/:id/capture`: null captures the whole authorization. */
export const wireCapture = z.object({ amount: positiveCents.nullable() });
export const wireRefund = z.object({ amount: positiveCents });
/** Bodies of actions that take no fields (void, cancel): `{}`. */
export const wireEmpty = z.object({}).strict();

// ---------------------------------------------------------------------------------------------
// Recurrence plans, subscriptions, invoices

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

// ---------------------------------------------------------------------------------------------
// Fault injection (simulated server only)

/** The routes a fault can be aimed at: every route but the controls. */
export const FAULTABLE_ROUTES = (Object.keys(ROUTES) as RouteName[]).filter(
  (name) => !ROUTES[name].path.startsWith(CONTROL_PREFIX),
) as [RouteName, ...RouteName[]];

/**
 * `POST /v1/_faults`: replaces every pending fault with these. Each applies to the next matching
 * calls in order; with `route` (a name of ROUTES, e.g. `createTransaction` for charges), only to
 * that route's calls, so other calls (lookups) go through untouched.
 */
export const wireFaults = z.object({
  /** How many upcoming calls answer `status` without reaching the gateway. */
  fail_next: z.number().int().nonnegative().default(0),
  status: z.number().int().min(400).max(599).default(503),
  /** The next call waits this long before it is handled (a gateway that hangs). */
  delay_ms: z.number().int().nonnegative().default(0),
  /**
   * How many upcoming calls the gateway carries out (a charge is captured) whose answer is then
   * lost: the connection is closed without a response, as when a network drops it.
   */
  drop_answer_next: z.number().int().nonnegative().default(0),
  /** Aims the faults above at one route's calls only. */
  route: z.enum(FAULTABLE_ROUTES).nullish(),
});
export type WireFaults = z.input<typeof wireFaults>;
