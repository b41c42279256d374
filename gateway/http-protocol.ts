import { z } from 'zod';

/**
 * The gateway's REST protocol, shared by the HTTP adapter (client) and the simulated-gateway server:
 * the route table, the errors and the fault controls here; the snake_case wire shapes (zod) and
 * their camelCase ⇄ snake_case mappings by resource in http-cards.ts, http-buyers.ts,
 * http-transactions.ts, http-charges.ts, http-recurrence.ts and http-pix-automatico.ts (its sandbox; Pix
 * Automático itself speaks the BCB's API, gateway/bcb-pix-automatico*.ts). A field renamed there is
 * renamed on both sides at once.
 *
 * Conventions: `Authorization: Bearer <api key>` (the key names the seller account, so no seller id
 * travels in paths), `Idempotency-Key` on every POST, JSON bodies, money in integer cents, and
 * errors as `{ error: { type, message } }`.
 */

export const ROUTES = {
  tokenizeCard: { method: 'POST', path: '/v1/cards/tokens' },
  /** A card token as the gateway keeps it (a browser's token, made by its sandbox tokenization endpoint). */
  getCardToken: { method: 'GET', path: '/v1/cards/tokens/:id' },
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
  /** `?from=…&to=…`: the money the gateway moved in that window (gateway/http-ledger.ts). */
  ledger: { method: 'GET', path: '/v1/ledger' },
  /** A chargeback of one of the gateway's payments (gateway/http-disputes.ts). */
  getChargeback: { method: 'GET', path: '/v1/chargebacks/:id' },
  /**
   * Pix Automático in the BCB's Pix API (bacen/pix-api openapi.yaml 2.9; gateway/bcb-pix-automatico*.ts):
   * a QR code's location, journey 3's first charge, the mandate (`rec`), journey 1's request to the
   * payer's bank (`solicrec`).
   */
  createMandateLocation: { method: 'POST', path: '/v2/locrec' },
  /** Journey 3's immediate charge (`cob`), its txid chosen by the receiver: the first period's pix. */
  createFirstCharge: { method: 'PUT', path: '/v2/cob/:id' },
  /** Journey 4's due-date charge (`cobv`), its txid chosen by the receiver: the renewal's pix. */
  createDueCharge: { method: 'PUT', path: '/v2/cobv/:id' },
  createMandate: { method: 'POST', path: '/v2/rec' },
  getMandate: { method: 'GET', path: '/v2/rec/:id' },
  /** Body `{ status: "CANCELADA" }`: the receiver cancels the mandate (and its charges not settled yet). */
  cancelMandate: { method: 'PATCH', path: '/v2/rec/:id' },
  sendMandateRequest: { method: 'POST', path: '/v2/solicrec' },
  /** A cycle's charge under a mandate (`cobr`), its txid chosen by the receiver. */
  createMandateCharge: { method: 'PUT', path: '/v2/cobr/:id' },
  getMandateCharge: { method: 'GET', path: '/v2/cobr/:id' },
  /** A later-day retry of a charge whose last attempt failed, settling on `:data` (YYYY-MM-DD). */
  retryMandateCharge: { method: 'POST', path: '/v2/cobr/:id/retentativa/:data' },
  /** Body `{ status: "CANCELADA" }`. */
  cancelMandateCharge: { method: 'PATCH', path: '/v2/cobr/:id' },
  /**
   * A refund of a received pix (a paid cobr's attempt), the BCB's devolução: `:id` the pix's end-to-end
   * id, `:data` the refund's id (the receiver's). PUT with DevolucaoSolicitada; both answer a Devolucao.
   */
  refundPix: { method: 'PUT', path: '/v2/pix/:id/devolucao/:data' },
  getPixRefund: { method: 'GET', path: '/v2/pix/:id/devolucao/:data' },
  /** Body `{ webhookUrl }`: the BCB's notices of recs (`<url>/rec`) and of cobrs (`<url>/cobr`). */
  setMandateWebhook: { method: 'PUT', path: '/v2/webhookrec' },
  setMandateChargeWebhook: { method: 'PUT', path: '/v2/webhookcobr' },
  // Controls of the simulated server only (`/v1/_…`); no real gateway has them.
  /** Fault injection for tests. */
  faults: { method: 'POST', path: '/v1/_faults' },
  /** The buyer pays a pending pix or boleto. */
  sandboxPayTransaction: { method: 'POST', path: '/v1/_sandbox/transactions/:id/pay' },
  /** A pending pix or boleto lapses now. */
  sandboxExpireTransaction: { method: 'POST', path: '/v1/_sandbox/transactions/:id/expire' },
  /** A card charge held for review (a test card's) ends its review. */
  sandboxEndReview: { method: 'POST', path: '/v1/_sandbox/transactions/:id/end-review' },
  /** The gateway charges a subscription invoice to its card. */
  sandboxPayInvoice: { method: 'POST', path: '/v1/_sandbox/invoices/:id/pay' },
  /** The gateway's charge of a subscription invoice is refused. */
  sandboxFailInvoice: { method: 'POST', path: '/v1/_sandbox/invoices/:id/fail' },
  /** The gateway's recurrence bills a subscription's next (or refused) cycle now. */
  sandboxBillSubscription: { method: 'POST', path: '/v1/_sandbox/subscriptions/:id/bill' },
  /** Body `{ cycle, idempotency_key }`: the recurrence bills that cycle now, once per key (a test clock's). */
  sandboxBillCycle: { method: 'POST', path: '/v1/_sandbox/subscriptions/:id/cycles' },
  /** Body `{ amount? }`: the buyer's bank disputes a card payment (a chargeback opens). */
  sandboxOpenChargeback: { method: 'POST', path: '/v1/_sandbox/transactions/:id/chargebacks' },
  /** Body `{ outcome }`: the card network decides an open chargeback, won or lost. */
  sandboxDecideChargeback: { method: 'POST', path: '/v1/_sandbox/chargebacks/:id/decide' },
  /** Body `{ last4, expiration_month, expiration_year }`: the card updater replaces a kept card. */
  sandboxUpdateCard: { method: 'POST', path: '/v1/_sandbox/cards/tokens/:id/update' },
  /** Body `{ persona }`: the payer answers the mandate as that persona does (journey 3: pays its first charge). */
  sandboxAuthorizeMandate: { method: 'POST', path: '/v1/_sandbox/mandates/:id/authorize' },
  /** The payer revokes the mandate in their bank's app. */
  sandboxRevokeMandate: { method: 'POST', path: '/v1/_sandbox/mandates/:id/revoke' },
  /** Body `{ maximum }`: the payer's maximum per charge (null: none). */
  sandboxSetPayerMaximum: { method: 'POST', path: '/v1/_sandbox/mandates/:id/payer-maximum' },
  /** Body `{ as_of }`: the payer's bank settles every attempt due on or before that day (`{ items }`: the charges changed). */
  sandboxSettleMandateCharges: { method: 'POST', path: '/v1/_sandbox/mandate-charges/settle' },
} as const;

/** Control routes are never subject to injected faults and take no Idempotency-Key. */
export const CONTROL_PREFIX = '/v1/_';

export type RouteName = keyof typeof ROUTES;

/** The concrete path of a route, with its `:id` (and `:data`) filled in (escaped: ids come from outside). */
export function routePath(route: RouteName, id?: string, data?: string): string {
  const { path } = ROUTES[route];
  if (!path.includes(':id')) return path;
  if (id === undefined) throw new Error(`route ${route} needs an id`);
  const filled = path.replace(':id', encodeURIComponent(id));
  if (!filled.includes(':data')) return filled;
  if (data === undefined) throw new Error(`route ${route} needs its :data`);
  return filled.replace(':data', encodeURIComponent(data));
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
  /**
   * How long the lookup by key lags a new transaction, as Mercado Pago's payment search does: one
   * younger than this is answered 503 (`search_may_lag`), never an empty list. 0: no lag. Not aimed.
   */
  search_lag_ms: z.number().int().nonnegative().default(0),
  /**
   * Pix Automático's notices of each change come in reverse order and twice (under new ids), until
   * the next `POST /v1/_faults`. Not aimed.
   */
  mandate_notices_twice_reversed: z.boolean().default(false),
  /** Aims the faults above at one route's calls only. */
  route: z.enum(FAULTABLE_ROUTES).nullish(),
});
export type WireFaults = z.input<typeof wireFaults>;
