import { MercadoPagoConfig, MercadoPagoError, Payment, PaymentRefund } from 'mercadopago';
import { readChargeback } from './mercadopago-chargebacks.ts';
import { keepCard, readKeptCard, savedCardOf, tokenFromSavedCard, tokenizeOnServer } from './mercadopago-cards.ts';
import { centsToReais } from './mercadopago-money.ts';
import {
  boletoPaymentBody,
  cardPaymentBody,
  deviceSessionOf,
  pixPaymentBody,
  transactionFromPayment,
  type MpPayment,
} from './mercadopago-payments.ts';
import type { LedgerRow } from '../domain/reconciliation.ts';
import {
  parseReleaseReport,
  reportOf,
  reportPending,
  reportRange,
  rowsIn,
  type ReleaseReportListing,
} from './mercadopago-release-report.ts';
import {
  GatewayError,
  SavedCardRefused,
  type LedgerWindow,
  type BoletoChargeInput,
  type CardChargeInput,
  type CardInput,
  type CardOwner,
  type CardToken,
  type Chargebacks,
  type GatewayChargeback,
  type GatewayTransaction,
  type KeptCardBrowserTokens,
  type PaymentGateway,
  type PixChargeInput,
} from './port.ts';

export interface MercadoPagoOptions {
  accessToken: string;
  /** Per HTTP call; past it the call is a retryable GatewayError (our activity retries, same key). */
  timeoutMs: number;
  /** Where Mercado Pago posts its payment notifications; null: the account's default. */
  notificationUrl: string | null;
  /** The card statement's name (MERCADOPAGO_STATEMENT_DESCRIPTOR); unset: each sale's seller's name. */
  statementDescriptor?: string | null;
  /** Card data typed on our server is tokenized here only when the operator accepts full PCI DSS scope. */
  acceptCardData?: boolean;
  clock?: () => Date;
}

/** A Mercado Pago error with its HTTP status (0: no answer) and its code, for logs and callers. */
export class MercadoPagoGatewayError extends GatewayError {
  readonly status: number;
  readonly code: string;
  constructor(message: string, retryable: boolean, status: number, code: string) {
    super(message, retryable);
    this.status = status;
    this.code = code;
  }
}

/**
 * 429, 423 (the idempotency key is locked by a call in flight), 424, 5xx and no answer at all; and 409,
 * an answer that does not say whether the payment was made: unknown, never a refusal (issue 33).
 */
const RETRYABLE = (status: number) =>
  status === 0 || status === 409 || status === 429 || status === 423 || status === 424 || status >= 500;

const MERCADOPAGO_API = 'https://api.mercadopago.com';

/** A 2xx that does not carry the payment (its id and status) says no more than no answer at all. */
const INCOMPLETE = 'incomplete_answer';

const CARD_DATA_REFUSED =
  'Mercado Pago takes card data only from its browser tokenization (MercadoPago.js with the public key): ' +
  'send the card token; card data on this server needs ACCEPT_RAW_CARD_DATA_IN_FULL_PCI_SCOPE=true';

/**
 * How long Mercado Pago keeps an X-Idempotency-Key's answer. Its pages say only "If the payment has
 * already been created, your information is returned without creating a new payment" (Checkout API,
 * payment flow, "Idempotency") and state no lifetime: 24 hours, the common lifetime of such keys, is
 * assumed (docs/decisions/0067). Until it has passed, an empty search is no proof of a payment never made.
 */
export const MP_IDEMPOTENCY_WINDOW_MS = 24 * 3600_000;

const PIX_NEEDS_EMAIL = "Mercado Pago issues a pix only with the payer's e-mail: send customer_email";

const refusedToNull = (err: unknown): null => {
  if (err instanceof GatewayError && !err.retryable) return null;
  throw err;
};

/**
 * The PaymentGateway over Mercado Pago's payments API, through its official SDK: card payments,
 * pix and boleto, and a card vault (cards kept with a customer). It offers no RecurringBilling:
 * this engine does not use Mercado Pago's recurrence, so recurring prices renew by manual renewals
 * that charge the kept card (recurrence_billing manual).
 *
 * - A MercadoPagoConfig and client per call: the SDK merges each call's `requestOptions` into the
 *   config it was given (sdk-nodejs#481), so a shared one would send a call's idempotency key with
 *   the next. Every write carries our idempotency key as `X-Idempotency-Key`.
 * - The SDK's own retries are off (`maxRetries: 0`) and its timeout is ours: retrying belongs to the
 *   Temporal activity, which repeats the call with the same key, within its own timeouts; the
 *   SDK's default (3 retries, up to 30 s apart, 60 s timeout) would outlast them.
 * - Failures: no answer, 409, 429, 423, 424 and 5xx are retryable; other 4xx are refusals. A create
 *   answered 409 or without its payment is looked up by its key at once (see call).
 */
export class MercadoPagoGateway implements PaymentGateway, Chargebacks, KeptCardBrowserTokens {
  /** Mercado Pago's boleto needs the payer's first and last name and full address, and refuses one without them. */
  readonly boletoPayerRequires = ['address', 'full_name'] as const;
  /** MercadoPago.js' card token pays once: the first payment is charged with it, the card kept afterwards. */
  readonly browserTokensSingleUse = true;
  private readonly options: MercadoPagoOptions;
  private readonly clock: () => Date;
  /** Creates this process sent and got no answer for: when first sent, and how to send again (within the key's window). */
  private readonly creates = new Map<string, { at: number; resend?: () => Promise<MpPayment> }>();

  constructor(options: MercadoPagoOptions) {
    this.options = options;
    this.clock = options.clock ?? (() => new Date());
  }

  /**
   * A kept card (`mpcard:…`, see mercadopago-cards.ts) is charged with a token minted from it for this
   * payment, as its customer; a plain token (the browser's, with its security code) is charged as it
   * is, with its payment method, issuer and payer (decision 0074).
   */
  async chargeCard(input: CardChargeInput, idempotencyKey: string): Promise<GatewayTransaction> {
    if (!('token' in input.card)) throw new GatewayError(CARD_DATA_REFUSED, false);
    const saved = savedCardOf(input.card.token);
    // The browser's token of a kept card, minted with its security code (decision 0078): the card's
    // customer pays, with the card's payment method and issuer, the token charged as it is.
    const mintedFrom = input.keptCardId ? savedCardOf(input.keptCardId) : null;
    const pay = (charged: CardChargeInput & { card: { token: string } }) => {
      const body = cardPaymentBody(charged, idempotencyKey, this.common(), saved ?? mintedFrom ?? undefined);
      return this.#create(body, idempotencyKey, deviceSessionOf(input.sale));
    };
    if (!saved) return pay({ ...input, card: input.card });
    try {
      const token = await tokenFromSavedCard(this, saved, idempotencyKey);
      return await pay({ ...input, card: { token } });
    } catch (err) {
      // A kept card's token (or the payment with it) refused outright, say for its missing security
      // code: the card cannot be charged without its holder, which the subscription's dunning says.
      if (err instanceof GatewayError && !err.retryable) throw new SavedCardRefused(err.message);
      throw err;
    }
  }

  async createPixCharge(input: PixChargeInput, idempotencyKey: string): Promise<GatewayTransaction> {
    const buyer = input.buyer;
    if (!buyer?.email) throw new GatewayError(PIX_NEEDS_EMAIL, false);
    const body = pixPaymentBody({ ...input, buyer }, idempotencyKey, this.common(), this.clock());
    return this.#create(body, idempotencyKey);
  }

  async createBoleto(input: BoletoChargeInput, idempotencyKey: string): Promise<GatewayTransaction> {
    const body = boletoPaymentBody(input, idempotencyKey, this.common());
    return this.#create(body, idempotencyKey);
  }

  /**
   * `POST /v1/payments` under the key. Until it is answered for good (a payment, or a refusal) it is
   * remembered, so that a lookup of its lost answer can send it again by its key.
   */
  async #create(
    body: object,
    idempotencyKey: string,
    requestOptions?: ReturnType<typeof deviceSessionOf>,
  ): Promise<GatewayTransaction> {
    const send = () => this.payments(idempotencyKey).create({ body, requestOptions }) as Promise<MpPayment>;
    const now = this.clock().getTime();
    for (const [key, c] of this.creates) if (now - c.at >= MP_IDEMPOTENCY_WINDOW_MS) this.creates.delete(key);
    this.creates.set(idempotencyKey, { at: this.creates.get(idempotencyKey)?.at ?? now, resend: send });
    try {
      const made = await this.call('POST /v1/payments', send, idempotencyKey);
      this.creates.delete(idempotencyKey);
      return made;
    } catch (err) {
      if (!(err instanceof GatewayError && err.retryable)) this.creates.delete(idempotencyKey);
      throw err;
    }
  }

  /** `PUT /v1/payments/:id` with `capture: true`; an amount below the authorized one captures part. */
  async capture(transactionId: string, amount: number | null, idempotencyKey: string): Promise<GatewayTransaction> {
    const transaction_amount = amount === null ? undefined : centsToReais(amount);
    return this.call(`PUT /v1/payments/${transactionId}`, () =>
      this.payments(idempotencyKey).capture({ id: transactionId, transaction_amount }),
    );
  }

  async cancel(transactionId: string, idempotencyKey: string): Promise<GatewayTransaction> {
    return this.call(`PUT /v1/payments/${transactionId}`, () =>
      this.payments(idempotencyKey).cancel({ id: transactionId }),
    );
  }

  async getTransaction(transactionId: string): Promise<GatewayTransaction | null> {
    try {
      return await this.call(`GET /v1/payments/${transactionId}`, () =>
        this.payments(`get-${transactionId}`).get({ id: transactionId }),
      );
    } catch (err) {
      if (err instanceof MercadoPagoGatewayError && err.status === 404) return null;
      throw err;
    }
  }

  /**
   * `GET /v1/payments/search?external_reference=<key>`: the newest payment a create call made under
   * this key. The search can lag a new payment by minutes (hours, at times): while the key's window is
   * open an empty search proves nothing, so the create is sent again with the same X-Idempotency-Key,
   * which answers the payment the key made (or makes it, once); a create this process never sent cannot
   * be re-sent, and stays unknown (retryable) until the window, counted from its first lookup, has
   * passed. Only then is an empty search "never processed" (docs/decisions/0067).
   */
  async findTransactionByIdempotencyKey(idempotencyKey: string): Promise<GatewayTransaction | null> {
    const search = await this.sdk('GET /v1/payments/search', () =>
      this.payments(`search-${idempotencyKey}`).search({
        options: { external_reference: idempotencyKey, sort: 'date_created', criteria: 'desc' },
      }),
    );
    const [newest] = search.results ?? [];
    if (newest) return transactionFromPayment(newest as MpPayment);
    const now = this.clock().getTime();
    const sent = this.creates.get(idempotencyKey) ?? { at: now };
    if (now - sent.at >= MP_IDEMPOTENCY_WINDOW_MS) return null;
    this.creates.set(idempotencyKey, sent);
    // A create refused outright made no payment, and its key answers the same refusal again.
    if (sent.resend) return this.call('POST /v1/payments', sent.resend).catch((err) => refusedToNull(err));
    throw new MercadoPagoGatewayError(
      `Mercado Pago has no payment under ${idempotencyKey} yet; its search may lag until the key's window passes`,
      true,
      200,
      'search_may_lag',
    );
  }

  /** `POST /v1/payments/:id/refunds` with the amount (a part, or all), then the payment as it stands. */
  async refund(transactionId: string, amount: number, idempotencyKey: string): Promise<GatewayTransaction> {
    await this.sdk(`POST /v1/payments/${transactionId}/refunds`, () =>
      new PaymentRefund(this.config(idempotencyKey)).create({
        payment_id: transactionId,
        body: { amount: centsToReais(amount) },
      }),
    );
    const refunded = await this.getTransaction(transactionId);
    if (!refunded) throw new GatewayError(`Mercado Pago payment ${transactionId} vanished after its refund`, true);
    return refunded;
  }

  /** `GET /v1/chargebacks/:id` and its payment (gateway/mercadopago-chargebacks.ts, decision 0072). */
  async getChargeback(chargebackId: string): Promise<GatewayChargeback | null> {
    return readChargeback(this, chargebackId);
  }

  async tokenizeCard(card: CardInput, idempotencyKey: string, owner?: CardOwner): Promise<CardToken> {
    if (!this.options.acceptCardData) throw new GatewayError(CARD_DATA_REFUSED, false);
    const token = await tokenizeOnServer(this, card, idempotencyKey);
    return keepCard(this, token, owner ?? { email: null, name: card.holderName }, idempotencyKey);
  }

  async keepBrowserCard(browserToken: string, owner: CardOwner, idempotencyKey: string): Promise<CardToken> {
    return keepCard(this, browserToken, owner, idempotencyKey);
  }

  /** Mercado Pago's Card Updater replaces kept cards: the kept card as it stands now (decision 0071). */
  async keptCard(cardTokenId: string): Promise<CardToken | null> {
    return readKeptCard(this, cardTokenId);
  }

  /** MercadoPago.js mints a kept card's token from the customer's card id: `createCardToken({ cardId })`. */
  keptCardBrowserId(cardTokenId: string): string | null {
    return savedCardOf(cardTokenId)?.cardId ?? null;
  }

  /**
   * The release report of `window` (mercadopago-release-report.ts): downloaded and parsed when
   * listed with its file; asked for and answered "not ready" (retryable) otherwise, so that the
   * activity's retries wait for Mercado Pago to build it without asking twice.
   */
  async ledger(window: LedgerWindow): Promise<LedgerRow[]> {
    const list = (await this.api('GET', '/v1/account/release_report/list')) as ReleaseReportListing[];
    const listed = reportOf(Array.isArray(list) ? list : [], window);
    if (!listed) {
      await this.api('POST', '/v1/account/release_report', reportRange(window));
      throw reportPending(window);
    }
    if (!listed.file_name) throw reportPending(window);
    const csv = await this.api('GET', `/v1/account/release_report/${encodeURIComponent(listed.file_name)}`);
    return rowsIn(parseReleaseReport(String(csv)), window);
  }

  /** A call the SDK has no client for, with its token and timeout; JSON answered as parsed, else as text. */
  private async api(method: 'GET' | 'POST', path: string, body?: object): Promise<unknown> {
    let response: Response;
    try {
      response = await fetch(`${MERCADOPAGO_API}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${this.options.accessToken}`,
          ...(body ? { 'content-type': 'application/json' } : {}),
        },
        body: body ? JSON.stringify(body) : undefined,
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
    } catch (err) {
      throw new MercadoPagoGatewayError(
        `Mercado Pago ${method} ${path}: ${(err as Error).message}`,
        true,
        0,
        'connection_error',
      );
    }
    const text = await response.text();
    if (!response.ok) {
      const detail = `Mercado Pago ${method} ${path} answered ${response.status}: ${text.slice(0, 200)}`;
      throw new MercadoPagoGatewayError(detail, RETRYABLE(response.status), response.status, 'http_error');
    }
    return (response.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text;
  }

  private common() {
    return { notificationUrl: this.options.notificationUrl, statementDescriptor: this.options.statementDescriptor };
  }

  /** A config of this call's own (never shared: the SDK writes each call's options into it). */
  config(idempotencyKey: string): MercadoPagoConfig {
    return new MercadoPagoConfig({
      accessToken: this.options.accessToken,
      options: { timeout: this.options.timeoutMs, maxRetries: 0, idempotencyKey },
    });
  }

  private payments(idempotencyKey: string): Payment {
    return new Payment(this.config(idempotencyKey));
  }

  /**
   * One call answered with a payment. An answer that does not say whether the payment was made (409,
   * or a 2xx without the payment) is unknown: retryable, never a refusal. A create (`createdBy`, its
   * key) in that case is looked up by its key at once, as a lost answer is: the payment the key made,
   * else the retryable error, so the caller asks again with the same key and, that failing, resolves
   * it by the key (the checkout's lookup and late-arrival check).
   */
  private async call(what: string, run: () => Promise<MpPayment>, createdBy?: string): Promise<GatewayTransaction> {
    try {
      const answer = await this.sdk(what, run);
      if (answer?.id === undefined || answer.id === null || !answer.status) {
        throw new MercadoPagoGatewayError(`Mercado Pago ${what} answered without the payment`, true, 200, INCOMPLETE);
      }
      return transactionFromPayment(answer);
    } catch (err) {
      const ambiguous = err instanceof MercadoPagoGatewayError && (err.status === 409 || err.code === INCOMPLETE);
      if (createdBy === undefined || !ambiguous) throw err;
      const made = await this.findTransactionByIdempotencyKey(createdBy).catch(() => null);
      if (made) return made;
      throw err;
    }
  }

  /** One SDK call, its errors as GatewayErrors. */
  async sdk<T>(what: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      if (!(err instanceof MercadoPagoError)) {
        throw new MercadoPagoGatewayError(
          `Mercado Pago ${what}: ${(err as Error).message}`,
          true,
          0,
          'connection_error',
        );
      }
      const causes = (err.causes as { description?: string }[]).map((c) => c?.description).filter(Boolean);
      const detail = [err.message, ...causes].join('; ');
      const answered = err.status === 0 ? 'got no answer' : `answered ${err.status}`;
      throw new MercadoPagoGatewayError(
        `Mercado Pago ${what} ${answered}: ${detail}`,
        RETRYABLE(err.status),
        err.status,
        err.error,
      );
    }
  }
}
