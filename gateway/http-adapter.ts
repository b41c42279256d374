import { request, type Dispatcher } from 'undici';
import type { z } from 'zod';
import { buyerFromWire, buyerInputToWire, wireBuyer } from './http-buyers.ts';
import { cardInputToWire, cardTokenFromWire, wireCardToken } from './http-cards.ts';
import { createTransactionToWire } from './http-charges.ts';
import { chargebackFromWire, wireChargeback } from './http-disputes.ts';
import { ledgerFromWire, ledgerQueryPath, wireLedger } from './http-ledger.ts';
import type { LedgerRow } from '../domain/reconciliation.ts';
import { IDEMPOTENCY_HEADER, ROUTES, routePath, wireError, type RouteName } from './http-protocol.ts';
import { mandateChargeFromWire, mandateFromWire, wireMandate, wireMandateChargeList } from './http-pix-automatico.ts';
import { readBcbProblema } from './bcb-pix-problems.ts';
import { BcbPixAutomaticoClient } from './http-pix-automatico-bcb.ts';
import {
  invoiceFromWire,
  invoiceInputToWire,
  planFromWire,
  planInputToWire,
  subscriptionFromWire,
  subscriptionInputToWire,
  wireInvoice,
  wireInvoiceList,
  wirePlan,
  wireSubscription,
  type WireSubscriptionPlanChange,
} from './http-recurrence.ts';
import {
  transactionFromWire,
  transactionQueryPath,
  wireTransaction,
  wireTransactionList,
} from './http-transactions.ts';
import {
  GatewayError,
  type BoletoChargeInput,
  type Buyer,
  type Chargebacks,
  type KeptCardLookup,
  type BuyerInput,
  type CardChargeInput,
  type CardInput,
  type CardOwner,
  type CardToken,
  type GatewayChargeback,
  type GatewayInvoice,
  type GatewayMandate,
  type GatewayMandateCharge,
  type GatewayMandateRefund,
  type LedgerWindow,
  type MandateChargeInput,
  type MandateInput,
  type PixAutomatico,
  type PixPayerPersona,
  type SandboxPixAutomatico,
  type GatewayInvoiceInput,
  type GatewaySubscription,
  type GatewaySubscriptionInput,
  type GatewayTransaction,
  type PaymentGateway,
  type SandboxRecurringBilling,
  type PixChargeInput,
  type RecurrencePlan,
  type RecurrencePlanInput,
} from './port.ts';

export interface HttpGatewayOptions {
  /** e.g. `https://api.gateway.example` (no trailing path). */
  baseUrl: string;
  apiKey: string;
  /** Per call, headers and body included; past it the call is a retryable GatewayError. */
  timeoutMs: number;
  dispatcher?: Dispatcher;
}

/** A gateway error with what the gateway answered, for logs and for callers that need the status. */
export class GatewayHttpError extends GatewayError {
  /** The HTTP status, or null when no answer arrived (network error, timeout). */
  readonly status: number | null;
  /** The gateway's error type (`invalid_request`, `request_refused`…; on the BCB's routes the Problema's name), when it sent one. */
  readonly type: string | null;
  constructor(message: string, retryable: boolean, status: number | null, type: string | null) {
    super(message, retryable);
    this.status = status;
    this.type = type;
  }
}

/**
 * The PaymentGateway over the gateway's REST protocol (http-protocol.ts).
 *
 * Failure mapping, which activities' retry policies rely on: no answer (network error, timeout),
 * 5xx and 429 are retryable — the call may or may not have happened, and repeating it with the same
 * idempotency key is safe (or findTransactionByIdempotencyKey tells what happened); any other 4xx
 * is a definite refusal; 404 on a lookup by id is "no such thing".
 */
export class HttpGateway
  implements PaymentGateway, SandboxRecurringBilling, Chargebacks, KeptCardLookup, PixAutomatico, SandboxPixAutomatico
{
  /** The simulator's boleto needs nothing of its payer beyond the usual name, e-mail and tax id. */
  readonly boletoPayerRequires = [] as const;
  /** The sandbox's browser token is a kept card already: kept before the charge. */
  readonly browserTokensSingleUse = false;
  private readonly options: HttpGatewayOptions;
  private readonly baseUrl: string;

  /** Pix Automático, in the BCB's API. */
  private readonly pix: BcbPixAutomaticoClient;

  constructor(options: HttpGatewayOptions) {
    this.options = options;
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.pix = new BcbPixAutomaticoClient((method, path, body, key, schema) =>
      this.send(method, path, body, key, schema),
    );
  }

  async tokenizeCard(card: CardInput, idempotencyKey: string): Promise<CardToken> {
    const wire = await this.post('tokenizeCard', undefined, cardInputToWire(card), idempotencyKey, wireCardToken);
    return cardTokenFromWire(wire);
  }

  /** The simulated server's browser tokens are its card tokens (reusable): kept is found. */
  async keepBrowserCard(browserToken: string, _owner?: CardOwner, _idempotencyKey?: string): Promise<CardToken> {
    const wire = await this.get('getCardToken', browserToken, wireCardToken);
    if (!wire) throw new GatewayHttpError(`Unknown card token ${browserToken}`, false, 404, 'not_found');
    return cardTokenFromWire(wire);
  }

  async createBuyer(buyer: BuyerInput, idempotencyKey: string): Promise<Buyer> {
    return buyerFromWire(await this.post('createBuyer', undefined, buyerInputToWire(buyer), idempotencyKey, wireBuyer));
  }

  async chargeCard(input: CardChargeInput, idempotencyKey: string): Promise<GatewayTransaction> {
    return this.createTransaction(createTransactionToWire({ paymentType: 'credit', input }), idempotencyKey);
  }

  async createPixCharge(input: PixChargeInput, idempotencyKey: string): Promise<GatewayTransaction> {
    return this.createTransaction(createTransactionToWire({ paymentType: 'pix', input }), idempotencyKey);
  }

  async createBoleto(input: BoletoChargeInput, idempotencyKey: string): Promise<GatewayTransaction> {
    return this.createTransaction(createTransactionToWire({ paymentType: 'boleto', input }), idempotencyKey);
  }

  async capture(transactionId: string, amount: number | null, idempotencyKey: string): Promise<GatewayTransaction> {
    const wire = await this.post('captureTransaction', transactionId, { amount }, idempotencyKey, wireTransaction);
    return transactionFromWire(wire);
  }

  async cancel(transactionId: string, idempotencyKey: string): Promise<GatewayTransaction> {
    return transactionFromWire(await this.post('voidTransaction', transactionId, {}, idempotencyKey, wireTransaction));
  }

  async getTransaction(transactionId: string): Promise<GatewayTransaction | null> {
    const wire = await this.get('getTransaction', transactionId, wireTransaction);
    return wire ? transactionFromWire(wire) : null;
  }

  /**
   * `GET /v1/transactions?idempotency_key=…`. An empty list is the gateway saying it never completed
   * a call under that key; a 404 is not (it means the route is missing: a wrong base URL), so it is
   * an error, never null.
   */
  async findTransactionByIdempotencyKey(idempotencyKey: string): Promise<GatewayTransaction | null> {
    const path = transactionQueryPath(idempotencyKey);
    const list = await this.send('GET', path, undefined, undefined, wireTransactionList);
    if (list === null) throw new GatewayHttpError(`Gateway GET ${path}: not found`, false, 404, 'not_found');
    const [wire] = list.data;
    return wire ? transactionFromWire(wire) : null;
  }

  async ledger(window: LedgerWindow): Promise<LedgerRow[]> {
    const path = ledgerQueryPath(ROUTES.ledger.path, window);
    const wire = await this.send('GET', path, undefined, undefined, wireLedger);
    if (wire === null) throw new GatewayHttpError(`Gateway GET ${path}: not found`, false, 404, 'not_found');
    return ledgerFromWire(wire);
  }

  /** `GET /v1/chargebacks/:id`: the chargeback as the gateway has it now; null when it has none such (decision 0079). */
  async getChargeback(chargebackId: string): Promise<GatewayChargeback | null> {
    const wire = await this.get('getChargeback', chargebackId, wireChargeback);
    return wire ? chargebackFromWire(wire) : null;
  }

  /** A kept card as the card updater left it (`GET /v1/cards/tokens/:id`); null when the gateway keeps none such. */
  async keptCard(cardTokenId: string): Promise<CardToken | null> {
    const wire = await this.get('getCardToken', cardTokenId, wireCardToken);
    return wire ? cardTokenFromWire(wire) : null;
  }

  async refund(transactionId: string, amount: number, idempotencyKey: string): Promise<GatewayTransaction> {
    const wire = await this.post('refundTransaction', transactionId, { amount }, idempotencyKey, wireTransaction);
    return transactionFromWire(wire);
  }

  async createRecurrencePlan(input: RecurrencePlanInput, idempotencyKey: string): Promise<RecurrencePlan> {
    return planFromWire(await this.post('createPlan', undefined, planInputToWire(input), idempotencyKey, wirePlan));
  }

  async createSubscription(input: GatewaySubscriptionInput, idempotencyKey: string): Promise<GatewaySubscription> {
    const body = subscriptionInputToWire(input);
    return subscriptionFromWire(
      await this.post('createSubscription', undefined, body, idempotencyKey, wireSubscription),
    );
  }

  async cancelSubscription(subscriptionId: string, idempotencyKey: string): Promise<GatewaySubscription> {
    const wire = await this.post('cancelSubscription', subscriptionId, {}, idempotencyKey, wireSubscription);
    return subscriptionFromWire(wire);
  }

  async changeSubscriptionPlan(
    subscriptionId: string,
    planId: string,
    idempotencyKey: string,
  ): Promise<GatewaySubscription> {
    const body: WireSubscriptionPlanChange = { plan_id: planId };
    const wire = await this.post('changeSubscriptionPlan', subscriptionId, body, idempotencyKey, wireSubscription);
    return subscriptionFromWire(wire);
  }

  async createInvoice(input: GatewayInvoiceInput, idempotencyKey: string): Promise<GatewayInvoice> {
    return invoiceFromWire(
      await this.post('createInvoice', undefined, invoiceInputToWire(input), idempotencyKey, wireInvoice),
    );
  }

  async cancelInvoice(invoiceId: string, idempotencyKey: string): Promise<GatewayInvoice> {
    return invoiceFromWire(await this.post('cancelInvoice', invoiceId, {}, idempotencyKey, wireInvoice));
  }

  async getInvoice(invoiceId: string): Promise<GatewayInvoice | null> {
    const wire = await this.get('getInvoice', invoiceId, wireInvoice);
    return wire ? invoiceFromWire(wire) : null;
  }

  async listSubscriptionInvoices(subscriptionId: string): Promise<GatewayInvoice[]> {
    const wire = await this.get('listSubscriptionInvoices', subscriptionId, wireInvoiceList);
    if (!wire) throw new GatewayError(`Unknown subscription ${subscriptionId}`, false);
    return wire.items.map(invoiceFromWire);
  }

  /**
   * The simulated server's sandbox recurrence (a test clock's): a gateway without the control route
   * answers 404, a refusal (not retryable) the workflow only logs.
   */
  async billSandboxCycle(subscriptionId: string, cycle: number, idempotencyKey: string): Promise<GatewayInvoice> {
    const body = { cycle, idempotency_key: idempotencyKey };
    return invoiceFromWire(await this.post('sandboxBillCycle', subscriptionId, body, idempotencyKey, wireInvoice));
  }

  // ── Pix Automático: the BCB's API (http-pix-automatico-bcb.ts); the sandbox's (http-pix-automatico.ts) ──

  async createMandate(input: MandateInput, idempotencyKey: string): Promise<GatewayMandate> {
    return this.pix.createMandate(input, idempotencyKey);
  }

  async getMandate(mandateId: string): Promise<GatewayMandate | null> {
    return this.pix.getMandate(mandateId);
  }

  async cancelMandate(mandateId: string, idempotencyKey: string): Promise<GatewayMandate> {
    return this.pix.cancelMandate(mandateId, idempotencyKey);
  }

  async createMandateCharge(input: MandateChargeInput, idempotencyKey: string): Promise<GatewayMandateCharge> {
    return this.pix.createMandateCharge(input, idempotencyKey);
  }

  async getMandateCharge(chargeId: string): Promise<GatewayMandateCharge | null> {
    return this.pix.getMandateCharge(chargeId);
  }

  async retryMandateCharge(
    chargeId: string,
    settlementDate: string,
    idempotencyKey: string,
  ): Promise<GatewayMandateCharge> {
    return this.pix.retryMandateCharge(chargeId, settlementDate, idempotencyKey);
  }

  async cancelMandateCharge(chargeId: string, idempotencyKey: string): Promise<GatewayMandateCharge> {
    return this.pix.cancelMandateCharge(chargeId, idempotencyKey);
  }

  async refundMandateCharge(chargeId: string, amount: number, idempotencyKey: string): Promise<GatewayMandateRefund> {
    return this.pix.refundMandateCharge(chargeId, amount, idempotencyKey);
  }

  /** The simulated server's sandbox payer and bank (control routes: no idempotency key; 404 elsewhere). */
  async authorizeMandate(mandateId: string, persona: PixPayerPersona): Promise<GatewayMandate> {
    return mandateFromWire(await this.control('sandboxAuthorizeMandate', mandateId, { persona }, wireMandate));
  }

  async settleMandateCharges(asOf: string, mandateIds?: readonly string[]): Promise<GatewayMandateCharge[]> {
    const body = mandateIds === undefined ? { as_of: asOf } : { as_of: asOf, mandate_ids: [...mandateIds] };
    const wire = await this.control('sandboxSettleMandateCharges', undefined, body, wireMandateChargeList);
    return wire.items.map(mandateChargeFromWire);
  }

  async revokeMandate(mandateId: string): Promise<GatewayMandate> {
    return mandateFromWire(await this.control('sandboxRevokeMandate', mandateId, {}, wireMandate));
  }

  async setPayerMaximum(mandateId: string, maximum: number | null): Promise<GatewayMandate> {
    return mandateFromWire(await this.control('sandboxSetPayerMaximum', mandateId, { maximum }, wireMandate));
  }

  private async control<S extends z.ZodType>(
    route: RouteName,
    id: string | undefined,
    body: object,
    schema: S,
  ): Promise<z.infer<S>> {
    const result = await this.send('POST', routePath(route, id), body, undefined, schema);
    if (result === null) throw new GatewayHttpError(`${ROUTES[route].path}: not found`, false, 404, 'not_found');
    return result;
  }

  private async createTransaction(body: object, idempotencyKey: string): Promise<GatewayTransaction> {
    return transactionFromWire(await this.post('createTransaction', undefined, body, idempotencyKey, wireTransaction));
  }

  private async post<S extends z.ZodType>(
    route: RouteName,
    id: string | undefined,
    body: object,
    idempotencyKey: string,
    schema: S,
  ): Promise<z.infer<S>> {
    const result = await this.send('POST', routePath(route, id), body, idempotencyKey, schema);
    if (result === null) throw new GatewayHttpError(`${ROUTES[route].path}: not found`, false, 404, 'not_found');
    return result;
  }

  private async get<S extends z.ZodType>(route: RouteName, id: string, schema: S): Promise<z.infer<S> | null> {
    return this.send('GET', routePath(route, id), undefined, undefined, schema);
  }

  /** One call; null for a 404, the parsed body for a 2xx, a GatewayHttpError otherwise. */
  private async send<S extends z.ZodType>(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH',
    path: string,
    body: object | undefined,
    idempotencyKey: string | undefined,
    schema: S,
  ): Promise<z.infer<S> | null> {
    const what = `${method} ${path}`;
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.options.apiKey}`,
      accept: 'application/json',
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (idempotencyKey !== undefined) headers[IDEMPOTENCY_HEADER] = idempotencyKey;

    const deadline = AbortSignal.timeout(this.options.timeoutMs);
    let status: number;
    let text: string;
    try {
      const response = await request(this.baseUrl + path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: deadline,
        ...(this.options.dispatcher ? { dispatcher: this.options.dispatcher } : {}),
      });
      status = response.statusCode;
      text = await response.body.text();
    } catch (err) {
      // The call may have reached the gateway: repeating it under the same idempotency key is safe.
      const reason = deadline.aborted
        ? `no answer within ${this.options.timeoutMs} ms`
        : String((err as Error).message);
      throw new GatewayHttpError(`Gateway ${what}: ${reason}`, true, null, null);
    }

    if (status >= 200 && status < 300) {
      const parsed = schema.safeParse(safeJson(text));
      if (!parsed.success) {
        throw new GatewayHttpError(
          `Gateway ${what}: unexpected response body (${parsed.error.message})`,
          false,
          status,
          null,
        );
      }
      return parsed.data;
    }
    if (status === 404 && method === 'GET') return null;
    // The protocol's error, or on the BCB's routes the BCB's Problema (its type's name, e.g. CobROperacaoInvalida).
    const error = wireError.safeParse(safeJson(text));
    const problema = error.success ? null : readBcbProblema(safeJson(text));
    const type = error.success ? error.data.error.type : (problema?.name ?? null);
    const message = error.success ? error.data.error.message : (problema?.message ?? text.slice(0, 200));
    const retryable = status >= 500 || status === 429;
    throw new GatewayHttpError(
      `Gateway ${what} answered ${status}${type ? ` ${type}` : ''}: ${message}`,
      retryable,
      status,
      type,
    );
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
