import { type Sql } from './database.ts';
import {
  GatewayError,
  type CardToken,
  type DeclineReason,
  type GatewayCallback,
  type GatewayChargeback,
  type GatewayInvoice,
  type GatewayTransaction,
  type SandboxControls,
  type SandboxRecurringBilling,
} from '../../../gateway/port.ts';
import { transactionNotice } from './simulator-callbacks.ts';
import { endCardReview } from './simulator-charges.ts';
import { cardUpdatedNotice, chargebackNotice, decideDispute, openDispute, replaceCard } from './simulator-disputes.ts';
import { billCycle, billNextCycle, settlePendingInvoice } from './simulator-recurrence.ts';
import { toTransaction, TRANSACTION_COLUMNS } from './simulator-rows.ts';
import { authorizationCode, lapseReason, lockTransaction, recordCapture } from './simulator-transactions.ts';
export type { SimulatorCallbacks } from './simulator-callbacks.ts';
export type { SimulatorFaults } from './simulator-idempotency.ts';
import { answerFirstPayment } from './simulator-pix-payers.ts';
import { SimulatorPixAutomatico } from './simulator-pix-gateway.ts';

/**
 * The embedded simulated gateway (the sandbox's gateway): its port (simulator-books.ts) and the
 * sandbox controls a tester or a test plays the buyer, the bank and the card network with (`pay`,
 * `expire`, `endReview`, `payInvoice`, `failInvoice`, `billSubscription`, `openChargeback`,
 * `decideChargeback`, `updateCard`), each followed by the callbacks a real gateway would send.
 * Pix Automático's port and sandbox come from SimulatorPixAutomatico (simulator-pix-gateway.ts).
 */
export class SimulatedGateway extends SimulatorPixAutomatico implements SandboxRecurringBilling, SandboxControls {
  // ── Sandbox controls (not part of the port) ───────────────────────────────────────────────

  /** The buyer's bank disputes a card payment (all that is left of it, or `amount` cents): a chargeback opens. */
  async openChargeback(transactionId: string, amount: number | null = null): Promise<GatewayChargeback> {
    return this.change(async (sql, notices) => {
      const opened = await openDispute(sql, this.clock, transactionId, amount);
      notices.push(chargebackNotice(opened, this.now()));
      return opened;
    });
  }

  /** The card network decides an open chargeback: won (the money comes back) or lost (it stays with the buyer). */
  async decideChargeback(chargebackId: string, outcome: 'won' | 'lost'): Promise<GatewayChargeback> {
    return this.change(async (sql, notices) => {
      const { dispute, changed } = await decideDispute(sql, this.clock, chargebackId, outcome);
      if (changed) notices.push(chargebackNotice(dispute, this.now()));
      return dispute;
    });
  }

  /** The issuer's card updater replaces a kept card with a new one (new last four digits, new expiry). */
  async updateCard(
    cardTokenId: string,
    next: { last4: string; expirationMonth: string; expirationYear: string },
  ): Promise<CardToken> {
    return this.change(async (sql, notices) => {
      const replacement = await replaceCard(sql, cardTokenId, next);
      notices.push(cardUpdatedNotice(cardTokenId, replacement, this.now()));
      return replacement;
    });
  }

  /**
   * The buyer pays a pending pix or boleto. Paying a paid one again changes nothing. A cancelled one
   * is paid too until it would have lapsed: a bank that took the payment before the cancellation
   * reached it (the engine must give such money back).
   */
  async pay(transactionId: string): Promise<GatewayTransaction> {
    const current = await this.getTransaction(transactionId);
    if (!current) throw new GatewayError(`Unknown transaction ${transactionId}`, false);
    return this.pixChange(async (sql, notices) => {
      const t = await lockTransaction(sql, transactionId);
      if (t.paymentType === 'credit') throw new GatewayError('Only a pix or boleto charge is paid this way', false);
      if (t.status === 'succeeded') return t;
      if (t.status !== 'pending' && !(t.status === 'canceled' && (await stillPayable(sql, t.id, this.now())))) {
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
      const updated = await recordCapture(sql, t.id, t.baseAmount, null);
      notices.push(transactionNotice(updated, this.now()));
      // Pix Automático's journey 3: paying a mandate's first charge answers its recurrence.
      await answerFirstPayment(sql, this.clock, t.id, notices);
      return updated;
    });
  }

  /** The review of a card charge held for it ends, approved or declined as its test card says (endCardReview). */
  async endReview(transactionId: string): Promise<GatewayTransaction> {
    return this.change(async (sql, notices) => {
      const before = await lockTransaction(sql, transactionId);
      const ended = await endCardReview(sql, this.clock, transactionId);
      if (ended.status !== before.status) notices.push(transactionNotice(ended, this.now()));
      return ended;
    });
  }

  /** A pending pix expires (declineReason expired) or a pending boleto goes overdue now. */
  async expire(transactionId: string): Promise<GatewayTransaction> {
    return this.change(async (sql, notices) => {
      const t = await lockTransaction(sql, transactionId);
      if (t.paymentType === 'credit') throw new GatewayError('Only a pix or boleto charge expires', false);
      if (t.status === 'failed') return t;
      if (t.status !== 'pending') throw new GatewayError(`Cannot expire a transaction that is ${t.status}`, false);
      const [row] = await sql(
        `update gateway_sim.transactions set status = 'failed', decline_reason = ?, updated_at = now()
         where id = ? returning ${TRANSACTION_COLUMNS}`,
        [lapseReason(t), t.id],
      );
      const updated = toTransaction(row!);
      notices.push(transactionNotice(updated, this.now()));
      return updated;
    });
  }

  /** The gateway's charge of a pending invoice is refused (card_declined): the invoice fails with that transaction. */
  async failInvoice(invoiceId: string): Promise<GatewayInvoice> {
    return this.settleInvoice(invoiceId, 'card_declined');
  }

  /** The gateway charges a subscription's invoice to its card: the invoice is paid, a transaction captured. */
  async payInvoice(invoiceId: string): Promise<GatewayInvoice> {
    return this.settleInvoice(invoiceId, null);
  }

  /** payInvoice and failInvoice: settlePendingInvoice in one transaction, its callbacks sent once it commits. */
  private async settleInvoice(invoiceId: string, declineReason: DeclineReason | null): Promise<GatewayInvoice> {
    return this.change((sql, notices) => settlePendingInvoice(sql, this.clock, invoiceId, declineReason, notices));
  }

  /**
   * The gateway's recurrence runs once for a subscription, as on a cycle's due date: its earliest
   * unpaid cycle is charged to the subscription's card (another try at a refused invoice), or, when
   * every cycle so far is paid, the next cycle's invoice is made and charged. A canceled subscription
   * is never billed.
   */
  async billSubscription(subscriptionId: string): Promise<GatewayInvoice> {
    return this.change((sql, notices) => billNextCycle(sql, this.clock, subscriptionId, notices));
  }

  /**
   * The port's sandbox recurrence: cycle `cycle` billed once per idempotency key (one key per try),
   * as on its due date; a paid cycle is returned as it is (billCycle).
   */
  async billSandboxCycle(subscriptionId: string, cycle: number, idempotencyKey: string): Promise<GatewayInvoice> {
    const notices: GatewayCallback[] = [];
    const result = await this.once(idempotencyKey, 'bill_sandbox_cycle', (sql) =>
      billCycle(sql, this.clock, subscriptionId, cycle, notices),
    );
    this.delivery.deliver(notices);
    return result;
  }
}

/** A cancelled pix or boleto whose deadline has not passed (see `pay`). */
async function stillPayable(sql: Sql, transactionId: string, now: Date): Promise<boolean> {
  const [row] = await sql('select lapses_at from gateway_sim.transactions where id = ?', [transactionId]);
  return row?.lapses_at != null && new Date(row.lapses_at as string) > now;
}
