import { afterAll, beforeAll } from '@jest/globals';
import { createHmac, randomUUID } from 'node:crypto';
import { fetch as undiciFetch, getGlobalDispatcher, MockAgent, setGlobalDispatcher, type Dispatcher } from 'undici';
import type { MpPayment } from '../../gateway/mercadopago-payments.ts';
import type { CardChargeInput } from '../../gateway/port.ts';
import { FakeReleaseReports } from './mercadopago-fake-release-report.ts';
import { MP, signedNotice } from './mercadopago-mock.ts';

/**
 * A stateful stand-in for Mercado Pago's payments, customers and card tokens, answering the SDK
 * through an undici MockAgent (no network), for tests that run whole workflows on the adapter: it
 * keeps payments, honours X-Idempotency-Key as Mercado Pago does (the same key answers the first
 * result), approves a card unless its holder is `OTHE` (refused) or `CONT` (`in_process`, its review
 * ended by `approve` or `reject`, as the test cards' holders do at Mercado Pago), leaves pix and boleto
 * pending until the test pays them, cancels only a payment that is `pending`, `in_process` or
 * `authorized` (else 400, cause 2018, as the cancellation reference says), and records every request. Shapes follow test/fixtures/mercadopago (the API reference).
 * Where the reference sets a rule, the fake keeps it (decision 0066): a pix needs the payer's e-mail and
 * an expiry 30 minutes to 30 days ahead of its own clock (`arrivalMs` ahead of the caller's: the transit);
 * a boleto the payer's first and last name and a full address; a second customer of an e-mail is refused
 * with the customers API's error 101, and `raceCustomer` makes another caller create one just after a search.
 */
export interface FakeRequest {
  method: string;
  path: string;
  key: string | null;
  body: Record<string, any> | null;
  /** The request's headers, lower-cased (X-Meli-Session-Id, the device id, among them). */
  headers: Record<string, string>;
}

type Reply = { statusCode: number; data: object | string };

/** The holder name of the fake's card whose issuer requires 3-D Secure, and its challenge page. */
export const CHALLENGE_HOLDER = '3DSC';
export const CHALLENGE_URL = 'https://acs.issuer.example/3ds/challenge';

/** The fake account's instalment rates (% of the amount, by instalments), as its installments plans list them. */
const INSTALMENT_RATES: Readonly<Record<number, number>> = { 2: 4.49, 3: 5.99, 4: 7.49, 5: 8.99, 6: 10.49 };

export class FakeMercadoPago {
  readonly requests: FakeRequest[] = [];
  readonly payments = new Map<string, MpPayment & Record<string, any>>();
  /** The account's release reports, built from `payments` (mercadopago-fake-release-report.ts). */
  readonly releaseReports = new FakeReleaseReports(this.payments);
  private readonly answered = new Map<string, Reply>();
  /**
   * Card tokens: a browser's (MercadoPago.js with the card's data, its security code in it), or one minted
   * from a kept card (`customerId`), with its security code (`cvv`, the buyer's browser) or without (our server).
   */
  private readonly tokens = new Map<string, { customerId?: string; cardId?: string; holder: string; cvv: boolean }>();
  private readonly customers = new Map<string, { id: string; email: string }>();
  private readonly racing = new Set<string>();
  /**
   * Ids as Mercado Pago's (numbers of ten digits), each fake from its own range: the test files of a run
   * share one database, where a payment id met twice would be the same transaction.
   */
  private next = 7_000_000_000 + Math.floor(Math.random() * 1_000_000) * 1_000;
  /** How much later than the caller's clock a request reaches the fake (its clock reads the pix window). */
  arrivalMs = 1_500;

  /** Another caller creates this e-mail's customer just after the next search for it (which misses it). */
  raceCustomer(email: string): void {
    this.racing.add(email);
  }

  /**
   * How long a new payment stays out of `/v1/payments/search` (Mercado Pago's search lags new payments
   * by minutes, at times hours); `GET /v1/payments/:id` and a create re-sent with its key answer it at once.
   */
  searchLagMs = 0;

  /** Creates whose answer is lost on the way back (a 504 from the path between us), payment made or not. */
  private lostCreateAnswers = 0;

  /** The next `n` `POST /v1/payments` (re-sends under the same key included) do their work, and their answer is lost. */
  loseNextCreateAnswers(n: number): void {
    this.lostCreateAnswers += n;
  }

  /** The next create answers 409 although it made the payment (see answerNextCreateWith). */
  private ambiguousCreates: number[] = [];

  /**
   * The next `POST /v1/payments` makes its payment (the key's later calls answer it, as Mercado Pago's
   * idempotency does) but this once answers `status`: an answer that does not say whether it was made.
   */
  answerNextCreateWith(status: number): void {
    this.ambiguousCreates.push(status);
  }

  /**
   * The account is not enabled for automatic payments (payments without CVV): a token minted from a kept
   * card without its security code is refused even for a merchant-initiated recurring charge, 400, cause
   * 3031 (https://www.mercadopago.com.br/developers/en/support/37020). Off, such a token pays only as a
   * merchant-initiated recurring charge (see cardRefusal).
   */
  refuseKeptCardTokens = false;

  /**
   * The buyer answered the issuer's 3-D Secure challenge of a `pending_challenge` payment (a card whose
   * holder is `3DSC`): Mercado Pago approves it (or, `passed: false`, rejects it as cc_rejected_3ds_challenge).
   */
  completeChallenge(paymentId: string, passed = true): void {
    const p = this.payments.get(paymentId)!;
    if (p.status_detail !== 'pending_challenge') throw new Error(`Payment ${paymentId} awaits no challenge`);
    Object.assign(
      p,
      passed
        ? {
            status: 'approved',
            status_detail: 'accredited',
            captured: true,
            authorization_code: '301299',
            date_approved: new Date().toISOString(),
          }
        : { status: 'rejected', status_detail: 'cc_rejected_3ds_challenge' },
      { three_ds_info: null },
    );
  }

  /**
   * Mercado Pago's review of a card payment (`in_process`) ends approved; also one the seller cancelled a
   * moment before, the issuer's approval having crossed the cancellation (the engine must give it back).
   */
  approve(paymentId: string): void {
    const p = this.payments.get(paymentId)!;
    Object.assign(p, {
      status: 'approved',
      status_detail: 'accredited',
      captured: true,
      authorization_code: '301300',
      date_approved: new Date().toISOString(),
    });
  }

  /** Mercado Pago's review of a card payment ends refused (by default for its risk, as a manual review refuses). */
  reject(paymentId: string, detail = 'cc_rejected_high_risk'): void {
    Object.assign(this.payments.get(paymentId)!, { status: 'rejected', status_detail: detail, captured: false });
  }

  /** The buyer paid a pending pix or boleto (at their bank). */
  pay(paymentId: string): void {
    const p = this.payments.get(paymentId)!;
    Object.assign(p, { status: 'approved', status_detail: 'accredited', date_approved: new Date().toISOString() });
  }

  /**
   * The seller refunds the payment in Mercado Pago's panel (all that is left, or `amount` reais):
   * the payment shows it in `refunds[]` and `transaction_amount_refunded`, and Mercado Pago sends a
   * `payment` notice (paymentNotice). Returns the refund's id.
   */
  refundAtPanel(paymentId: string, amount?: number): string {
    const refund = this.refundPayment(paymentId, amount, 'admin');
    if (!refund) throw new Error(`The fake cannot refund ${amount} of payment ${paymentId}`);
    return String(refund.id);
  }

  /**
   * A refund, measured against transaction_amount (what the seller charged), never the buyer's total
   * with instalment interest (total_paid_amount); more than is left is refused (null). Listed in the
   * payment's `refunds[]`, as the API reference's payment shows them.
   */
  private refundPayment(paymentId: string, reais: number | undefined, source: string) {
    const p = this.payments.get(paymentId)!;
    const left = Math.round((p.transaction_amount! - (p.transaction_amount_refunded ?? 0)) * 100) / 100;
    const amount = reais ?? left;
    if (amount > left) return null;
    p.transaction_amount_refunded = Math.round(((p.transaction_amount_refunded ?? 0) + amount) * 100) / 100;
    if (p.transaction_amount_refunded >= p.transaction_amount!)
      Object.assign(p, { status: 'refunded', status_detail: 'refunded' });
    else p.status_detail = 'partially_refunded';
    const refund = {
      id: this.next++,
      payment_id: Number(p.id),
      amount,
      status: 'approved',
      source: { id: '1284876322', name: 'seller', type: source },
      date_created: new Date().toISOString(),
    };
    p.refunds = [...(p.refunds ?? []), refund];
    return refund;
  }

  /**
   * Card Updater gives a customer's kept card a new card_id (the issuer replaced the card): the old id
   * is no longer kept, the new one is, and Mercado Pago sends `card.updated` (cardUpdatedNotice). Returns
   * the new card_id.
   */
  replaceCard(customerId: string, oldCardId: string): string {
    const saved = this.tokens.get(`saved:${oldCardId}`)!;
    const newCardId = `card${this.next++}`;
    this.tokens.delete(`saved:${oldCardId}`);
    this.tokens.set(`saved:${newCardId}`, { holder: saved.holder, customerId, cvv: false });
    return newCardId;
  }

  /** Chargebacks by id, shaped as the chargebacks API reference's resource (no `status`: see decideChargeback). */
  readonly chargebacks = new Map<string, Record<string, any>>();

  /**
   * The buyer's bank disputes the payment (all of it, or `amount` reais): Mercado Pago opens a
   * chargeback, the payment shows `charged_back` / `in_process`, and a `chargebacks` notice follows
   * (chargebackNotice). Returns the chargeback's id.
   */
  openChargeback(paymentId: string, amount?: number): string {
    const p = this.payments.get(paymentId)!;
    const id = String(this.next++);
    const now = new Date().toISOString();
    this.chargebacks.set(id, {
      id,
      payments: [Number(p.id)],
      currency: p.currency_id ?? 'BRL',
      amount: amount ?? p.transaction_amount,
      coverage_applied: false,
      coverage_elegible: true,
      documentation_required: true,
      documentation_status: 'pending',
      documentation: [],
      date_documentation_deadline: new Date(Date.now() + 7 * 86_400_000).toISOString(),
      date_created: now,
      date_last_updated: now,
      live_mode: false,
    });
    Object.assign(p, { status: 'charged_back', status_detail: 'in_process' });
    return id;
  }

  /**
   * The card network decides: `won` covers the seller (`coverage_applied`, the payment `reimbursed`),
   * `lost` gives the money to the buyer (the documentation refused, the payment `settled`).
   */
  decideChargeback(id: string, outcome: 'won' | 'lost'): void {
    const c = this.chargebacks.get(id)!;
    const p = this.payments.get(String(c.payments[0]))!;
    const won = outcome === 'won';
    Object.assign(c, {
      coverage_applied: won,
      documentation_status: won ? 'valid' : 'invalid',
      date_last_updated: new Date().toISOString(),
    });
    Object.assign(p, { status: 'charged_back', status_detail: won ? 'reimbursed' : 'settled' });
  }

  /** A browser's single-use token, as MercadoPago.js makes it with the public key. */
  browserToken(holder = 'APRO'): string {
    const id = `tok${this.next++}`;
    this.tokens.set(id, { holder, cvv: true });
    return id;
  }

  /**
   * The adapter's input for a buyer's card payment of `amount` cents under `reference`, captured: the
   * browser's token (holder APRO), its payment method and issuer as MercadoPago.js finds them, the payer.
   */
  cardCharge(reference: string, amount: number, installments = 1): CardChargeInput {
    return {
      reference,
      amount,
      currency: 'BRL',
      installments,
      noFeesInstallments: installments > 1,
      capture: true,
      card: { token: this.browserToken() },
      cardMethod: { paymentMethodId: 'master', issuerId: '24' },
      payer: { email: 'ana@example.com', name: 'Ana Souza' },
    };
  }

  /** confirm-sdk's `card_token`: the browser's token with the payment method and issuer its script found by BIN. */
  cardToken(holder = 'APRO'): { token: string; payment_method_id: string; issuer_id: string } {
    return { token: this.browserToken(holder), payment_method_id: 'master', issuer_id: '24' };
  }

  /**
   * A token minted in the buyer's browser from a kept card (MercadoPago.js `createCardToken({ cardId,
   * securityCode })`): with the security code the buyer typed, or, without one, as our server mints it.
   */
  keptCardToken(cardId: string, securityCode?: string): string {
    const saved = this.tokens.get(`saved:${cardId}`);
    if (!saved) throw new Error(`The fake keeps no card ${cardId}`);
    const id = `tok${this.next++}`;
    this.tokens.set(id, { holder: saved.holder, customerId: saved.customerId, cvv: Boolean(securityCode) });
    return id;
  }

  handle(
    method: string,
    url: string,
    key: string | null,
    body: Record<string, any> | null,
    headers: Record<string, string> = {},
  ): Reply {
    this.requests.push({ method, path: url, key, body, headers });
    const once = key && method !== 'GET' ? `${method} ${url.split('?')[0]} ${key}` : null;
    const repeated = once ? this.answered.get(once) : undefined;
    const reply = repeated ?? this.route(method, new URL(url, MP), body ?? {});
    if (once && reply.statusCode < 500) this.answered.set(once, reply);
    if (method === 'POST' && url === '/v1/payments' && this.lostCreateAnswers > 0) {
      this.lostCreateAnswers -= 1;
      return { statusCode: 504, data: { message: 'Gateway Timeout', error: 'gateway_timeout', status: 504 } };
    }
    if (repeated) return repeated;
    const ambiguous = method === 'POST' && url === '/v1/payments' ? this.ambiguousCreates.shift() : undefined;
    if (ambiguous)
      return { statusCode: ambiguous, data: { message: 'Conflict', error: 'conflict', status: ambiguous } };
    return reply;
  }

  private route(method: string, url: URL, body: Record<string, any>): Reply {
    const path = url.pathname;
    const ok = (data: object, statusCode = 200) => ({ statusCode, data });
    let m: RegExpExecArray | null;
    const report = this.releaseReports.route(method, path, body);
    if (report) return report;
    if (method === 'GET' && path === '/v1/customers/search') {
      const email = url.searchParams.get('email') ?? '';
      const found = [...this.customers.values()].filter((c) => c.email === email);
      if (this.racing.delete(email)) this.addCustomer(email);
      return ok({ paging: { total: found.length }, results: found });
    }
    if (method === 'POST' && path === '/v1/customers') {
      if ([...this.customers.values()].some((c) => c.email === body.email)) {
        return refused('the customer already exist.', '101');
      }
      return ok(this.addCustomer(body.email), 201);
    }
    if (method === 'POST' && (m = /^\/v1\/customers\/([^/]+)\/cards$/.exec(path))) {
      const token = this.tokens.get(body.token);
      if (this.refusedKeeping > 0) {
        this.refusedKeeping -= 1;
        return refused('invalid parameter card token', '2006');
      }
      if (!token || token.cardId)
        return ok({ message: 'Card Token not found', error: 'bad_request', status: 400, cause: [] }, 400);
      token.cardId = `card${this.next++}`;
      this.tokens.set(`saved:${token.cardId}`, { holder: token.holder, customerId: m[1], cvv: false });
      return ok({ ...this.cardOf(token.holder), id: token.cardId, customer_id: m[1], issuer: { id: 24 } }, 201);
    }
    if (method === 'GET' && (m = /^\/v1\/customers\/([^/]+)\/cards\/([^/]+)$/.exec(path))) {
      const saved = this.tokens.get(`saved:${m[2]}`);
      if (!saved || saved.customerId !== m[1]) {
        return ok({ message: 'not found', error: 'not_found', status: 404, cause: [] }, 404);
      }
      return ok({ ...this.cardOf(saved.holder), id: m[2], customer_id: m[1], issuer: { id: 24 } });
    }
    if (method === 'POST' && path === '/v1/card_tokens') {
      const saved = this.tokens.get(`saved:${body.card_id}`);
      if (!saved) return ok({ message: 'not found', error: 'not_found', status: 404, cause: [] }, 404);
      const id = `tok${this.next++}`;
      const cvv = Boolean(body.security_code);
      this.tokens.set(id, { holder: saved.holder, customerId: saved.customerId, cvv });
      return ok({ id, card_id: body.card_id, status: 'active' }, 201);
    }
    if (method === 'POST' && path === '/v1/payments') {
      const cardRefusal = this.cardRefusal(body);
      if (cardRefusal) return cardRefusal;
      const refusal = this.payerRefusal(body);
      return refusal ?? ok(this.createPayment(body), 201);
    }
    if (method === 'GET' && path === '/v1/payments/search') {
      const indexed = Date.now() - this.searchLagMs;
      const found = [...this.payments.values()].filter(
        (p) =>
          p.external_reference === url.searchParams.get('external_reference') && Date.parse(p.date_created!) <= indexed,
      );
      return ok({ paging: { total: found.length }, results: found.reverse() });
    }
    if ((m = /^\/v1\/payments\/(\d+)$/.exec(path))) {
      const p = this.payments.get(m[1]!);
      if (!p) return ok({ message: 'Payment not found', error: 'not_found', status: 404, cause: [] }, 404);
      if (method === 'PUT' && body.status === 'cancelled' && !CANCELLABLE.has(p.status!)) {
        return refused('The action requested is not valid for the current payment state', '2018');
      }
      if (method === 'PUT') this.update(p, body);
      return ok({ ...p, money_release_date: this.releaseReports.releaseDateOf(p) });
    }
    if (method === 'GET' && (m = /^\/v1\/chargebacks\/([^/]+)$/.exec(path))) {
      const chargeback = this.chargebacks.get(m[1]!);
      if (!chargeback) return ok({ message: 'Chargeback not found', error: 'not_found', status: 404, cause: [] }, 404);
      return ok(chargeback);
    }
    if (method === 'POST' && (m = /^\/v1\/payments\/(\d+)\/refunds$/.exec(path))) {
      const refund = this.refundPayment(m[1]!, body.amount, 'collector');
      if (!refund) return ok({ message: 'Invalid refund amount', error: 'bad_request', status: 400, cause: [] }, 400);
      return ok(refund, 201);
    }
    return ok({ message: `The fake has no ${method} ${path}`, error: 'not_found', status: 404, cause: [] }, 404);
  }

  /**
   * What a card payment needs of its token, as the references and guides say (decision 0074):
   * - a browser's token (its security code in it), the recurring-charges guide's "minimum required
   *   fields": `payment_method_id` and `payer.email` beside the token (400, general code 1, if not);
   * - a token minted from a kept card without its security code: a merchant-initiated recurring charge
   *   only (the payer the card's customer, subscription messaging with `user_present: false`), on an
   *   account enabled for automatic payments (`refuseKeptCardTokens` false); anything else, a buyer-present
   *   charge among them, is refused as Mercado Pago refuses it: 400, cause 3031
   *   (https://www.mercadopago.com.br/developers/en/support/37020);
   * - a token minted from a kept card with its security code (the buyer's browser): the card's customer
   *   as payer (`type: customer`, its id), as the saved-cards guide's payment sends it (decision 0078).
   */
  private cardRefusal(body: Record<string, any>): Reply | null {
    const token = body.token ? this.tokens.get(body.token) : undefined;
    if (!token) return null;
    const payer = body.payer ?? {};
    if (!token.customerId) {
      if (!body.payment_method_id) return refused("payment_method_id attribute can't be null", '1');
      if (!payer.email) return refused('payer.email must be a valid email', '1');
      return null;
    }
    const asCustomer = payer.type === 'customer' && payer.id === token.customerId;
    // A saved card's payment names its customer ("you must send the customer ID along with the token",
    // Receive payments with saved cards).
    if (token.cvv) return asCustomer ? null : refused('payer.id must be the customer of the card', '1');
    const poi = body.point_of_interaction ?? {};
    const merchantInitiated =
      asCustomer && poi.type === 'SUBSCRIPTIONS' && poi.transaction_data?.user_present === false;
    if (this.refuseKeptCardTokens || !merchantInitiated) {
      const cause = [{ code: 3031, description: "security_code_id can't be null", data: null }];
      return {
        statusCode: 400,
        data: { message: "security_code_id can't be null", error: 'bad_request', status: 400, cause },
      };
    }
    return null;
  }

  private refusedKeeping = 0;

  /** The next `POST /v1/customers/:id/cards` is refused (400), as for a card Mercado Pago will not keep. */
  refuseNextCardKeeping(): void {
    this.refusedKeeping += 1;
  }

  /**
   * The test holder name a kept card pays as from now on (Mercado Pago's test cards answer by their
   * holder's name): a `CONT` card whose review approved it, say, charged as `APRO` at its renewals.
   */
  keptCardPaysAs(cardId: string, holder: string): void {
    const saved = this.tokens.get(`saved:${cardId}`);
    if (!saved) throw new Error(`The fake keeps no card ${cardId}`);
    saved.holder = holder;
  }

  /** The cards kept with a customer (`POST /v1/customers/:id/cards`), by card id. */
  keptCards(): { cardId: string; customerId: string }[] {
    return [...this.tokens.entries()]
      .filter(([key]) => key.startsWith('saved:'))
      .map(([key, t]) => ({ cardId: key.slice('saved:'.length), customerId: t.customerId! }));
  }

  private addCustomer(email: string) {
    const customer = { id: `${this.next++}-cust`, email };
    this.customers.set(customer.id, customer);
    return customer;
  }

  /**
   * What the reference requires of a pix (the payer's e-mail; an expiry "between 30 minutes and up to
   * 30 days from the date of issue", on this fake's clock) and of a boleto (the payer's first and last
   * name, and an address with postal code and state), as a 400 like Mercado Pago's; with its general
   * code 1 ("Params Error"), the reference listing none of its own for these.
   */
  private payerRefusal(body: Record<string, any>): Reply | null {
    const payer = body.payer ?? {};
    if (body.payment_method_id === 'pix') {
      if (!payer.email) return refused('payer.email must be a valid email', '1');
      if (body.date_of_expiration) {
        const ahead = Date.parse(body.date_of_expiration) - (Date.now() + this.arrivalMs);
        if (ahead < 30 * 60_000 || ahead > 30 * 24 * 3600_000) {
          return refused('date_of_expiration must be between 30 minutes and 30 days', '1');
        }
      }
    }
    if (body.payment_method_id === 'bolbradesco') {
      const a = payer.address ?? {};
      if (!payer.first_name || !payer.last_name)
        return refused('payer.first_name and payer.last_name are required', '1');
      if (!a.zip_code || !a.federal_unit || !a.city || !a.street_name) {
        return refused('payer.address is incomplete (zip_code, street_name, city, federal_unit)', '1');
      }
    }
    return null;
  }

  private cardOf(holder: string) {
    return {
      first_six_digits: '503143',
      last_four_digits: '6351',
      expiration_month: 11,
      expiration_year: 2030,
      payment_method: { id: 'master' },
      cardholder: { name: holder },
    };
  }

  private createPayment(body: Record<string, any>): MpPayment {
    const id = String(this.next++);
    const common = {
      id,
      date_created: new Date().toISOString(),
      currency_id: 'BRL',
      external_reference: body.external_reference,
      metadata: body.metadata,
      transaction_amount: body.transaction_amount,
      transaction_amount_refunded: 0,
      refunds: [],
      installments: body.installments ?? 1,
      payer: { id: body.payer?.id ?? null },
    };
    let payment: MpPayment & Record<string, any>;
    if (body.payment_method_id === 'pix') {
      payment = {
        ...common,
        payment_method_id: 'pix',
        payment_type_id: 'bank_transfer',
        status: 'pending',
        status_detail: 'pending_waiting_transfer',
        date_of_expiration: body.date_of_expiration,
        point_of_interaction: {
          transaction_data: {
            qr_code: `00020126pix${id}`,
            qr_code_base64: 'iVBORw0KGgo=',
            ticket_url: `https://www.mercadopago.com.br/payments/${id}/ticket?caller_id=1284876322&hash=fake`,
          },
        },
      };
    } else if (body.payment_method_id === 'bolbradesco') {
      payment = {
        ...common,
        payment_method_id: 'bolbradesco',
        payment_type_id: 'ticket',
        status: 'pending',
        status_detail: 'pending_waiting_payment',
        date_of_expiration: body.date_of_expiration,
        transaction_details: {
          digitable_line: `23793380296099605974756007205506189120000${id.slice(-6)}`,
          barcode: { content: `2379189120000${id}` },
          external_resource_url: `https://www.mercadopago.com.br/payments/${id}/ticket`,
        },
      };
    } else if ((this.tokens.get(body.token)?.holder ?? 'APRO') === CHALLENGE_HOLDER) {
      payment = this.challengedPayment(id, common, body);
    } else {
      const holder = this.tokens.get(body.token)?.holder ?? 'APRO';
      const approved = holder !== 'OTHE' && holder !== 'CONT';
      // CONT: held for review (in_process, pending_contingency), neither approved nor refused yet.
      const status = approved
        ? body.capture === false
          ? 'authorized'
          : 'approved'
        : holder === 'CONT'
          ? 'in_process'
          : 'rejected';
      payment = {
        ...common,
        payment_method_id: 'master',
        payment_type_id: 'credit_card',
        status,
        status_detail: {
          authorized: 'pending_capture',
          approved: 'accredited',
          in_process: 'pending_contingency',
          rejected: 'cc_rejected_other_reason',
        }[status],
        ...this.instalmentsOf(body.transaction_amount, body.installments ?? 1),
        captured: approved && body.capture !== false,
        authorization_code: approved ? '301299' : null,
        date_approved: approved ? new Date().toISOString() : null,
        card: { id: null, ...this.cardOf(holder) },
      };
    }
    this.payments.set(id, payment);
    return payment;
  }

  /**
   * A card whose issuer requires 3-D Secure (holder `3DSC`): with `three_d_secure_mode: optional` it
   * waits on the buyer's challenge (`pending` / `pending_challenge` with `three_ds_info`, as Mercado
   * Pago's 3DS guide shows it); without it, it is refused with cc_rejected_3ds_mandatory.
   */
  private challengedPayment(id: string, common: object, body: Record<string, any>): MpPayment & Record<string, any> {
    const offered = body.three_d_secure_mode === 'optional';
    return {
      ...common,
      payment_method_id: 'master',
      payment_type_id: 'credit_card',
      status: offered ? 'pending' : 'rejected',
      status_detail: offered ? 'pending_challenge' : 'cc_rejected_3ds_mandatory',
      ...this.instalmentsOf(body.transaction_amount, body.installments ?? 1),
      captured: false,
      authorization_code: null,
      date_approved: null,
      card: { id: null, ...this.cardOf(CHALLENGE_HOLDER) },
      three_ds_info: offered ? { external_resource_url: CHALLENGE_URL, creq: `eyJmYWtlIjoi${id}` } : null,
    };
  }

  /**
   * The buyer's instalment interest, as the account's plans charge it (the rates are the fake's own,
   * not the engine's): `transaction_amount` stays what was asked, `total_paid_amount` carries the
   * interest, a `financing_fee` the payer pays. 3 × R$ 100,00 → 3 × 35,33 = 105,99.
   */
  private instalmentsOf(amount: number, installments: number) {
    const rate = INSTALMENT_RATES[installments] ?? 0;
    const installment = Math.round((amount * (100 + rate)) / installments) / 100;
    const total = Math.round(installment * installments * 100) / 100;
    const financing = Math.round((total - amount) * 100) / 100;
    return {
      transaction_details: { total_paid_amount: total, installment_amount: installment, net_received_amount: amount },
      fee_details: financing > 0 ? [{ type: 'financing_fee', fee_payer: 'payer', amount: financing }] : [],
    };
  }

  private update(p: MpPayment & Record<string, any>, body: Record<string, any>): void {
    if (body.capture === true) Object.assign(p, { status: 'approved', status_detail: 'accredited', captured: true });
    if (body.status === 'cancelled') Object.assign(p, { status: 'cancelled', status_detail: 'by_collector' });
  }
}

/** What the cancellation reference lets a seller cancel (`PUT /v1/payments/:id` with `status: cancelled`). */
const CANCELLABLE = new Set(['pending', 'in_process', 'authorized']);

/** A 400 as Mercado Pago words one: its message, and the cause's code and description. */
const refused = (description: string, code: string): Reply => ({
  statusCode: 400,
  data: { message: description, error: 'bad_request', status: 400, cause: [{ code, description, data: null }] },
});

/**
 * Installs the fake for the calling test file (its own calls to 127.0.0.1, such as the API's, go
 * through): the SDK's global fetch is undici's while the file runs (see mercadopago-mock.ts why).
 */
export function fakeMercadoPago(): FakeMercadoPago {
  const fake = new FakeMercadoPago();
  let original: Dispatcher;
  let agent: MockAgent;
  const builtInFetch = globalThis.fetch;
  beforeAll(() => {
    original = getGlobalDispatcher();
    agent = new MockAgent();
    agent.disableNetConnect();
    agent.enableNetConnect(/^(127\.0\.0\.1|localhost)(:\d+)?$/);
    setGlobalDispatcher(agent);
    globalThis.fetch = undiciFetch as unknown as typeof fetch;
    agent
      .get(MP)
      .intercept({ method: (m: string) => ['GET', 'POST', 'PUT'].includes(m), path: () => true })
      .reply((opts) => {
        const headers = Object.fromEntries(
          Object.entries((opts.headers ?? {}) as Record<string, string>).map(([k, v]) => [k.toLowerCase(), String(v)]),
        );
        const body = typeof opts.body === 'string' && opts.body ? (JSON.parse(opts.body) as Record<string, any>) : null;
        const { statusCode, data } = fake.handle(
          opts.method,
          opts.path,
          headers['x-idempotency-key'] ?? null,
          body,
          headers,
        );
        const csv = typeof data === 'string';
        return {
          statusCode,
          data: csv ? data : JSON.stringify(data),
          responseOptions: { headers: { 'content-type': csv ? 'text/csv' : 'application/json' } },
        };
      })
      .persist();
  });
  afterAll(async () => {
    setGlobalDispatcher(original);
    globalThis.fetch = builtInFetch;
    await agent.close();
  });
  return fake;
}

/** The `payment` notice Mercado Pago posts when payment `id` changes (a refund too), signed with `secret`. */
export function paymentNotice(id: string, secret: string) {
  return {
    path: `/api/v1/gateway/mercadopago/notifications?data.id=${id}&type=payment`,
    body: { action: 'payment.updated', data: { id }, type: 'payment' },
    headers: signedNotice(id, secret),
  };
}

/**
 * The Card Updater notice Mercado Pago posts (type `automatic-payments`, action `card.updated`), signed
 * with `secret`: it has no data.id, so the signed manifest has no `id:` part.
 */
export function cardUpdatedNotice(customerId: string, oldCardId: string, newCardId: string, secret: string) {
  const requestId = randomUUID();
  const ts = Math.floor(Date.now() / 1000);
  const v1 = createHmac('sha256', secret).update(`request-id:${requestId};ts:${ts};`).digest('hex');
  return {
    path: '/api/v1/gateway/mercadopago/notifications?type=automatic-payments',
    body: {
      action: 'card.updated',
      api_version: 'v1',
      // The fake's card ids, as it answers them (Mercado Pago's are numbers; our schema takes either).
      data: { customer_id: customerId, new_card_id: newCardId, old_card_id: oldCardId },
      type: 'automatic-payments',
    },
    headers: { 'x-signature': `ts=${ts},v1=${v1}`, 'x-request-id': requestId },
  };
}

/**
 * The `chargebacks` notice Mercado Pago posts when chargeback `id` is opened or changes, signed with
 * `secret` (the chargebacks notifications page; `data.id` is the chargeback's).
 */
export function chargebackNotice(id: string, secret: string) {
  return {
    path: `/api/v1/gateway/mercadopago/notifications?data.id=${id}&type=chargebacks`,
    body: { actions: ['changed_case_status'], api_version: 'v1', data: { id }, type: 'chargebacks' },
    headers: signedNotice(id, secret),
  };
}
