import type { Sql } from './database.ts';
import {
  GatewayError,
  type GatewayCallback,
  type MandateChargeInput,
  type MandateInput,
  type PixAutomatico,
  type SandboxPixAutomatico,
  type GatewayMandate,
  type GatewayMandateCharge,
  type GatewayMandateRefund,
  type PixChargeInput,
  type PixPayerPersona,
  type GatewayTransaction,
} from '../../../gateway/port.ts';
import { transactionNotice } from './simulator-callbacks.ts';
import { insertPixCharge } from './simulator-charges.ts';
import { cobrNotificationOf, recNotificationOf } from '../../../gateway/bcb-pix-automatico.ts';
import { SimulatorBooks } from './simulator-books.ts';
import { assertAmount, isoDate } from './simulator-input-checks.ts';
import {
  assertMandateInput,
  cancelChargeByReceiver,
  cancelMandateByReceiver,
  insertMandate,
  insertMandateCharge,
  retryCharge,
  type BcbMandateCreation,
} from './simulator-pix-automatico.ts';
import { composeDueChargeQr, sendMandateRequest } from './simulator-pix-bcb.ts';
import { readRefund, refundCharge, refundPaidAttempt, refundsOfCharge } from './simulator-pix-refunds.ts';
import {
  authorize,
  expireLapsedRequest,
  requestLapsed,
  revoke,
  setMaximum,
  settleDue,
} from './simulator-pix-payers.ts';
import { readCharge, readMandate, recordOfNotice, withoutPersona } from './simulator-pix-rows.ts';
import { newId } from './simulator-rows.ts';

/**
 * The simulator's Pix Automático (decision 0096): the port's mandates and cycle charges on its books
 * (simulator-pix-automatico.ts) and the sandbox's payers and their bank (simulator-pix-payers.ts).
 * Every change is followed by its `mandate.updated` / `mandate_charge.updated` callbacks.
 */
export class SimulatorPixAutomatico extends SimulatorBooks implements PixAutomatico, SandboxPixAutomatico {
  /**
   * The BCB's webhooks (PUT /webhookrec, /webhookcobr): each notice of a rec or a cobr is posted to
   * `<rec>/rec` as `{ recs: [...] }` or `<cobr>/cobr` as `{ cobsr: [...] }`, as the record stood, instead
   * of the simulator's own callback.
   */
  readonly bcbWebhooks: { rec?: string; cobr?: string } = {};

  async createMandate(input: MandateInput, idempotencyKey: string): Promise<GatewayMandate> {
    return this.createBcbMandate(input, idempotencyKey, {});
  }

  /** As the BCB's POST /rec creates it: journey 3 on a pix made before, journey 1 without its request yet. */
  async createBcbMandate(
    input: MandateInput,
    idempotencyKey: string,
    bcb: BcbMandateCreation,
  ): Promise<GatewayMandate> {
    // A journey 3 mandate on a pix made before has no firstCharge to check: the pix is checked instead.
    assertMandateInput(bcb.firstPaymentId === undefined ? input : { ...input, journey: 'journey_2' });
    return this.pixOnce(idempotencyKey, 'create_mandate', (sql, notices) =>
      insertMandate(sql, this.clock, input, idempotencyKey, notices, bcb),
    );
  }

  /**
   * Journey 3's immediate charge with the txid its receiver chose (the BCB's PUT /cob/{txid}): a pix
   * of the simulator's, as the embedded journey 3 makes one, once per key.
   */
  async createFirstCharge(txid: string, input: PixChargeInput, idempotencyKey: string): Promise<GatewayTransaction> {
    return this.pixOnce(idempotencyKey, 'create_pix_charge', async (sql, notices) => {
      const transaction = await insertPixCharge(sql, this.clock, input, txid);
      notices.push(transactionNotice(transaction, this.now()));
      return transaction;
    });
  }

  /** Journey 4's composite QR code (GET /rec/{idRec}?txid=): binds the rec to its due-date charge, once. */
  async composeDueChargeQr(mandateId: string, txid: string): Promise<GatewayMandate> {
    return this.pixChange((sql) => composeDueChargeQr(sql, mandateId, txid));
  }

  /** Journey 1's request to the payer's bank (POST /solicrec), once per key. */
  async sendMandateRequest(mandateId: string, expiresAt: string, idempotencyKey: string): Promise<GatewayMandate> {
    return this.pixOnce(idempotencyKey, 'send_mandate_request', (sql) =>
      sendMandateRequest(sql, this.clock, mandateId, expiresAt, idempotencyKey),
    );
  }

  /** As it stands; a journey 1 request read past its expiry is expired first (expireLapsedRequest), as a PSP reports it. */
  async getMandate(mandateId: string): Promise<GatewayMandate | null> {
    const mandate = await readMandate((text, params) => this.db.query(text, params), mandateId);
    if (!mandate) return null;
    if (!requestLapsed(mandate, this.now())) return withoutPersona(mandate);
    return withoutPersona(
      await this.pixChange((sql, notices) => expireLapsedRequest(sql, this.clock, mandateId, notices)),
    );
  }

  /** A lapsed journey 1 request has expired already (read first, getMandate): refused, as any ended mandate is. */
  async cancelMandate(mandateId: string, idempotencyKey: string): Promise<GatewayMandate> {
    await this.getMandate(mandateId);
    return this.pixOnce(idempotencyKey, 'cancel_mandate', (sql, notices) =>
      cancelMandateByReceiver(sql, this.clock, mandateId, notices),
    );
  }

  async createMandateCharge(input: MandateChargeInput, idempotencyKey: string): Promise<GatewayMandateCharge> {
    return this.createMandateChargeAs(undefined, input, idempotencyKey);
  }

  /** The charge with the txid its receiver chose (the BCB's PUT /cobr/{txid}); else one formed from the key. */
  async createMandateChargeAs(
    txid: string | undefined,
    input: MandateChargeInput,
    idempotencyKey: string,
  ): Promise<GatewayMandateCharge> {
    assertAmount(input.amount);
    if (!isoDate.test(input.dueDate)) throw new GatewayError('dueDate must be a date YYYY-MM-DD', false);
    return this.pixOnce(idempotencyKey, 'create_mandate_charge', (sql, notices) =>
      insertMandateCharge(sql, this.clock, input, idempotencyKey, notices, txid),
    );
  }

  async getMandateCharge(chargeId: string): Promise<GatewayMandateCharge | null> {
    return readCharge((text, params) => this.db.query(text, params), chargeId);
  }

  async retryMandateCharge(
    chargeId: string,
    settlementDate: string,
    idempotencyKey: string,
  ): Promise<GatewayMandateCharge> {
    return this.pixOnce(idempotencyKey, 'retry_mandate_charge', (sql, notices) =>
      retryCharge(sql, this.clock, chargeId, settlementDate, notices),
    );
  }

  async cancelMandateCharge(chargeId: string, idempotencyKey: string): Promise<GatewayMandateCharge> {
    return this.pixOnce(idempotencyKey, 'cancel_mandate_charge', (sql, notices) =>
      cancelChargeByReceiver(sql, this.clock, chargeId, notices),
    );
  }

  /** A paid charge's refund (decision 0099), once per key; keyed by the refund's own row, not gateway_sim.idempotency. */
  async refundMandateCharge(chargeId: string, amount: number, idempotencyKey: string): Promise<GatewayMandateRefund> {
    return this.db.transaction((sql) => refundCharge(sql, this.clock, chargeId, amount, idempotencyKey));
  }

  /** The BCB's PUT /pix/{e2eid}/devolucao/{id}: the refund `id` of a paid attempt, made once. */
  async refundPix(endToEndId: string, id: string, amount: number): Promise<GatewayMandateRefund> {
    return this.db.transaction((sql) => refundPaidAttempt(sql, this.clock, endToEndId, id, amount));
  }

  /** The BCB's GET /pix/{e2eid}/devolucao/{id}. */
  async getPixRefund(endToEndId: string, id: string): Promise<GatewayMandateRefund | null> {
    return readRefund((text, params) => this.db.query(text, params), endToEndId, id);
  }

  /** What was given back of a charge, oldest first. */
  async mandateChargeRefunds(chargeId: string): Promise<GatewayMandateRefund[]> {
    return refundsOfCharge((text, params) => this.db.query(text, params), chargeId);
  }

  // ── Sandbox: the payer and their bank ─────────────────────────────────────────────────────

  async authorizeMandate(mandateId: string, persona: PixPayerPersona): Promise<GatewayMandate> {
    return this.pixChange((sql, notices) => authorize(sql, this.clock, mandateId, persona, notices));
  }

  async settleMandateCharges(asOf: string, mandateIds?: readonly string[]): Promise<GatewayMandateCharge[]> {
    if (!isoDate.test(asOf)) throw new GatewayError('asOf must be a date YYYY-MM-DD', false);
    return this.pixChange((sql, notices) => settleDue(sql, asOf, notices, mandateIds));
  }

  async revokeMandate(mandateId: string): Promise<GatewayMandate> {
    return this.pixChange((sql, notices) => revoke(sql, this.clock, mandateId, notices));
  }

  async setPayerMaximum(mandateId: string, maximum: number | null): Promise<GatewayMandate> {
    return this.pixChange((sql, notices) => setMaximum(sql, this.clock, mandateId, maximum, notices));
  }

  // ── Internals ─────────────────────────────────────────────────────────────────────────────

  /** A port call under its idempotency key; its notices are sent once it commits. */
  private async pixOnce<T>(
    key: string,
    operation: string,
    run: (sql: Sql, notices: GatewayCallback[]) => Promise<T>,
  ): Promise<T> {
    const notices: GatewayCallback[] = [];
    const result = await this.once(key, operation, (sql) => run(sql, notices));
    this.deliverPixNotices(notices);
    return result;
  }

  /** A sandbox change in one transaction; its notices are sent once it commits. */
  protected async pixChange<T>(run: (sql: Sql, notices: GatewayCallback[]) => Promise<T>): Promise<T> {
    const notices: GatewayCallback[] = [];
    const result = await this.db.transaction((sql) => run(sql, notices));
    this.deliverPixNotices(notices);
    return result;
  }

  /**
   * Sends a change's notices; under the `mandateNoticesTwiceReversed` fault, Pix Automático's come reversed
   * and twice. A rec's or cobr's notice goes by the BCB's webhook when one is registered for its kind, as a
   * PSP notifies (the standalone server registers ours), and by the simulator's own callback otherwise.
   */
  protected deliverPixNotices(notices: GatewayCallback[]): void {
    const twiceReversed = this.faults.mandateNoticesTwiceReversed === true;
    const isPix = (n: GatewayCallback) => n.type === 'mandate.updated' || n.type === 'mandate_charge.updated';
    const pix = twiceReversed ? notices.filter(isPix).reverse() : notices.filter(isPix);
    const webhooks = pix.flatMap((n) => this.bcbWebhookOf(n));
    this.delivery.deliverBcb(twiceReversed ? [...webhooks, ...webhooks] : webhooks);
    const enveloped = (n: GatewayCallback) => !isPix(n) || this.bcbWebhookOf(n).length === 0;
    if (!twiceReversed) return this.delivery.deliver(notices.filter(enveloped));
    this.delivery.deliver(notices.filter((n) => !isPix(n)));
    const own = pix.filter(enveloped);
    this.delivery.deliverInOrder([...own, ...own.map((n) => ({ ...n, id: newId('cb') }))]);
  }

  /** The BCB's webhook post of a notice, when one is registered for its kind. */
  private bcbWebhookOf(notice: GatewayCallback): { url: string; body: unknown }[] {
    const record = recordOfNotice(notice);
    const { rec, cobr } = this.bcbWebhooks;
    if (record && 'mandate' in record && rec)
      return [{ url: `${rec}/rec`, body: { recs: [recNotificationOf(record.mandate)] } }];
    if (record && 'charge' in record && cobr)
      return [{ url: `${cobr}/cobr`, body: { cobsr: [cobrNotificationOf(record.charge)] } }];
    return [];
  }
}
