import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request, type Dispatcher } from 'undici';
import type { Orm } from '../db/orm.ts';
import { plainSql, type PlainSql, type Row, type Sql } from '../db/plain-sql.ts';
import { requiresCharge } from '../domain/checkout.ts';
import { DEFAULT_MONTHLY_RATE_BASIS_POINTS, installmentPlan } from '../domain/installments.ts';
import { MAX_INSTALLMENTS } from '../domain/money.ts';
import { addInterval, isoDate as isoDateOf, type PeriodInterval } from '../domain/periods.ts';
import { boletoDocument, BOLETO_GRACE_DAYS, pixDocument } from './payment-documents.ts';
import { CALLBACK_SIGNATURE_HEADER, signCallback } from './callback-signature.ts';
import {
  GatewayError,
  type BoletoChargeInput,
  type Buyer,
  type BuyerInput,
  type CardChargeInput,
  type CardInput,
  type CardToken,
  type DeclineReason,
  type GatewayCallback,
  type GatewayInvoice,
  type GatewayInvoiceInput,
  type GatewaySubscription,
  type GatewaySubscriptionInput,
  type GatewayTransaction,
  type PaymentGateway,
  type PixChargeInput,
  type RecurrencePlan,
  type RecurrencePlanInput,
} from './port.ts';
import { cardBrand, cardOutcome, digitsOf, isExpired, type CardOutcome } from './test-cards.ts';

/** Test hooks: make the next calls fail the way a real gateway sometimes does. */
export interface SimulatorFaults {
  /** Number of upcoming calls that fail with a retryable error (as a 503 would), changing nothing. */
  failNext: number;
  /**
   * Number of upcoming calls that are carried out (and committed: a charge is captured) whose
   * answer is then lost: the caller gets a retryable error, as after a timeout or a reset connection.
   * Lookups (getTransaction, findTransactionByIdempotencyKey…) are never affected.
   */
  loseAnswerNext: number;
}

/** The operations that create a transaction: what findTransactionByIdempotencyKey answers for. */
const TRANSACTION_OPERATIONS = ['charge_card', 'create_pix_charge', 'create_boleto'];

export interface SimulatorCallbacks {
  /** Our callback endpoint; no callbacks are sent without it. */
  callbackUrl?: string;
  /** Signs every callback (see callback-signature.ts). */
  callbackSecret?: string;
}

const TRANSACTION_COLUMNS = `id, reference, status, payment_type, amount, base_amount, currency, installments,
  installment_amounts, authorization_code, decline_reason, card, pix, boleto, buyer_id, transaction_number,
  captured_amount, refunded_amount, lapses_at, created_at, confirmed_at`;
const INVOICE_COLUMNS = `id, subscription_id, amount, currency, status, due_date::text as due_date,
  expiration_date::text as expiration_date, paid_at, created_at, transaction_id, cycle`;

/** Pauses between callback deliveries of one notification; a notification is tried once more per pause. */
const CALLBACK_RETRY_DELAYS_MS = [250, 1000, 3000];

const newId = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;
const authorizationCode = () => randomBytes(3).toString('hex').toUpperCase();
const isoOf = (v: unknown) => (v == null ? null : new Date(v as string).toISOString());
const isoDate = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The embedded simulated gateway (the sandbox's gateway). Its books live in PostgreSQL
 * (schema gateway_sim), so the API, the worker and the standalone server see one gateway.
 *
 * Besides the port it has sandbox controls (`pay`, `expire`, `payInvoice`, `failInvoice`) and, like a real gateway,
 * posts a signed GatewayCallback to our API after each state change that follows a creation
 * (capture, cancel, refund, payment, expiry).
 */
export class SimulatedGateway implements PaymentGateway {
  readonly faults: SimulatorFaults = { failNext: 0, loseAnswerNext: 0 };
  /** Where callbacks go; tests that start the API on a free port point it there afterwards. */
  readonly callbacks: SimulatorCallbacks;
  /** The simulator's clock: tests move it to expire pix charges and boletos. */
  now: () => Date = () => new Date();
  private readonly db: PlainSql;
  private readonly inflight = new Set<Promise<void>>();
  private insecureAgent: Agent | null = null;

  constructor(orm: Orm, callbacks: SimulatorCallbacks = {}) {
    this.db = plainSql(orm);
    this.callbacks = { ...callbacks };
  }

  // ── Cards and buyers ──────────────────────────────────────────────────────────────────────

  async tokenizeCard(card: CardInput, idempotencyKey: string): Promise<CardToken> {
    return this.once(idempotencyKey, 'tokenize_card', (sql) => this.storeCard(sql, card));
  }

  async createBuyer(buyer: BuyerInput, idempotencyKey: string): Promise<Buyer> {
    return this.once(idempotencyKey, 'create_buyer', (sql) => this.storeBuyer(sql, buyer));
  }

  // ── Card charges ──────────────────────────────────────────────────────────────────────────

  async chargeCard(input: CardChargeInput, idempotencyKey: string): Promise<GatewayTransaction> {
    if (!Number.isInteger(input.installments) || input.installments < 1 || input.installments > MAX_INSTALLMENTS) {
      throw new GatewayError(`installments must be between 1 and ${MAX_INSTALLMENTS}`, false);
    }
    assertAmount(input.amount);
    return this.once(idempotencyKey, 'charge_card', async (sql, attempt) => {
      const { token, outcome } =
        'token' in input.card
          ? await this.findCard(sql, input.card.token)
          : await this.storeCard(sql, input.card, true);
      if (outcome === 'processing_error_once' && attempt === 1) {
        throw new GatewayError('Processing error at the card network; retry with the same idempotency key', true);
      }
      if (input.buyerId) await this.requireBuyer(sql, input.buyerId);
      const declineReason = this.declineReasonOf(outcome, token, 'token' in input.card ? null : input.card.cvv);
      const plan = installmentPlan(input.amount, input.installments, {
        noFees: input.noFeesInstallments,
        monthlyRateBasisPoints: DEFAULT_MONTHLY_RATE_BASIS_POINTS,
      });
      const status = declineReason
        ? 'failed'
        : input.capture && outcome !== 'authorize_only'
          ? 'succeeded'
          : 'pre_authorized';
      const now = this.now();
      const row = await this.insertTransaction(sql, {
        reference: input.reference,
        status,
        paymentType: 'credit',
        amount: plan.total,
        baseAmount: input.amount,
        currency: input.currency,
        installments: input.installments,
        installmentAmounts: plan.installmentAmounts,
        authorizationCode: declineReason ? null : authorizationCode(),
        declineReason,
        cardId: token.id,
        card: token,
        buyerId: input.buyerId ?? null,
        confirmedAt: status === 'succeeded' ? now : null,
        now,
      });
      if (status === 'succeeded') return this.recordCapture(sql, row.id, plan.total, idempotencyKey);
      return row;
    });
  }

  async capture(transactionId: string, amount: number | null, idempotencyKey: string): Promise<GatewayTransaction> {
    if (amount !== null) assertAmount(amount);
    const notices: GatewayCallback[] = [];
    const result = await this.once(idempotencyKey, 'capture', async (sql) => {
      const t = await this.lockTransaction(sql, transactionId);
      if (t.status !== 'pre_authorized') {
        throw new GatewayError(`Cannot capture a transaction that is ${t.status}`, false);
      }
      const captured = amount ?? t.amount;
      if (captured > t.amount) throw new GatewayError('capture exceeds the authorized amount', false);
      await sql(
        `update gateway_sim.transactions set status = 'succeeded', confirmed_at = ?, updated_at = now() where id = ?`,
        [this.now(), t.id],
      );
      const updated = await this.recordCapture(sql, t.id, captured, idempotencyKey);
      notices.push(this.transactionNotice(updated));
      return updated;
    });
    this.deliver(notices);
    return result;
  }

  async cancel(transactionId: string, idempotencyKey: string): Promise<GatewayTransaction> {
    const notices: GatewayCallback[] = [];
    const result = await this.once(idempotencyKey, 'cancel', async (sql) => {
      const t = await this.lockTransaction(sql, transactionId);
      if (t.status === 'canceled') return t;
      if (t.status !== 'pre_authorized' && t.status !== 'pending') {
        throw new GatewayError(`Cannot cancel a transaction that is ${t.status}`, false);
      }
      const [row] = await sql(
        `update gateway_sim.transactions set status = 'canceled', updated_at = now() where id = ? returning ${TRANSACTION_COLUMNS}`,
        [t.id],
      );
      const updated = toTransaction(row!);
      notices.push(this.transactionNotice(updated));
      return updated;
    });
    this.deliver(notices);
    return result;
  }

  async refund(transactionId: string, amount: number, idempotencyKey: string): Promise<GatewayTransaction> {
    assertAmount(amount);
    const notices: GatewayCallback[] = [];
    const result = await this.once(idempotencyKey, 'refund', async (sql) => {
      const t = await this.lockTransaction(sql, transactionId);
      if (t.status !== 'succeeded' && t.status !== 'partial_refunded') {
        throw new GatewayError(`Cannot refund a transaction that is ${t.status}`, false);
      }
      if (amount > t.capturedAmount - t.refundedAmount) throw new GatewayError('refund exceeds captured amount', false);
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
      notices.push(this.transactionNotice(updated));
      return updated;
    });
    this.deliver(notices);
    return result;
  }

  // ── Pix and boleto ────────────────────────────────────────────────────────────────────────

  async createPixCharge(input: PixChargeInput, idempotencyKey: string): Promise<GatewayTransaction> {
    assertAmount(input.amount);
    if (!Number.isInteger(input.expiresInSeconds) || input.expiresInSeconds <= 0) {
      throw new GatewayError('expiresInSeconds must be a positive integer', false);
    }
    return this.once(idempotencyKey, 'create_pix_charge', async (sql) => {
      const buyer = input.buyer ? await this.storeBuyer(sql, input.buyer) : null;
      const now = this.now();
      const id = newId('tr');
      const expiresAt = new Date(now.getTime() + input.expiresInSeconds * 1000);
      return this.insertTransaction(sql, {
        id,
        reference: input.reference,
        status: 'pending',
        paymentType: 'pix',
        amount: input.amount,
        baseAmount: input.amount,
        currency: input.currency,
        installments: 1,
        installmentAmounts: [input.amount],
        buyerId: buyer?.id ?? null,
        pix: pixDocument({ transactionId: id, reference: input.reference, amount: input.amount, expiresAt }),
        lapsesAt: expiresAt,
        now,
      });
    });
  }

  async createBoleto(input: BoletoChargeInput, idempotencyKey: string): Promise<GatewayTransaction> {
    assertAmount(input.amount);
    if (!isoDate.test(input.dueDate) || Number.isNaN(Date.parse(`${input.dueDate}T00:00:00Z`))) {
      throw new GatewayError('dueDate must be a date YYYY-MM-DD', false);
    }
    if (input.amount > 9_999_999_999) throw new GatewayError('amount too large for a boleto', false);
    return this.once(idempotencyKey, 'create_boleto', async (sql) => {
      const buyer = await this.storeBuyer(sql, input.buyer);
      const id = newId('tr');
      const [seq] = await sql(`select nextval('gateway_sim.transaction_numbers')::text as n`, []);
      const transactionNumber = seq!.n as string;
      return this.insertTransaction(sql, {
        id,
        transactionNumber,
        reference: input.reference,
        status: 'pending',
        paymentType: 'boleto',
        amount: input.amount,
        baseAmount: input.amount,
        currency: input.currency,
        installments: 1,
        installmentAmounts: [input.amount],
        buyerId: buyer.id,
        boleto: boletoDocument({ transactionId: id, transactionNumber, amount: input.amount, dueDate: input.dueDate }),
        lapsesAt: boletoLapsesAt(input.dueDate),
        now: this.now(),
      });
    });
  }

  /** Reads a transaction; a pending pix past its expiry or a boleto past its grace days fails now. */
  async getTransaction(transactionId: string): Promise<GatewayTransaction | null> {
    const [row] = await this.db.query(`select ${TRANSACTION_COLUMNS} from gateway_sim.transactions where id = ?`, [
      transactionId,
    ]);
    if (!row) return null;
    const t = toTransaction(row);
    if (!this.hasLapsed(t, row)) return t;
    const [lapsed] = await this.db.query(
      `update gateway_sim.transactions set status = 'failed', decline_reason = ?, updated_at = now()
       where id = ? and status = 'pending' returning ${TRANSACTION_COLUMNS}`,
      [lapseReason(t), t.id],
    );
    // Someone else changed it in between (paid it, or lapsed it first): read it again.
    if (!lapsed) return this.getTransaction(transactionId);
    const updated = toTransaction(lapsed);
    this.deliver([this.transactionNotice(updated)]);
    return updated;
  }

  /**
   * The transaction a chargeCard, createPixCharge or createBoleto call made under `idempotencyKey`,
   * as it stands now (read like getTransaction); null when no such call completed: the key is
   * unknown, its call was refused or failed (an attempt that throws stores nothing), or it belongs
   * to another operation. A call with this key that is running right now is waited for, so its
   * outcome is never missed; a call that has not reached the gateway yet cannot be seen.
   */
  async findTransactionByIdempotencyKey(idempotencyKey: string): Promise<GatewayTransaction | null> {
    const transactionId = await this.transactionIdOfKey(idempotencyKey);
    return transactionId === null ? null : this.getTransaction(transactionId);
  }

  // ── Recurrence ────────────────────────────────────────────────────────────────────────────

  async createRecurrencePlan(input: RecurrencePlanInput, idempotencyKey: string): Promise<RecurrencePlan> {
    return this.once(idempotencyKey, 'create_recurrence_plan', async (sql) => {
      const id = `plan_${randomBytes(12).toString('hex')}`;
      const rows = await sql(
        `insert into gateway_sim.recurrence_plans (id, reference, name, amount, currency, interval, interval_count)
         values (?, ?, ?, ?, ?, ?, ?) returning created_at`,
        [id, input.reference, input.name, input.amount, input.currency, input.interval, input.intervalCount],
      );
      return {
        id,
        reference: input.reference,
        amount: input.amount,
        currency: input.currency,
        interval: input.interval,
        intervalCount: input.intervalCount,
        createdAt: new Date(rows[0]!.created_at as string).toISOString(),
      };
    });
  }

  async createSubscription(input: GatewaySubscriptionInput, idempotencyKey: string): Promise<GatewaySubscription> {
    if (!isoDate.test(input.startDate)) throw new GatewayError('startDate must be a date YYYY-MM-DD', false);
    return this.once(idempotencyKey, 'create_subscription', async (sql) => {
      const [plan] = await sql('select id from gateway_sim.recurrence_plans where id = ?', [input.planId]);
      if (!plan) throw new GatewayError(`Unknown recurrence plan ${input.planId}`, false);
      await this.requireBuyer(sql, input.buyerId);
      await this.findCard(sql, input.cardToken);
      const [row] = await sql(
        `insert into gateway_sim.subscriptions (id, reference, plan_id, buyer_id, card_id, start_date, status)
         values (?, ?, ?, ?, ?, ?, 'active') returning *`,
        [newId('sub'), input.reference, input.planId, input.buyerId, input.cardToken, input.startDate],
      );
      return toSubscription(row!);
    });
  }

  async cancelSubscription(subscriptionId: string, idempotencyKey: string): Promise<GatewaySubscription> {
    return this.once(idempotencyKey, 'cancel_subscription', async (sql) => {
      const [row] = await sql(
        `update gateway_sim.subscriptions set status = 'canceled', canceled_at = coalesce(canceled_at, now())
         where id = ? returning *`,
        [subscriptionId],
      );
      if (!row) throw new GatewayError(`Unknown subscription ${subscriptionId}`, false);
      return toSubscription(row);
    });
  }

  async createInvoice(input: GatewayInvoiceInput, idempotencyKey: string): Promise<GatewayInvoice> {
    assertAmount(input.amount);
    if (!isoDate.test(input.dueDate)) throw new GatewayError('dueDate must be a date YYYY-MM-DD', false);
    if (input.expirationDate != null && !isoDate.test(input.expirationDate)) {
      throw new GatewayError('expirationDate must be a date YYYY-MM-DD', false);
    }
    return this.once(idempotencyKey, 'create_invoice', async (sql) => {
      const [sub] = await sql('select status from gateway_sim.subscriptions where id = ?', [input.subscriptionId]);
      if (!sub) throw new GatewayError(`Unknown subscription ${input.subscriptionId}`, false);
      if (sub.status !== 'active') throw new GatewayError('Cannot invoice a canceled subscription', false);
      const [row] = await sql(
        `insert into gateway_sim.invoices
           (id, subscription_id, amount, currency, description, status, due_date, expiration_date, no_fees_installments)
         values (?, ?, ?, ?, ?, 'pending', ?, ?, ?) returning ${INVOICE_COLUMNS}`,
        [
          newId('inv'),
          input.subscriptionId,
          input.amount,
          input.currency,
          input.description ?? null,
          input.dueDate,
          input.expirationDate ?? null,
          input.noFeesInstallments,
        ],
      );
      return toInvoice(row!);
    });
  }

  /**
   * Voids an unpaid invoice (pending, or failed: refused or lapsed) so that it can never be paid; a
   * paid invoice is refused, and a voided one is answered as it is.
   */
  async cancelInvoice(invoiceId: string, idempotencyKey: string): Promise<GatewayInvoice> {
    const notices: GatewayCallback[] = [];
    const result = await this.once(idempotencyKey, 'cancel_invoice', async (sql) => {
      const [row] = await sql(`select ${INVOICE_COLUMNS} from gateway_sim.invoices where id = ? for update`, [
        invoiceId,
      ]);
      if (!row) throw new GatewayError(`Unknown invoice ${invoiceId}`, false);
      if (row.status === 'voided') return toInvoice(row);
      if (row.status === 'paid') throw new GatewayError('Cannot void an invoice that is paid', false);
      const [voided] = await sql(
        `update gateway_sim.invoices set status = 'voided' where id = ? returning ${INVOICE_COLUMNS}`,
        [invoiceId],
      );
      const invoice = toInvoice(voided!);
      notices.push(this.invoiceNotice(invoice));
      return invoice;
    });
    this.deliver(notices);
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
    this.deliver([this.invoiceNotice(updated)]);
    return updated;
  }

  async listSubscriptionInvoices(subscriptionId: string): Promise<GatewayInvoice[]> {
    const rows = await this.db.query(
      `select ${INVOICE_COLUMNS} from gateway_sim.invoices where subscription_id = ? order by created_at, id`,
      [subscriptionId],
    );
    return rows.map(toInvoice);
  }

  // ── Sandbox controls (not part of the port) ───────────────────────────────────────────────

  /** The buyer pays a pending pix or boleto. Paying a paid one again changes nothing. */
  async pay(transactionId: string): Promise<GatewayTransaction> {
    const current = await this.getTransaction(transactionId);
    if (!current) throw new GatewayError(`Unknown transaction ${transactionId}`, false);
    const notices: GatewayCallback[] = [];
    const result = await this.db.transaction(async (sql) => {
      const t = await this.lockTransaction(sql, transactionId);
      if (t.paymentType === 'credit') throw new GatewayError('Only a pix or boleto charge is paid this way', false);
      if (t.status === 'succeeded') return t;
      if (t.status !== 'pending') {
        throw new GatewayError(
          `Cannot pay a transaction that is ${t.status}${t.declineReason ? ` (${t.declineReason})` : ''}`,
          false,
        );
      }
      await sql(
        `update gateway_sim.transactions set status = 'succeeded', confirmed_at = ?, authorization_code = ?, updated_at = now()
         where id = ?`,
        [this.now(), authorizationCode(), t.id],
      );
      const updated = await this.recordCapture(sql, t.id, t.amount, null);
      notices.push(this.transactionNotice(updated));
      return updated;
    });
    this.deliver(notices);
    return result;
  }

  /** A pending pix expires (declineReason expired) or a pending boleto goes overdue now. */
  async expire(transactionId: string): Promise<GatewayTransaction> {
    const notices: GatewayCallback[] = [];
    const result = await this.db.transaction(async (sql) => {
      const t = await this.lockTransaction(sql, transactionId);
      if (t.paymentType === 'credit') throw new GatewayError('Only a pix or boleto charge expires', false);
      if (t.status === 'failed') return t;
      if (t.status !== 'pending') throw new GatewayError(`Cannot expire a transaction that is ${t.status}`, false);
      const [row] = await sql(
        `update gateway_sim.transactions set status = 'failed', decline_reason = ?, updated_at = now()
         where id = ? returning ${TRANSACTION_COLUMNS}`,
        [lapseReason(t), t.id],
      );
      const updated = toTransaction(row!);
      notices.push(this.transactionNotice(updated));
      return updated;
    });
    this.deliver(notices);
    return result;
  }

  /** The gateway's charge of a pending invoice is refused (card_declined): the invoice fails with that transaction. */
  async failInvoice(invoiceId: string): Promise<GatewayInvoice> {
    return this.settleInvoice(invoiceId, 'card_declined');
  }

  /** The gateway charges a subscription's invoice to its card: the invoice is paid, a transaction captured. */
  async payInvoice(invoiceId: string): Promise<GatewayInvoice> {
    return this.settleInvoice(invoiceId, null);
  }

  /** The sandbox's settling of a pending invoice, paid or refused; the same outcome again returns it as it is. */
  private async settleInvoice(invoiceId: string, declineReason: DeclineReason | null): Promise<GatewayInvoice> {
    const notices: GatewayCallback[] = [];
    const result = await this.db.transaction(async (sql) => {
      const [inv] = await sql(`select ${INVOICE_COLUMNS} from gateway_sim.invoices where id = ? for update`, [
        invoiceId,
      ]);
      if (!inv) throw new GatewayError(`Unknown invoice ${invoiceId}`, false);
      const invoice = toInvoice(inv);
      // Settled so already: a paid invoice however it was paid, a failed one by a refused charge.
      if (invoice.status === 'paid' && !declineReason) return invoice;
      if (invoice.status === 'failed' && declineReason && invoice.transactionId) return invoice;
      if (invoice.status !== 'pending') {
        throw new GatewayError(
          `Cannot ${declineReason ? 'charge' : 'pay'} an invoice that is ${invoice.status}`,
          false,
        );
      }
      const [holder] = await sql(
        `select s.buyer_id, c.* from gateway_sim.subscriptions s join gateway_sim.cards c on c.id = s.card_id
         where s.id = ?`,
        [invoice.subscriptionId],
      );
      const card = cardTokenOf(holder!);
      return this.chargeInvoice(sql, invoice, card, holder!.buyer_id as string, declineReason, notices);
    });
    this.deliver(notices);
    return result;
  }

  /**
   * The gateway's recurrence runs once for a subscription, as on a cycle's due date: its earliest
   * unpaid cycle is charged to the subscription's card (another try at a refused invoice), or, when
   * every cycle so far is paid, the next cycle's invoice is made and charged. A canceled subscription
   * is never billed.
   */
  async billSubscription(subscriptionId: string): Promise<GatewayInvoice> {
    const notices: GatewayCallback[] = [];
    const result = await this.db.transaction(async (sql) => {
      const [sub] = await sql(
        `select s.status, s.card_id, s.buyer_id, s.start_date::text as start_date, p.amount, p.currency, p.interval,
                p.interval_count
         from gateway_sim.subscriptions s join gateway_sim.recurrence_plans p on p.id = s.plan_id
         where s.id = ? for update of s`,
        [subscriptionId],
      );
      if (!sub) throw new GatewayError(`Unknown subscription ${subscriptionId}`, false);
      if (sub.status !== 'active') throw new GatewayError('Cannot bill a canceled subscription', false);
      const [unpaid] = await sql(
        `select ${INVOICE_COLUMNS} from gateway_sim.invoices
         where subscription_id = ? and cycle is not null and status <> 'paid' order by cycle limit 1`,
        [subscriptionId],
      );
      const invoice = unpaid ? toInvoice(unpaid) : await this.openCycle(sql, subscriptionId, sub);
      const { token, outcome } = await this.findCard(sql, sub.card_id as string);
      const declineReason = this.declineReasonOf(outcome, token, null);
      return this.chargeInvoice(sql, invoice, token, sub.buyer_id as string, declineReason, notices);
    });
    this.deliver(notices);
    return result;
  }

  /** Resolves when every callback under way has been delivered or given up (tests await it). */
  async settleCallbacks(): Promise<void> {
    while (this.inflight.size > 0) await Promise.allSettled([...this.inflight]);
  }

  // ── Internals ─────────────────────────────────────────────────────────────────────────────

  /**
   * One charge of an invoice to the subscription's card (every way an invoice is charged comes here):
   * its transaction, captured unless refused, the invoice paid or failed with it, and both notices.
   */
  private async chargeInvoice(
    sql: Sql,
    invoice: GatewayInvoice,
    card: CardToken,
    buyerId: string,
    declineReason: DeclineReason | null,
    notices: GatewayCallback[],
  ): Promise<GatewayInvoice> {
    const { amount } = invoice;
    const now = this.now();
    const tx = await this.insertTransaction(sql, {
      reference: invoice.id,
      status: declineReason ? 'failed' : 'succeeded',
      paymentType: 'credit',
      amount,
      baseAmount: amount,
      currency: invoice.currency,
      installments: 1,
      installmentAmounts: [amount],
      authorizationCode: declineReason ? null : authorizationCode(),
      declineReason,
      cardId: card.id,
      card,
      buyerId,
      confirmedAt: declineReason ? null : now,
      now,
    });
    const charged = declineReason ? tx : await this.recordCapture(sql, tx.id, amount, null);
    const [row] = await sql(
      `update gateway_sim.invoices set status = ?, paid_at = ?, transaction_id = ?, attempts = attempts + 1
       where id = ? returning ${INVOICE_COLUMNS}`,
      [declineReason ? 'failed' : 'paid', declineReason ? null : now, tx.id, invoice.id],
    );
    const billed = toInvoice(row!);
    notices.push(this.invoiceNotice(billed), this.transactionNotice(charged));
    return billed;
  }

  private declineReasonOf(outcome: CardOutcome, card: CardToken, cvv: string | null): DeclineReason | null {
    if (outcome === 'decline:invalid_card') return 'invalid_card';
    if (isExpired(card.expirationMonth, card.expirationYear, this.now())) return 'expired_card';
    if (cvv !== null && !/^\d{3,4}$/.test(cvv)) return 'incorrect_cvc';
    if (outcome.startsWith('decline:')) return outcome.slice('decline:'.length) as DeclineReason;
    return null;
  }

  private hasLapsed(t: GatewayTransaction, row: Row): boolean {
    return t.status === 'pending' && row.lapses_at != null && new Date(row.lapses_at as string) <= this.now();
  }

  /** Keeps what a receipt shows and the test card's scripted outcome; never the number or the CVV. */
  private async storeCard(sql: Sql, card: CardInput): Promise<CardToken>;
  private async storeCard(
    sql: Sql,
    card: CardInput,
    withOutcome: true,
  ): Promise<{ token: CardToken; outcome: CardOutcome }>;
  private async storeCard(sql: Sql, card: CardInput, withOutcome = false) {
    const digits = digitsOf(card.number);
    const outcome = cardOutcome(digits);
    const [row] = await sql(
      `insert into gateway_sim.cards (id, brand, first4, last4, holder_name, expiration_month, expiration_year, outcome)
       values (?, ?, ?, ?, ?, ?, ?, ?) returning *`,
      [
        newId('card'),
        cardBrand(digits),
        digits.slice(0, 4),
        digits.slice(-4),
        card.holderName,
        card.expirationMonth,
        card.expirationYear,
        outcome,
      ],
    );
    const token = cardTokenOf(row!);
    return withOutcome ? { token, outcome } : token;
  }

  /** The invoice of a subscription's next cycle, due that many plan intervals after its start date. */
  private async openCycle(sql: Sql, subscriptionId: string, sub: Row): Promise<GatewayInvoice> {
    const [last] = await sql(
      'select max(cycle) as cycle from gateway_sim.invoices where subscription_id = ? and cycle is not null',
      [subscriptionId],
    );
    const cycle = last?.cycle == null ? 0 : Number(last.cycle) + 1;
    const start = new Date(`${sub.start_date as string}T00:00:00Z`);
    const due = addInterval(start, sub.interval as PeriodInterval, Number(sub.interval_count) * cycle);
    const [row] = await sql(
      `insert into gateway_sim.invoices
         (id, subscription_id, amount, currency, status, due_date, no_fees_installments, cycle)
       values (?, ?, ?, ?, 'pending', ?, true, ?) returning ${INVOICE_COLUMNS}`,
      [newId('inv'), subscriptionId, Number(sub.amount), sub.currency, isoDateOf(due), cycle],
    );
    return toInvoice(row!);
  }

  private async findCard(sql: Sql, tokenId: string): Promise<{ token: CardToken; outcome: CardOutcome }> {
    const [row] = await sql('select * from gateway_sim.cards where id = ?', [tokenId]);
    if (!row) throw new GatewayError(`Unknown card token ${tokenId}`, false);
    return { token: cardTokenOf(row), outcome: row.outcome as CardOutcome };
  }

  private async storeBuyer(sql: Sql, buyer: BuyerInput): Promise<Buyer> {
    const id = newId('buyer');
    await sql('insert into gateway_sim.buyers (id, email, name, tax_id) values (?, ?, ?, ?)', [
      id,
      buyer.email,
      buyer.name ?? null,
      buyer.taxId ?? null,
    ]);
    return { id, email: buyer.email, name: buyer.name ?? null, taxId: buyer.taxId ?? null };
  }

  private async requireBuyer(sql: Sql, buyerId: string): Promise<void> {
    const [row] = await sql('select 1 from gateway_sim.buyers where id = ?', [buyerId]);
    if (!row) throw new GatewayError(`Unknown buyer ${buyerId}`, false);
  }

  private async insertTransaction(
    sql: Sql,
    t: {
      id?: string;
      transactionNumber?: string;
      reference: string;
      status: string;
      paymentType: string;
      amount: number;
      baseAmount: number;
      currency: string;
      installments: number;
      installmentAmounts: number[];
      authorizationCode?: string | null;
      declineReason?: DeclineReason | null;
      cardId?: string | null;
      card?: CardToken | null;
      buyerId?: string | null;
      pix?: unknown;
      boleto?: unknown;
      lapsesAt?: Date | null;
      confirmedAt?: Date | null;
      now: Date;
    },
  ): Promise<GatewayTransaction> {
    const [row] = await sql(
      `insert into gateway_sim.transactions
         (id, reference, status, payment_type, amount, base_amount, currency, installments, installment_amounts,
          authorization_code, decline_reason, card_id, card, pix, boleto, buyer_id, transaction_number, lapses_at,
          created_at, confirmed_at, updated_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?, ?::jsonb, ?::jsonb, ?::jsonb, ?,
               coalesce(?, nextval('gateway_sim.transaction_numbers')::text), ?, ?, ?, ?)
       returning ${TRANSACTION_COLUMNS}`,
      [
        t.id ?? newId('tr'),
        t.reference,
        t.status,
        t.paymentType,
        t.amount,
        t.baseAmount,
        t.currency,
        t.installments,
        JSON.stringify(t.installmentAmounts),
        t.authorizationCode ?? null,
        t.declineReason ?? null,
        t.cardId ?? null,
        t.card ? JSON.stringify(t.card) : null,
        t.pix ? JSON.stringify(t.pix) : null,
        t.boleto ? JSON.stringify(t.boleto) : null,
        t.buyerId ?? null,
        t.transactionNumber ?? null,
        t.lapsesAt ?? null,
        t.now,
        t.confirmedAt ?? null,
        t.now,
      ],
    );
    return toTransaction(row!);
  }

  /** Money moves: one ledger row, and the transaction's captured amount follows it. */
  private async recordCapture(
    sql: Sql,
    transactionId: string,
    amount: number,
    key: string | null,
  ): Promise<GatewayTransaction> {
    await sql(
      `insert into gateway_sim.ledger (transaction_id, kind, amount, idempotency_key) values (?, 'capture', ?, ?)`,
      [transactionId, amount, key],
    );
    const [row] = await sql(
      `update gateway_sim.transactions set captured_amount = captured_amount + ?, updated_at = now() where id = ?
       returning ${TRANSACTION_COLUMNS}`,
      [amount, transactionId],
    );
    return toTransaction(row!);
  }

  private async lockTransaction(sql: Sql, transactionId: string): Promise<GatewayTransaction> {
    const [row] = await sql(`select ${TRANSACTION_COLUMNS} from gateway_sim.transactions where id = ? for update`, [
      transactionId,
    ]);
    if (!row) throw new GatewayError(`Unknown transaction ${transactionId}`, false);
    return toTransaction(row);
  }

  private transactionNotice(t: GatewayTransaction): GatewayCallback {
    return {
      id: newId('cb'),
      type: 'transaction.updated',
      transactionId: t.id,
      status: t.status,
      occurredAt: this.now().toISOString(),
    };
  }

  private invoiceNotice(i: GatewayInvoice): GatewayCallback {
    return {
      id: newId('cb'),
      type: 'invoice.updated',
      invoiceId: i.id,
      status: i.status,
      occurredAt: this.now().toISOString(),
    };
  }

  /** Sends each notice in the background; delivery failures are retried a few times, never thrown. */
  private deliver(notices: GatewayCallback[]): void {
    for (const notice of notices) {
      const sending: Promise<void> = this.post(notice)
        .catch(() => undefined)
        .finally(() => this.inflight.delete(sending));
      this.inflight.add(sending);
    }
  }

  private async post(notice: GatewayCallback): Promise<void> {
    const { callbackUrl: url, callbackSecret: secret } = this.callbacks;
    if (!url || !secret) return;
    const body = JSON.stringify(notice);
    for (let attempt = 0; ; attempt++) {
      try {
        const res = await request(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            [CALLBACK_SIGNATURE_HEADER]: signCallback(secret, body, new Date()),
          },
          body,
          dispatcher: this.dispatcherFor(url),
          headersTimeout: 5000,
          bodyTimeout: 5000,
        });
        await res.body.dump();
        if (res.statusCode < 300) return;
      } catch {
        // Unreachable or timed out: retried below, like any other failed delivery.
      }
      const delay = CALLBACK_RETRY_DELAYS_MS[attempt];
      if (delay === undefined) return;
      await sleep(delay);
    }
  }

  /** Our own API on this machine runs with a self-signed certificate; anywhere else, TLS is verified. */
  private dispatcherFor(url: string): Dispatcher | undefined {
    const host = new URL(url).hostname;
    if (host !== '127.0.0.1' && host !== 'localhost' && host !== '[::1]') return undefined;
    this.insecureAgent ??= new Agent({ connect: { rejectUnauthorized: false } });
    return this.insecureAgent;
  }

  /**
   * Claiming the key, like `once` does, and then giving it back (rolling back) makes the lookup wait
   * on the row lock of a call with the same key that has not committed yet.
   */
  private async transactionIdOfKey(key: string): Promise<string | null> {
    const free = new Error('key not used');
    try {
      return await this.db.transaction(async (sql) => {
        const claimed = await sql(
          `insert into gateway_sim.idempotency (key, operation, result) values (?, 'lookup', 'null')
           on conflict (key) do nothing returning key`,
          [key],
        );
        if (claimed.length > 0) throw free;
        const [stored] = await sql(`select operation, result->>'id' as id from gateway_sim.idempotency where key = ?`, [
          key,
        ]);
        return TRANSACTION_OPERATIONS.includes(stored!.operation as string)
          ? ((stored!.id as string | null) ?? null)
          : null;
      });
    } catch (err) {
      if (err === free) return null;
      throw err;
    }
  }

  /** `runOnce`, unless an injected fault (`faults`) says otherwise. */
  private async once<T>(key: string, operation: string, run: (sql: Sql, attempt: number) => Promise<T>): Promise<T> {
    if (this.faults.failNext > 0) {
      this.faults.failNext -= 1;
      throw new GatewayError('Simulated gateway unavailable', true);
    }
    if (this.faults.loseAnswerNext > 0) {
      this.faults.loseAnswerNext -= 1;
      // Whatever the call did stays done; only its answer (a result or a refusal) never arrives.
      await this.runOnce(key, operation, run).catch(() => undefined);
      throw new GatewayError('Simulated lost answer: the gateway handled the call, its answer never arrived', true);
    }
    return this.runOnce(key, operation, run);
  }

  /**
   * Runs `operation` at most once per idempotency key: the key row and the operation's writes commit
   * together, and a concurrent duplicate waits on the key's row lock, then reads the stored result.
   * An attempt that throws stores nothing (the key stays free for the retry). Every attempt is
   * traced in gateway_sim.attempts once its transaction has ended (committed or not), and `run`
   * learns its attempt number.
   */
  private async runOnce<T>(key: string, operation: string, run: (sql: Sql, attempt: number) => Promise<T>): Promise<T> {
    let outcome = 'error';
    try {
      return await this.db.transaction(async (sql) => {
        const [claimed] = await sql(
          `insert into gateway_sim.idempotency (key, operation, result) values (?, ?, 'null') on conflict (key) do nothing
           returning (select count(*)::int from gateway_sim.attempts where key = ?) + 1 as attempt`,
          [key, operation, key],
        );
        if (!claimed) {
          const [stored] = await sql('select operation, result from gateway_sim.idempotency where key = ?', [key]);
          if (stored!.operation !== operation) {
            throw new GatewayError(`Idempotency key reused for ${String(stored!.operation)}`, false);
          }
          outcome = 'replayed';
          return stored!.result as T;
        }
        const value = await run(sql, Number(claimed.attempt));
        await sql('update gateway_sim.idempotency set result = ? where key = ?', [JSON.stringify(value), key]);
        outcome = 'ran';
        return value;
      });
    } catch (err) {
      outcome = err instanceof Error ? `error: ${err.message}` : 'error';
      throw err;
    } finally {
      await this.db
        .query('insert into gateway_sim.attempts (key, operation, outcome) values (?, ?, ?)', [key, operation, outcome])
        .catch(() => undefined);
    }
  }
}

/** The engine's own rule (domain/checkout.ts): a total of zero is never sent to be charged. */
function assertAmount(amount: number): void {
  if (!Number.isSafeInteger(amount) || !requiresCharge(amount))
    throw new GatewayError('amount must be a positive integer of cents', false);
}

/** A boleto may still be paid for BOLETO_GRACE_DAYS whole days after its due date (UTC). */
function boletoLapsesAt(dueDate: string): Date {
  const due = new Date(`${dueDate}T00:00:00Z`);
  return new Date(due.getTime() + (BOLETO_GRACE_DAYS + 1) * 86_400_000);
}

const lapseReason = (t: GatewayTransaction): DeclineReason => (t.paymentType === 'pix' ? 'expired' : 'overdue');

function cardTokenOf(row: Row): CardToken {
  return {
    id: row.id as string,
    brand: row.brand as string,
    first4: row.first4 as string,
    last4: row.last4 as string,
    holderName: row.holder_name as string,
    expirationMonth: row.expiration_month as string,
    expirationYear: row.expiration_year as string,
  };
}

function toTransaction(row: Row): GatewayTransaction {
  return {
    id: row.id as string,
    reference: row.reference as string,
    status: row.status as GatewayTransaction['status'],
    paymentType: row.payment_type as GatewayTransaction['paymentType'],
    amount: Number(row.amount),
    baseAmount: Number(row.base_amount),
    currency: row.currency as string,
    installments: Number(row.installments),
    installmentAmounts: (row.installment_amounts as number[]).map(Number),
    authorizationCode: (row.authorization_code as string | null) ?? null,
    declineReason: (row.decline_reason as DeclineReason | null) ?? null,
    card: (row.card as CardToken | null) ?? null,
    pix: (row.pix as GatewayTransaction['pix']) ?? null,
    boleto: (row.boleto as GatewayTransaction['boleto']) ?? null,
    buyerId: (row.buyer_id as string | null) ?? null,
    transactionNumber: row.transaction_number as string,
    capturedAmount: Number(row.captured_amount),
    refundedAmount: Number(row.refunded_amount),
    createdAt: isoOf(row.created_at)!,
    confirmedAt: isoOf(row.confirmed_at),
  };
}

function toSubscription(row: Row): GatewaySubscription {
  return {
    id: row.id as string,
    reference: row.reference as string,
    planId: row.plan_id as string,
    buyerId: row.buyer_id as string,
    status: row.status as GatewaySubscription['status'],
    createdAt: isoOf(row.created_at)!,
  };
}

function toInvoice(row: Row): GatewayInvoice {
  return {
    id: row.id as string,
    subscriptionId: row.subscription_id as string,
    amount: Number(row.amount),
    currency: row.currency as string,
    status: row.status as GatewayInvoice['status'],
    dueDate: row.due_date as string,
    expirationDate: (row.expiration_date as string | null) ?? null,
    paidAt: isoOf(row.paid_at),
    createdAt: isoOf(row.created_at)!,
    transactionId: (row.transaction_id as string | null) ?? null,
    cycle: row.cycle == null ? null : Number(row.cycle),
  };
}
