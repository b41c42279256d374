import { createHash, timingSafeEqual } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify';
import type { z } from 'zod';
import { isDatabaseDown } from './database.ts';
import { afterSaleSandboxRoutes, chargebackRoutes } from './server-disputes.ts';
import { BCB_PREFIX, pixAutomaticoRoutes, pixAutomaticoSandboxRoutes } from './server-pix-automatico.ts';
import { bcbGeneralName, bcbProblemaOf } from '../../../gateway/bcb-pix-problems.ts';
import { pixRefundRoutes } from './server-pix-refunds.ts';
import type { SimulatorFaults } from './simulator-idempotency.ts';
import { buyerInputFromWire, buyerToWire, wireBuyerInput } from '../../../gateway/http-buyers.ts';
import { cardInputFromWire, cardTokenToWire, wireCardInput } from '../../../gateway/http-cards.ts';
import { createTransactionFromWire, wireCreateTransaction } from '../../../gateway/http-charges.ts';
import { ledgerToWire, wireLedgerQuery } from '../../../gateway/http-ledger.ts';
import {
  CONTROL_PREFIX,
  IDEMPOTENCY_HEADER,
  ROUTES,
  errorBody,
  wireFaults,
  type RouteName,
} from '../../../gateway/http-protocol.ts';
import {
  invoiceInputFromWire,
  invoiceToWire,
  planInputFromWire,
  planToWire,
  subscriptionInputFromWire,
  subscriptionToWire,
  wireBillCycle,
  wireInvoiceInput,
  wirePlanInput,
  wireSubscriptionInput,
  wireSubscriptionPlanChange,
} from '../../../gateway/http-recurrence.ts';
import {
  transactionToWire,
  wireCapture,
  wireEmpty,
  wireRefund,
  wireTransactionQuery,
  type WireTransactionList,
} from '../../../gateway/http-transactions.ts';
import {
  GatewayError,
  type CardGateway,
  type PaymentGateway,
  type RecurringBilling,
  type SandboxControls,
} from '../../../gateway/port.ts';

/**
 * The standalone simulated-gateway HTTP server: any PaymentGateway (the SimulatedGateway in practice)
 * served over the gateway REST protocol of http-protocol.ts, so the HTTP adapter is tested over real
 * HTTP, with the failures a real gateway has (5xx, hangs, answers lost after the work is done)
 * injectable.
 */

/** A pending fault: what it does, and the route it is aimed at (null: any call). */
interface Pending<T> {
  value: T;
  route: RouteName | null;
}

/** The first pending fault that applies to a call of `route`, taken off its queue. */
function takeFor<T>(queue: Pending<T>[], route: RouteName | null): T | null {
  const at = queue.findIndex((f) => f.route === null || f.route === route);
  if (at < 0) return null;
  return queue.splice(at, 1)[0]!.value;
}

/** What happens to one call (see GatewayFaults.take). */
export interface CallFate {
  /** Answered with this status without reaching the gateway. */
  failStatus: number | null;
  /** Held this long first. */
  delayMs: number;
  /** Carried out by the gateway, then its connection is closed without an answer. */
  dropAnswer: boolean;
}

/**
 * Failures the next calls suffer; handed to buildGatewayServer to enable fault injection. Each fault
 * may be aimed at one route (a name of ROUTES, e.g. `createTransaction`); unaimed, it hits the next
 * call of any route. Control routes (`/v1/_…`) are never hit.
 */
export class GatewayFaults {
  private failures: Pending<number>[] = [];
  private delays: Pending<number>[] = [];
  private drops: Pending<true>[] = [];

  /** The next `n` calls answer `status` without reaching the gateway. */
  failNext(n: number, status = 503, route: RouteName | null = null): void {
    for (let i = 0; i < n; i += 1) this.failures.push({ value: status, route });
  }

  /** The next call waits `ms` before it is handled (and is handled then: a slow, not a lost, call). */
  delayNextMs(ms: number, route: RouteName | null = null): void {
    this.delays.push({ value: ms, route });
  }

  /**
   * The next `n` calls are carried out by the gateway (a charge is captured, a refusal is final)
   * but their answer is lost: the server closes the connection without a response, and the client
   * sees a reset connection, not a status.
   */
  dropAnswerNext(n: number, route: RouteName | null = null): void {
    for (let i = 0; i < n; i += 1) this.drops.push({ value: true, route });
  }

  reset(): void {
    this.failures = [];
    this.delays = [];
    this.drops = [];
  }

  /**
   * What happens to the call of `route` arriving now (null: a path with no route). A call that
   * fails never reaches the gateway, so it does not use up a dropped answer.
   */
  take(route: RouteName | null = null): CallFate {
    const delayMs = takeFor(this.delays, route) ?? 0;
    const failStatus = takeFor(this.failures, route);
    const dropAnswer = failStatus === null && takeFor(this.drops, route) !== null;
    return { failStatus, delayMs, dropAnswer };
  }
}

export interface GatewayServerOptions {
  gateway: CardGateway & RecurringBilling;
  /** The one API key (Bearer token) the server accepts. */
  apiKey: string;
  /** Enables fault injection (and the `POST /v1/_faults` control endpoint). */
  faults?: GatewayFaults;
  /**
   * The simulator's own faults: `POST /v1/_faults` sets their `searchLagMs` (`search_lag_ms`) and
   * `mandateNoticesTwiceReversed` (`mandate_notices_twice_reversed`).
   */
  simulatorFaults?: Pick<SimulatorFaults, 'searchLagMs' | 'mandateNoticesTwiceReversed'>;
  /** Enables the `/v1/_sandbox/…` endpoints (pay or expire a pix/boleto, end a card's review, pay an invoice). */
  sandbox?: SandboxControls;
  logger?: FastifyServerOptions['logger'];
}

/** An error answered as `{ error: { type, message } }` with its status. */
class HttpProblem extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

function parse<S extends z.ZodType>(schema: S, body: unknown, what: 'body' | 'query' = 'body'): z.infer<S> {
  const parsed = schema.safeParse(body ?? {});
  if (!parsed.success) {
    const detail = parsed.error.issues.map((i) => `${i.path.join('.') || what}: ${i.message}`).join('; ');
    throw new HttpProblem(400, `Invalid request ${what}: ${detail}`);
  }
  return parsed.data;
}

function idempotencyKey(request: FastifyRequest): string {
  const key = request.headers[IDEMPOTENCY_HEADER];
  if (typeof key !== 'string' || key.length === 0 || key.length > 255) {
    throw new HttpProblem(400, 'Idempotency-Key header is required on every POST (1-255 characters)');
  }
  return key;
}

function idParam(request: FastifyRequest): string {
  return (request.params as { id: string }).id;
}

/** The ROUTES name of each `METHOD path`, to aim faults at. */
const ROUTE_NAMES = new Map<string, RouteName>(
  (Object.keys(ROUTES) as RouteName[]).map((name) => [`${ROUTES[name].method} ${ROUTES[name].path}`, name]),
);

function routeNameOf(request: FastifyRequest): RouteName | null {
  const url = request.routeOptions.url;
  return url === undefined ? null : (ROUTE_NAMES.get(`${request.method} ${url}`) ?? null);
}

export function buildGatewayServer(options: GatewayServerOptions): FastifyInstance {
  const app = Fastify({ logger: options.logger ?? false });
  // Hung calls are cut short when the server closes, so a test's teardown never waits for them.
  const closing = new AbortController();
  app.addHook('onClose', async () => closing.abort());

  requireApiKey(app, options.apiKey);
  if (options.faults) injectFaults(app, options.faults, closing.signal, options.simulatorFaults);
  if (options.sandbox) sandboxRoutes(app, options.sandbox);
  if (options.sandbox) afterSaleSandboxRoutes(app, options.sandbox);
  answerErrors(app);
  paymentRoutes(app, options.gateway);
  chargebackRoutes(app, options.gateway);
  recurrenceRoutes(app, options.gateway);
  pixAutomaticoRoutes(app, options.gateway);
  pixRefundRoutes(app, options.gateway);
  if (options.sandbox) pixAutomaticoSandboxRoutes(app, options.gateway);
  return app;
}

/** Every call carries the one API key as its Bearer token; any other answer is a 401. */
function requireApiKey(app: FastifyInstance, apiKey: string): void {
  const expectedKey = digest(apiKey);

  app.addHook('onRequest', async (request, reply) => {
    const header = request.headers.authorization ?? '';
    const token = header.startsWith('Bearer ') ? header.slice('Bearer '.length) : '';
    if (!timingSafeEqual(digest(token), expectedKey)) {
      return reply.status(401).send(errorBody(401, 'Missing or invalid API key'));
    }
  });
}

/** The faults queued by `POST /v1/_faults` (or by the test holding `faults`), applied to the next calls. */
function injectFaults(
  app: FastifyInstance,
  faults: GatewayFaults,
  closing: AbortSignal,
  simulatorFaults?: Pick<SimulatorFaults, 'searchLagMs' | 'mandateNoticesTwiceReversed'>,
): void {
  /** Calls whose answer is to be lost once the gateway has handled them. */
  const dropping = new WeakSet<FastifyRequest>();
  app.addHook('preHandler', async (request, reply) => {
    if (request.routeOptions.url?.startsWith(CONTROL_PREFIX)) return;
    const { failStatus, delayMs, dropAnswer } = faults.take(routeNameOf(request));
    if (delayMs > 0) await sleep(delayMs, undefined, { signal: closing }).catch(() => undefined);
    if (failStatus !== null) {
      const detail = `Injected fault: ${failStatus}`;
      // The BCB's routes answer in the BCB's Problema.
      const body = request.url.startsWith(BCB_PREFIX)
        ? bcbProblemaOf(failStatus, bcbGeneralName(failStatus), detail)
        : errorBody(failStatus, detail);
      return reply.status(failStatus).send(body);
    }
    if (dropAnswer) dropping.add(request);
  });
  // The handler has run (and the gateway committed whatever it did): the answer goes nowhere.
  app.addHook('onSend', async (request, reply, payload) => {
    if (dropping.has(request)) {
      request.log.info('injected fault: answer dropped');
      reply.raw.destroy();
    }
    return payload;
  });
  app.post(ROUTES.faults.path, async (request) => {
    const body = parse(wireFaults, request.body);
    const route = body.route ?? null;
    if (!simulatorFaults && body.search_lag_ms > 0) throw new HttpProblem(400, 'This gateway has no search to lag');
    faults.reset();
    faults.failNext(body.fail_next, body.status, route);
    if (body.delay_ms > 0) faults.delayNextMs(body.delay_ms, route);
    faults.dropAnswerNext(body.drop_answer_next, route);
    if (!simulatorFaults && body.mandate_notices_twice_reversed) {
      throw new HttpProblem(400, 'This gateway has no notices to reorder');
    }
    if (simulatorFaults) {
      simulatorFaults.searchLagMs = body.search_lag_ms;
      simulatorFaults.mandateNoticesTwiceReversed = body.mandate_notices_twice_reversed;
    }
    return { ok: true };
  });
}

/** The `/v1/_sandbox/…` endpoints: what the buyer or time does to a payment. */
function sandboxRoutes(app: FastifyInstance, sandbox: SandboxControls): void {
  app.post(ROUTES.sandboxPayTransaction.path, async (request) =>
    transactionToWire(await sandbox.pay(idParam(request))),
  );
  app.post(ROUTES.sandboxExpireTransaction.path, async (request) =>
    transactionToWire(await sandbox.expire(idParam(request))),
  );
  app.post(ROUTES.sandboxEndReview.path, async (request) =>
    transactionToWire(await sandbox.endReview(idParam(request))),
  );
  app.post(ROUTES.sandboxPayInvoice.path, async (request) => invoiceToWire(await sandbox.payInvoice(idParam(request))));
  app.post(ROUTES.sandboxFailInvoice.path, async (request) =>
    invoiceToWire(await sandbox.failInvoice(idParam(request))),
  );
  app.post(ROUTES.sandboxBillSubscription.path, async (request) =>
    invoiceToWire(await sandbox.billSubscription(idParam(request))),
  );
  app.post(ROUTES.sandboxBillCycle.path, async (request) => {
    const { cycle, idempotency_key: key } = parse(wireBillCycle, request.body);
    return invoiceToWire(await sandbox.billSandboxCycle(idParam(request), cycle, key));
  });
}

/** Unknown routes are a 404; errors are answered in the protocol's shape, a gateway's refusal as a 422. */
function answerErrors(app: FastifyInstance): void {
  app.setNotFoundHandler((request, reply) => {
    void reply.status(404).send(errorBody(404, `No route ${request.method} ${request.url}`));
  });

  app.setErrorHandler((err: unknown, request, reply: FastifyReply) => {
    if (err instanceof HttpProblem) return reply.status(err.status).send(errorBody(err.status, err.message));
    // A refusal of the gateway (idempotency key reused, refund above the captured amount…) is final;
    // a retryable one is the gateway being unavailable.
    if (err instanceof GatewayError) {
      const status = err.retryable ? 503 : 422;
      return reply.status(status).send(errorBody(status, err.message));
    }
    // Its database down (refused, reset, gone): unavailable for now, so a caller retries, as with any gateway.
    if (isDatabaseDown(err)) {
      request.log.warn({ err }, 'simulated gateway: database unavailable');
      return reply.status(503).send(errorBody(503, 'The gateway is unavailable; retry later'));
    }
    const status = (err as { statusCode?: number }).statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      return reply.status(status).send(errorBody(status, (err as Error).message));
    }
    request.log.error({ err }, 'simulated gateway failed');
    return reply.status(500).send(errorBody(500, 'Internal gateway error'));
  });
}

/** Cards, buyers and transactions: charges, pix and boletos, their capture, void and refund. */
function paymentRoutes(app: FastifyInstance, gateway: CardGateway & RecurringBilling): void {
  app.post(ROUTES.tokenizeCard.path, async (request, reply) => {
    const card = cardInputFromWire(parse(wireCardInput, request.body));
    const token = await gateway.tokenizeCard(card, idempotencyKey(request));
    return reply.status(201).send(cardTokenToWire(token));
  });

  app.get(ROUTES.getCardToken.path, async (request, reply) => {
    const { id } = request.params as { id: string };
    try {
      return reply.send(cardTokenToWire(await gateway.keepBrowserCard(id, { email: null, name: null }, `get-${id}`)));
    } catch (err) {
      if (err instanceof GatewayError && !err.retryable) throw new HttpProblem(404, `No card token ${id}`);
      throw err;
    }
  });

  app.post(ROUTES.createBuyer.path, async (request, reply) => {
    const buyer = buyerInputFromWire(parse(wireBuyerInput, request.body));
    return reply.status(201).send(buyerToWire(await gateway.createBuyer(buyer, idempotencyKey(request))));
  });

  app.post(ROUTES.createTransaction.path, async (request, reply) => {
    const create = createTransactionFromWire(parse(wireCreateTransaction, request.body));
    const key = idempotencyKey(request);
    const transaction =
      create.paymentType === 'credit'
        ? await gateway.chargeCard(create.input, key)
        : create.paymentType === 'pix'
          ? await gateway.createPixCharge(create.input, key)
          : await gateway.createBoleto(create.input, key);
    return reply.status(201).send(transactionToWire(transaction));
  });

  app.get(ROUTES.findTransactions.path, async (request, reply) => {
    const { idempotency_key: key } = parse(wireTransactionQuery, request.query, 'query');
    const transaction = await gateway.findTransactionByIdempotencyKey(key);
    const list: WireTransactionList = { data: transaction ? [transactionToWire(transaction)] : [] };
    return reply.send(list);
  });

  app.get(ROUTES.ledger.path, async (request, reply) => {
    const { from, to } = parse(wireLedgerQuery, request.query, 'query');
    const window = { from: new Date(from), to: new Date(to) };
    if (Number.isNaN(window.from.getTime()) || Number.isNaN(window.to.getTime())) {
      throw new HttpProblem(400, 'from and to must be ISO timestamps');
    }
    return reply.send(ledgerToWire(await gateway.ledger(window)));
  });

  app.get(ROUTES.getTransaction.path, async (request, reply) => {
    const transaction = await gateway.getTransaction(idParam(request));
    if (!transaction) throw new HttpProblem(404, 'Transaction not found');
    return reply.send(transactionToWire(transaction));
  });

  app.post(ROUTES.captureTransaction.path, async (request, reply) => {
    const { amount } = parse(wireCapture, request.body);
    return reply.send(transactionToWire(await gateway.capture(idParam(request), amount, idempotencyKey(request))));
  });

  app.post(ROUTES.voidTransaction.path, async (request, reply) => {
    parse(wireEmpty, request.body);
    return reply.send(transactionToWire(await gateway.cancel(idParam(request), idempotencyKey(request))));
  });

  app.post(ROUTES.refundTransaction.path, async (request, reply) => {
    const { amount } = parse(wireRefund, request.body);
    const transaction = await gateway.refund(idParam(request), amount, idempotencyKey(request));
    return reply.status(201).send(transactionToWire(transaction));
  });
}

/** Recurrence: plans, subscriptions and their invoices. */
function recurrenceRoutes(app: FastifyInstance, gateway: PaymentGateway & RecurringBilling): void {
  app.post(ROUTES.createPlan.path, async (request, reply) => {
    const plan = planInputFromWire(parse(wirePlanInput, request.body));
    return reply.status(201).send(planToWire(await gateway.createRecurrencePlan(plan, idempotencyKey(request))));
  });

  app.post(ROUTES.createSubscription.path, async (request, reply) => {
    const input = subscriptionInputFromWire(parse(wireSubscriptionInput, request.body));
    const subscription = await gateway.createSubscription(input, idempotencyKey(request));
    return reply.status(201).send(subscriptionToWire(subscription));
  });

  app.post(ROUTES.cancelSubscription.path, async (request, reply) => {
    parse(wireEmpty, request.body);
    const subscription = await gateway.cancelSubscription(idParam(request), idempotencyKey(request));
    return reply.send(subscriptionToWire(subscription));
  });

  app.post(ROUTES.changeSubscriptionPlan.path, async (request, reply) => {
    const { plan_id: planId } = parse(wireSubscriptionPlanChange, request.body);
    const subscription = await gateway.changeSubscriptionPlan(idParam(request), planId, idempotencyKey(request));
    return reply.send(subscriptionToWire(subscription));
  });

  app.post(ROUTES.createInvoice.path, async (request, reply) => {
    const input = invoiceInputFromWire(parse(wireInvoiceInput, request.body));
    return reply.status(201).send(invoiceToWire(await gateway.createInvoice(input, idempotencyKey(request))));
  });

  app.post(ROUTES.cancelInvoice.path, async (request, reply) => {
    parse(wireEmpty, request.body);
    return reply.send(invoiceToWire(await gateway.cancelInvoice(idParam(request), idempotencyKey(request))));
  });

  app.get(ROUTES.getInvoice.path, async (request, reply) => {
    const invoice = await gateway.getInvoice(idParam(request));
    if (!invoice) throw new HttpProblem(404, 'Invoice not found');
    return reply.send(invoiceToWire(invoice));
  });

  app.get(ROUTES.listSubscriptionInvoices.path, async (request, reply) => {
    const invoices = await gateway.listSubscriptionInvoices(idParam(request));
    return reply.send({ items: invoices.map(invoiceToWire) });
  });
}
