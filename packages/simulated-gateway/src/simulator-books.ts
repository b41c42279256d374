import { plainSql, type PlainSql, type SimulatorConnection, type Sql } from './database.ts';
import { MAX_INSTALLMENTS } from '../../../domain/money.ts';
import {
  GatewayError,
  type BoletoChargeInput,
  type Buyer,
  type BuyerInput,
  type CardChargeInput,
  type CardInput,
  type CardOwner,
  type CardToken,
  type GatewayCallback,
  type GatewayChargeback,
  type Chargebacks,
  type KeptCardLookup,
  type GatewayInvoice,
  type GatewayInvoiceInput,
  type GatewaySubscription,
  type GatewaySubscriptionInput,
  type GatewayTransaction,
  type PaymentGateway,
  type PixChargeInput,
  type RecurrencePlan,
  type RecurrencePlanInput,
} from '../../../gateway/port.ts';
import type { LedgerWindow } from '../../../gateway/port.ts';
import type { LedgerRow } from '../../../domain/reconciliation.ts';
import { ledgerRows } from './simulator-ledger.ts';
import { CallbackDelivery, invoiceNotice, transactionNotice, type SimulatorCallbacks } from './simulator-callbacks.ts';
import { findCard, storeBuyer, storeCard } from './simulator-cards.ts';
import { insertBoleto, insertCardCharge, insertPixCharge } from './simulator-charges.ts';
import { disputedAmount, readChargeback, readKeptCard } from './simulator-disputes.ts';
import {
  runOnceUnlessFaulted,
  transactionIdOfKey,
  type Attempt,
  type SimulatorFaults,
} from './simulator-idempotency.ts';
import { assertAmount, isoDate } from './simulator-input-checks.ts';
import {
  assertPixAccepted,
  assertSearchCaughtUp,
  MERCADO_PAGO_PIX_WINDOW,
  type PixExpiryWindow,
} from './simulator-fidelity.ts';
import {
  insertInvoice,
  insertRecurrencePlan,
  insertSubscription,
  markSubscriptionCanceled,
  moveSubscriptionToPlan,
  voidInvoice,
} from './simulator-recurrence.ts';
import { INVOICE_COLUMNS, toInvoice, toTransaction, TRANSACTION_COLUMNS } from './simulator-rows.ts';
import { hasLapsed, lapseReason, lockTransaction, recordCapture } from './simulator-transactions.ts';

export type { SimulatorCallbacks } from './simulator-callbacks.ts';
export type { SimulatorFaults } from './simulator-idempotency.ts';

/**
 * Statuses of a payment with money captured. A disputed one (`dispute`, `charged_back`) is one of the
 * first two underneath (simulator-rows.ts): only its disputed money is held from a refund.
 */
const REFUNDABLE: ReadonlySet<string> = new Set(['succeeded', 'partial_refunded', 'dispute', 'charged_back']);

/**
 * The simulated gateway's port (simulator.ts adds its sandbox controls): its books live in PostgreSQL
 * (schema gateway_sim), so the API, the worker and the standalone server see one gateway, and like a
 * real gateway it posts a signed GatewayCallback to our API after each state change that follows a
 * creation (capture, cancel, refund, payment, expiry, a chargeback's state, a kept card replaced).
 */
export class SimulatorBooks implements PaymentGateway, Chargebacks, KeptCardLookup {
  /** The simulator's boleto needs nothing of its payer beyond the usual name, e-mail and tax id. */
  readonly boletoPayerRequires = [] as const;
  /** Its browser token is a kept card already (reusable): kept before the charge. */
  readonly browserTokensSingleUse = false;
  readonly faults: SimulatorFaults = { failNext: 0, loseAnswerNext: 0, searchLagMs: 0 };
  /** Where callbacks go; tests that start the API on a free port point it there afterwards. */
  readonly callbacks: SimulatorCallbacks;
  /**
   * The validity a pix may be asked for (simulator-fidelity.ts): Mercado Pago's 30 minutes to 30 days
   * unless the sandbox's creator gives the engine's own range (ENGINE_PIX_WINDOW).
   */
  readonly pixExpiryWindow: PixExpiryWindow;
  /** The simulator's clock: tests move it to expire pix charges and boletos. */
  now: () => Date = () => new Date();
  protected readonly db: PlainSql;
  protected readonly delivery: CallbackDelivery;
  /** `now` as a function for the books' helpers: it reads `now` when called, so a test's new clock applies. */
  protected readonly clock = () => this.now();

  /** `connection`: a pg pool of its own, or a MikroORM instance whose pool it shares (tests). */
  constructor(
    connection: SimulatorConnection,
    callbacks: SimulatorCallbacks = {},
    options: { pixExpiryWindow?: PixExpiryWindow } = {},
  ) {
    this.pixExpiryWindow = options.pixExpiryWindow ?? MERCADO_PAGO_PIX_WINDOW;
    this.db = plainSql(connection);
    this.callbacks = { ...callbacks };
    this.delivery = new CallbackDelivery(this.callbacks);
  }

  // ── Cards and buyers ──────────────────────────────────────────────────────────────────────

  async tokenizeCard(card: CardInput, idempotencyKey: string): Promise<CardToken> {
    return this.once(idempotencyKey, 'tokenize_card', (sql) => storeCard(sql, card));
  }

  /** The simulator's browser tokens (its sandbox tokenization endpoint's) are its card tokens: reusable already. */
  async keepBrowserCard(browserToken: string, _owner?: CardOwner, _idempotencyKey?: string): Promise<CardToken> {
    return (await findCard((text, params) => this.db.query(text, params), browserToken)).token;
  }

  async createBuyer(buyer: BuyerInput, idempotencyKey: string): Promise<Buyer> {
    return this.once(idempotencyKey, 'create_buyer', (sql) => storeBuyer(sql, buyer));
  }

  // ── Card charges ──────────────────────────────────────────────────────────────────────────

  async chargeCard(input: CardChargeInput, idempotencyKey: string): Promise<GatewayTransaction> {
    if (!Number.isInteger(input.installments) || input.installments < 1 || input.installments > MAX_INSTALLMENTS) {
      throw new GatewayError(`installments must be between 1 and ${MAX_INSTALLMENTS}`, false);
    }
    assertAmount(input.amount);
    return this.once(idempotencyKey, 'charge_card', (sql, attempt) =>
      insertCardCharge(sql, this.clock, input, idempotencyKey, attempt),
    );
  }

  async capture(transactionId: string, amount: number | null, idempotencyKey: string): Promise<GatewayTransaction> {
    if (amount !== null) assertAmount(amount);
    const notices: GatewayCallback[] = [];
    const result = await this.once(idempotencyKey, 'capture', async (sql) => {
      const t = await lockTransaction(sql, transactionId);
      if (t.status !== 'pre_authorized') {
        throw new GatewayError(`Cannot capture a transaction that is ${t.status}`, false);
      }
      // The transaction amount, as refunds are measured; the buyer's instalment interest is the gateway's.
      const captured = amount ?? t.baseAmount;
      if (captured > t.baseAmount) throw new GatewayError('capture exceeds the authorized amount', false);
      await sql(
        `update gateway_sim.transactions set status = 'succeeded', confirmed_at = ?, updated_at = now() where id = ?`,
        [this.now(), t.id],
      );
      const updated = await recordCapture(sql, t.id, captured, idempotencyKey);
      notices.push(transactionNotice(updated, this.now()));
      return updated;
    });
    this.delivery.deliver(notices);
    return result;
  }

  async cancel(transactionId: string, idempotencyKey: string): Promise<GatewayTransaction> {
    const notices: GatewayCallback[] = [];
    const result = await this.once(idempotencyKey, 'cancel', async (sql) => {
      const t = await lockTransaction(sql, transactionId);
      if (t.status === 'canceled') return t;
      if (t.status !== 'pre_authorized' && t.status !== 'pending') {
        throw new GatewayError(`Cannot cancel a transaction that is ${t.status}`, false);
      }
      const [row] = await sql(
        `update gateway_sim.transactions set status = 'canceled', updated_at = now() where id = ? returning ${TRANSACTION_COLUMNS}`,
        [t.id],
      );
      const updated = toTransaction(row!);
      notices.push(transactionNotice(updated, this.now()));
      return updated;
    });
    this.delivery.deliver(notices);
    return result;
  }

  async refund(transactionId: string, amount: number, idempotencyKey: string): Promise<GatewayTransaction> {
    assertAmount(amount);
    const notices: GatewayCallback[] = [];
    const result = await this.once(idempotencyKey, 'refund', async (sql) => {
      const t = await lockTransaction(sql, transactionId);
      if (!REFUNDABLE.has(t.status)) {
        throw new GatewayError(`Cannot refund a transaction that is ${t.status}`, false);
      }
      // Money a dispute holds or took is no longer the seller's to give back; what it left still is.
      const disputed = await disputedAmount(sql, t.id);
      if (amount > t.capturedAmount - t.refundedAmount - disputed) {
        throw new GatewayError('refund exceeds captured amount', false);
      }
      const refunded = t.refundedAmount + amount;
      const status = refunded === t.capturedAmount ? 'refunded' : 'partial_refunded';
      await sql(
        `insert into gateway_sim.ledger (transaction_id, kind, amount, idempotency_key) values (?, 'refund', ?, ?)`,
        [t.id, amount, idempotencyKey],
      );
      const [row] = await sql(
        `update gateway_sim.transactions set status = ?, refunded_amount = ?, updated_at = now() where id = ?
         returning ${TRANSACTION_COLUMNS}`,
        [status, refunded, t.id],
      );
      const updated = toTransaction(row!);
      notices.push(transactionNotice(updated, this.now()));
      return updated;
    });
    this.delivery.deliver(notices);
    return result;
  }

  // ── Pix and boleto ────────────────────────────────────────────────────────────────────────

  async createPixCharge(input: PixChargeInput, idempotencyKey: string): Promise<GatewayTransaction> {
    assertAmount(input.amount);
    assertPixAccepted(input, this.pixExpiryWindow);
    return this.once(idempotencyKey, 'create_pix_charge', (sql) => insertPixCharge(sql, this.clock, input));
  }

  async createBoleto(input: BoletoChargeInput, idempotencyKey: string): Promise<GatewayTransaction> {
    assertAmount(input.amount);
    if (!isoDate.test(input.dueDate) || Number.isNaN(Date.parse(`${input.dueDate}T00:00:00Z`))) {
      throw new GatewayError('dueDate must be a date YYYY-MM-DD', false);
    }
    if (input.amount > 9_999_999_999) throw new GatewayError('amount too large for a boleto', false);
    return this.once(idempotencyKey, 'create_boleto', (sql) => insertBoleto(sql, this.clock, input));
  }

  /** Reads a transaction; a pending pix past its expiry or a boleto past its grace days fails now. */
  /** Its ledger of `window`, by the fee schedule and release calendar of simulator-ledger.ts. */
  async ledger(window: LedgerWindow): Promise<LedgerRow[]> {
    return ledgerRows(this.db, window);
  }

  async getTransaction(transactionId: string): Promise<GatewayTransaction | null> {
    const [row] = await this.db.query(`select ${TRANSACTION_COLUMNS} from gateway_sim.transactions where id = ?`, [
      transactionId,
    ]);
    if (!row) return null;
    const t = toTransaction(row);
    if (!hasLapsed(t, row, this.clock)) return t;
    const [lapsed] = await this.db.query(
      `update gateway_sim.transactions set status = 'failed', decline_reason = ?, updated_at = now()
       where id = ? and status = 'pending' returning ${TRANSACTION_COLUMNS}`,
      [lapseReason(t), t.id],
    );
    // Someone else changed it in between (paid it, or lapsed it first): read it again.
    if (!lapsed) return this.getTransaction(transactionId);
    const updated = toTransaction(lapsed);
    this.delivery.deliver([transactionNotice(updated, this.now())]);
    return updated;
  }

  /**
   * The transaction a chargeCard, createPixCharge or createBoleto call made under `idempotencyKey`,
   * as it stands now (read like getTransaction); null when no such call completed: the key is
   * unknown, its call was refused or failed (an attempt that throws stores nothing), or it belongs
   * to another operation. A call with this key that is running right now is waited for, so its
   * outcome is never missed; a call that has not reached the gateway yet cannot be seen. Under the
   * `searchLagMs` fault a transaction younger than the lag is a retryable `search_may_lag` error.
   */
  async findTransactionByIdempotencyKey(idempotencyKey: string): Promise<GatewayTransaction | null> {
    const transactionId = await transactionIdOfKey(this.db, idempotencyKey);
    const found = transactionId === null ? null : await this.getTransaction(transactionId);
    if (found) assertSearchCaughtUp(found, this.faults.searchLagMs, this.now());
    return found;
  }

  // ── Recurrence ────────────────────────────────────────────────────────────────────────────

  async createRecurrencePlan(input: RecurrencePlanInput, idempotencyKey: string): Promise<RecurrencePlan> {
    return this.once(idempotencyKey, 'create_recurrence_plan', (sql) => insertRecurrencePlan(sql, input));
  }

  async createSubscription(input: GatewaySubscriptionInput, idempotencyKey: string): Promise<GatewaySubscription> {
    if (!isoDate.test(input.startDate)) throw new GatewayError('startDate must be a date YYYY-MM-DD', false);
    return this.once(idempotencyKey, 'create_subscription', (sql) => insertSubscription(sql, input));
  }

  async cancelSubscription(subscriptionId: string, idempotencyKey: string): Promise<GatewaySubscription> {
    return this.once(idempotencyKey, 'cancel_subscription', (sql) => markSubscriptionCanceled(sql, subscriptionId));
  }

  async changeSubscriptionPlan(
    subscriptionId: string,
    planId: string,
    idempotencyKey: string,
  ): Promise<GatewaySubscription> {
    return this.once(idempotencyKey, 'change_subscription_plan', (sql) =>
      moveSubscriptionToPlan(sql, subscriptionId, planId),
    );
  }

  async createInvoice(input: GatewayInvoiceInput, idempotencyKey: string): Promise<GatewayInvoice> {
    assertAmount(input.amount);
    if (!isoDate.test(input.dueDate)) throw new GatewayError('dueDate must be a date YYYY-MM-DD', false);
    if (input.expirationDate != null && !isoDate.test(input.expirationDate)) {
      throw new GatewayError('expirationDate must be a date YYYY-MM-DD', false);
    }
    return this.once(idempotencyKey, 'create_invoice', (sql) => insertInvoice(sql, input));
  }

  /**
   * Voids an unpaid invoice (pending, or failed: refused or lapsed) so that it can never be paid; a
   * paid invoice is refused, and a voided one is answered as it is.
   */
  async cancelInvoice(invoiceId: string, idempotencyKey: string): Promise<GatewayInvoice> {
    const notices: GatewayCallback[] = [];
    const result = await this.once(idempotencyKey, 'cancel_invoice', (sql) =>
      voidInvoice(sql, this.clock, invoiceId, notices),
    );
    this.delivery.deliver(notices);
    return result;
  }

  /** Reads an invoice; a pending invoice past its expiration date has failed. */
  async getInvoice(invoiceId: string): Promise<GatewayInvoice | null> {
    const [row] = await this.db.query(`select ${INVOICE_COLUMNS} from gateway_sim.invoices where id = ?`, [invoiceId]);
    if (!row) return null;
    const invoice = toInvoice(row);
    const today = this.now().toISOString().slice(0, 10);
    if (invoice.status !== 'pending' || !invoice.expirationDate || invoice.expirationDate >= today) return invoice;
    const [failed] = await this.db.query(
      `update gateway_sim.invoices set status = 'failed' where id = ? and status = 'pending' returning ${INVOICE_COLUMNS}`,
      [invoiceId],
    );
    if (!failed) return this.getInvoice(invoiceId);
    const updated = toInvoice(failed);
    this.delivery.deliver([invoiceNotice(updated, this.now())]);
    return updated;
  }

  async listSubscriptionInvoices(subscriptionId: string): Promise<GatewayInvoice[]> {
    const rows = await this.db.query(
      `select ${INVOICE_COLUMNS} from gateway_sim.invoices where subscription_id = ? order by created_at, id`,
      [subscriptionId],
    );
    return rows.map(toInvoice);
  }

  // ── Chargebacks and the card updater ──────────────────────────────────────────────────────

  async getChargeback(chargebackId: string): Promise<GatewayChargeback | null> {
    return readChargeback(this.db, chargebackId);
  }

  async keptCard(cardTokenId: string): Promise<CardToken | null> {
    return readKeptCard(this.db, cardTokenId);
  }

  /** Resolves when every callback under way has been delivered or given up (tests await it). */
  async settleCallbacks(): Promise<void> {
    return this.delivery.settle();
  }

  // ── Internals ─────────────────────────────────────────────────────────────────────────────

  /** A sandbox control's change in one transaction; the notices it adds are sent once it commits. */
  protected async change<T>(run: (sql: Sql, notices: GatewayCallback[]) => Promise<T>): Promise<T> {
    const notices: GatewayCallback[] = [];
    const result = await this.db.transaction((sql) => run(sql, notices));
    this.delivery.deliver(notices);
    return result;
  }

  /** The port's calls that change the books go through here, on this gateway's books and faults. */
  protected async once<T>(key: string, operation: string, run: Attempt<T>): Promise<T> {
    return runOnceUnlessFaulted(this.db, this.faults, key, operation, run);
  }
}
