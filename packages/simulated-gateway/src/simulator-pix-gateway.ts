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
  type PixPayerPersona,
} from '../../../gateway/port.ts';
import { SimulatorBooks } from './simulator-books.ts';
import { assertAmount, isoDate } from './simulator-input-checks.ts';
import {
  assertMandateInput,
  cancelChargeByReceiver,
  cancelMandateByReceiver,
  insertMandate,
  insertMandateCharge,
  retryCharge,
} from './simulator-pix-automatico.ts';
import { authorize, revoke, setMaximum, settleDue } from './simulator-pix-payers.ts';
import { readCharge, readMandate } from './simulator-pix-rows.ts';
import { newId } from './simulator-rows.ts';

/**
 * The simulator's Pix Automático (decision 0096): the port's mandates and cycle charges on its books
 * (simulator-pix-automatico.ts) and the sandbox's payers and their bank (simulator-pix-payers.ts).
 * Every change is followed by its `mandate.updated` / `mandate_charge.updated` callbacks.
 */
export class SimulatorPixAutomatico extends SimulatorBooks implements PixAutomatico, SandboxPixAutomatico {
  async createMandate(input: MandateInput, idempotencyKey: string): Promise<GatewayMandate> {
    assertMandateInput(input);
    return this.pixOnce(idempotencyKey, 'create_mandate', (sql, notices) =>
      insertMandate(sql, this.clock, input, idempotencyKey, notices),
    );
  }

  async getMandate(mandateId: string): Promise<GatewayMandate | null> {
    const mandate = await readMandate((text, params) => this.db.query(text, params), mandateId);
    if (!mandate) return null;
    const { persona: _persona, ...port } = mandate;
    return port;
  }

  async cancelMandate(mandateId: string, idempotencyKey: string): Promise<GatewayMandate> {
    return this.pixOnce(idempotencyKey, 'cancel_mandate', (sql, notices) =>
      cancelMandateByReceiver(sql, this.clock, mandateId, notices),
    );
  }

  async createMandateCharge(input: MandateChargeInput, idempotencyKey: string): Promise<GatewayMandateCharge> {
    assertAmount(input.amount);
    if (!isoDate.test(input.dueDate)) throw new GatewayError('dueDate must be a date YYYY-MM-DD', false);
    return this.pixOnce(idempotencyKey, 'create_mandate_charge', (sql, notices) =>
      insertMandateCharge(sql, this.clock, input, idempotencyKey, notices),
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

  /** Sends a change's notices; under the `mandateNoticesTwiceReversed` fault, Pix Automático's come reversed and twice. */
  protected deliverPixNotices(notices: GatewayCallback[]): void {
    if (!this.faults.mandateNoticesTwiceReversed) return this.delivery.deliver(notices);
    const isPix = (n: GatewayCallback) => n.type === 'mandate.updated' || n.type === 'mandate_charge.updated';
    this.delivery.deliver(notices.filter((n) => !isPix(n)));
    const reversed = notices.filter(isPix).reverse();
    this.delivery.deliverInOrder([...reversed, ...reversed.map((n) => ({ ...n, id: newId('cb') }))]);
  }
}
