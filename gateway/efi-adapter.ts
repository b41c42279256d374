import type { LedgerRow } from '../domain/reconciliation.ts';
import {
  EfiGatewayError,
  efiCall,
  efiClient,
  efiRead,
  idFromKey,
  looseSdk,
  reais,
  type EfiClient,
  type EfiOptions,
} from './efi-client.ts';
import {
  boletoBody,
  cobBody,
  isBoletoId,
  ledgerRowsOfPix,
  transactionFromCharge,
  transactionFromCob,
  type EfiCharge,
  type EfiCob,
  type EfiPix,
  type EfiQrCode,
} from './efi-payments.ts';
import { callbacksOfChargeEvents, type EfiChargeEvent } from './efi-notifications.ts';
import * as rec from './efi-pix-automatico.ts';
import {
  GatewayError,
  type BoletoChargeInput,
  type CardPayments,
  type GatewayCallback,
  type GatewayLedger,
  type GatewayMandate,
  type GatewayMandateCharge,
  type GatewayMandateRefund,
  type GatewayTransaction,
  type LedgerWindow,
  type MandateChargeInput,
  type MandateInput,
  type PaymentDocuments,
  type PixAutomatico,
  type PixChargeInput,
} from './port.ts';

export { EfiGatewayError, type EfiOptions } from './efi-client.ts';

/** How far back a boleto's lookup by its key reads the charges list (the API wants a date range). */
const BOLETO_LOOKBACK_DAYS = 60;
/** Efí's charges API answers `{ code: 200, data }`. */
type ChargesAnswer<T> = { code?: number; data: T };

const REFUND_BOLETO =
  "Efí's charges API refunds no paid boleto (Efí's panel returns it by a bank transfer): refund it there";

/** What Efí does of the port: all but card payments (see docs/decisions/0097-efi-adapter.md). */
export type EfiPaymentGateway = Omit<CardPayments, 'chargeCard' | 'capture'> &
  PaymentDocuments &
  GatewayLedger &
  PixAutomatico;

/**
 * The payment gateway over Efí's Pix and charges APIs, through its official SDK (sdk-node-apis-efi):
 * pix (an immediate `cob`), boleto (the charges API's banking_billet), cancels, pix refunds
 * (devoluções), the ledger of pix received, and Pix Automático (efi-pix-automatico.ts).
 *
 * It takes no cards: Efí's card payments need a payment_token made by Efí's own browser script, with
 * no pre-authorization to capture and no card kept for a later charge without the buyer, so CardPayments'
 * chargeCard and capture and the CardVault are not implemented (decision 0097), not answered "unsupported".
 *
 * Efí takes no idempotency key on these APIs: each write is keyed by an id derived from ours (a txid,
 * a devolução id, a boleto's custom_id) and read before it is made, so a retry after a lost answer
 * returns what the first call made. Failures: no answer, 408, 429 and 5xx retryable; other 4xx refusals.
 */
export class EfiGateway implements EfiPaymentGateway {
  /** Efí's boleto names the payer by name and CPF/CNPJ only: no address needed. */
  readonly boletoPayerRequires = [] as const;
  private readonly options: EfiOptions;
  private readonly client: EfiClient;
  private readonly now: () => Date;

  constructor(options: EfiOptions, client: EfiClient = efiClient(options)) {
    this.options = options;
    this.client = client;
    this.now = options.clock ?? (() => new Date());
  }

  private get rec(): rec.RecContext {
    return { client: this.client, options: this.options, now: this.now };
  }

  private call<T>(what: string, run: () => Promise<unknown>): Promise<T> {
    return efiCall(what, this.options.timeoutMs, run) as Promise<T>;
  }

  private read<T>(what: string, run: () => Promise<unknown>): Promise<T | null> {
    return efiRead(what, this.options.timeoutMs, run) as Promise<T | null>;
  }

  /** The SDK's methods as we call them (its zod-derived types are strict about optional fields). */
  private get sdk() {
    return looseSdk(this.client);
  }

  // ── Pix ──────────────────────────────────────────────────────────────────────────────────────

  private readCob(txid: string) {
    return this.read<EfiCob>(`GET /v2/cob/${txid}`, () => this.sdk.pixDetailCharge({ txid }));
  }

  /** The cob as a transaction; its QR image is read while it can still be paid. */
  private async pixTransaction(cob: EfiCob): Promise<GatewayTransaction> {
    const qr =
      cob.status === 'ATIVA' && cob.loc?.id !== undefined
        ? await this.call<EfiQrCode>(`GET /v2/loc/${cob.loc.id}/qrcode`, () =>
            this.sdk.pixGenerateQRCode({ id: cob.loc!.id }),
          )
        : null;
    return transactionFromCob(cob, qr, this.now());
  }

  /** `PUT /v2/cob/{txid}` with the txid derived from the key, unless a first call already made it. */
  async createPixCharge(input: PixChargeInput, idempotencyKey: string): Promise<GatewayTransaction> {
    const txid = idFromKey(idempotencyKey);
    const existing = await this.readCob(txid);
    if (existing) return this.pixTransaction(existing);
    const body = cobBody(input, this.options.pixKey);
    try {
      return await this.pixTransaction(
        await this.call<EfiCob>(`PUT /v2/cob/${txid}`, () => this.sdk.pixCreateCharge({ txid }, body)),
      );
    } catch (err) {
      // The txid in use: a first PUT whose answer was lost made it.
      if (!(err instanceof GatewayError) || err.retryable) throw err;
      const made = await this.readCob(txid);
      if (made) return this.pixTransaction(made);
      throw err;
    }
  }

  // ── Boleto ───────────────────────────────────────────────────────────────────────────────────

  private async boletoByKey(idempotencyKey: string): Promise<GatewayTransaction | null> {
    const now = this.now();
    const day = (d: Date) => d.toISOString().slice(0, 10);
    const listed = await this.call<ChargesAnswer<EfiCharge[]>>('GET /v1/charges', () =>
      this.sdk.listCharges({
        charge_type: 'billet',
        begin_date: day(new Date(now.getTime() - BOLETO_LOOKBACK_DAYS * 86_400_000)),
        end_date: day(new Date(now.getTime() + 86_400_000)),
        custom_id: idempotencyKey,
      }),
    );
    const found = (listed.data ?? []).filter((c) => c.custom_id === idempotencyKey);
    const newest = found[found.length - 1];
    return newest ? this.getBoleto(String(newest.charge_id)) : null;
  }

  private async getBoleto(transactionId: string): Promise<GatewayTransaction | null> {
    const answer = await this.read<ChargesAnswer<EfiCharge>>(`GET /v1/charge/${transactionId}`, () =>
      this.sdk.detailCharge({ id: Number(transactionId) }),
    );
    return answer ? transactionFromCharge(answer.data, answer.data.custom_id ?? '') : null;
  }

  /**
   * `POST /v1/charge/one-step` (banking_billet), our key as its custom_id; a boleto a first call
   * already made under the key is found by it (`GET /v1/charges?custom_id=`) and returned instead.
   */
  async createBoleto(input: BoletoChargeInput, idempotencyKey: string): Promise<GatewayTransaction> {
    const body = boletoBody(input, idempotencyKey, this.options.notificationUrl ?? null);
    const earlier = await this.boletoByKey(idempotencyKey);
    if (earlier) return earlier;
    const made = await this.call<ChargesAnswer<EfiCharge>>('POST /v1/charge/one-step', () =>
      this.sdk.createOneStepCharge(body),
    );
    return transactionFromCharge({ ...made.data, custom_id: idempotencyKey }, idempotencyKey);
  }

  // ── Either ───────────────────────────────────────────────────────────────────────────────────

  async getTransaction(transactionId: string): Promise<GatewayTransaction | null> {
    if (isBoletoId(transactionId)) return this.getBoleto(transactionId);
    const cob = await this.readCob(transactionId);
    return cob ? this.pixTransaction(cob) : null;
  }

  /** The cob the key's txid names, else the boleto its custom_id names; null when neither exists. */
  async findTransactionByIdempotencyKey(idempotencyKey: string): Promise<GatewayTransaction | null> {
    const cob = await this.readCob(idFromKey(idempotencyKey));
    if (cob) return this.pixTransaction(cob);
    return this.boletoByKey(idempotencyKey);
  }

  /** A pending pix is removed (`PATCH /v2/cob/{txid}`), a boleto cancelled; one already so is returned as it is. */
  async cancel(transactionId: string, _idempotencyKey?: string): Promise<GatewayTransaction> {
    const current = await this.getTransaction(transactionId);
    if (!current) throw new EfiGatewayError(`Efí has no transaction ${transactionId}`, false, 404, 'not_found');
    if (current.status === 'canceled') return current;
    if (current.paymentType === 'boleto') {
      await this.call(`PUT /v1/charge/${transactionId}/cancel`, () =>
        this.sdk.cancelCharge({ id: Number(transactionId) }),
      );
    } else {
      await this.call(`PATCH /v2/cob/${transactionId}`, () =>
        this.sdk.pixUpdateCharge({ txid: transactionId }, { status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' }),
      );
    }
    const after = await this.getTransaction(transactionId);
    if (!after) throw new EfiGatewayError(`Efí transaction ${transactionId} vanished`, true, 200, 'vanished');
    return after;
  }

  /**
   * A pix's devolução (`PUT /v2/pix/{e2eId}/devolucao/{id}`), its id derived from the key, so a retry
   * asks for the same devolução again (the BCB's PUT is idempotent by its id); then the pix as it stands.
   */
  async refund(transactionId: string, amount: number, idempotencyKey: string): Promise<GatewayTransaction> {
    if (isBoletoId(transactionId)) throw new GatewayError(REFUND_BOLETO, false);
    const cob = await this.readCob(transactionId);
    const paid = cob?.pix?.[0];
    if (!cob || !paid) throw new GatewayError(`Efí pix ${transactionId} has no payment to refund`, false);
    const id = idFromKey(idempotencyKey);
    const asked = (cob.pix ?? []).some((p) => (p.devolucoes ?? []).some((d) => d.id === id));
    if (!asked) {
      await this.call(`PUT /v2/pix/${paid.endToEndId}/devolucao/${id}`, () =>
        this.sdk.pixDevolution({ e2eId: paid.endToEndId, id }, { valor: reais(amount) }),
      );
    }
    const after = await this.getTransaction(transactionId);
    if (!after) throw new EfiGatewayError(`Efí pix ${transactionId} vanished after its refund`, true, 200, 'vanished');
    return after;
  }

  /** The pix received in the window (`GET /v2/pix`, page by page) and their devoluções (efi-payments.ts). */
  async ledger(window: LedgerWindow): Promise<LedgerRow[]> {
    const received: EfiPix[] = [];
    for (let page = 0; ; page++) {
      const answer = await this.call<{ pix?: EfiPix[]; parametros?: { paginacao?: { quantidadeDePaginas?: number } } }>(
        'GET /v2/pix',
        () =>
          this.sdk.pixReceivedList({
            inicio: window.from.toISOString(),
            fim: window.to.toISOString(),
            'paginacao.paginaAtual': page,
            'paginacao.itensPorPagina': 1000,
          }),
      );
      received.push(...(answer.pix ?? []));
      if (page + 1 >= (answer.parametros?.paginacao?.quantidadeDePaginas ?? 1)) break;
    }
    // `fim` is inclusive at Efí; the window's `to` is not.
    return ledgerRowsOfPix(received.filter((p) => Date.parse(p.horario) < window.to.getTime()));
  }

  /**
   * The charges a charges-API notice names (`GET /v1/notification/{token}`): Efí's own answer, so a
   * forged token names nothing, and each charge is read again by the receiver all the same.
   */
  async chargeNoticeCallbacks(token: string): Promise<GatewayCallback[]> {
    const answer = await this.call<ChargesAnswer<EfiChargeEvent[]>>(`GET /v1/notification/${token}`, () =>
      this.sdk.getNotification({ token }),
    );
    return callbacksOfChargeEvents(answer.data ?? [], this.now());
  }

  // ── Pix Automático ───────────────────────────────────────────────────────────────────────────

  createMandate(input: MandateInput, idempotencyKey: string): Promise<GatewayMandate> {
    return rec.createMandate(this.rec, input, idempotencyKey);
  }

  getMandate(mandateId: string): Promise<GatewayMandate | null> {
    return rec.getMandate(this.rec, mandateId);
  }

  cancelMandate(mandateId: string, _idempotencyKey?: string): Promise<GatewayMandate> {
    return rec.cancelMandate(this.rec, mandateId);
  }

  /** Keyed by its reference (the cobr's txid), not by the call's key: one charge per cycle, whatever the key. */
  createMandateCharge(input: MandateChargeInput, _idempotencyKey?: string): Promise<GatewayMandateCharge> {
    return rec.createMandateCharge(this.rec, input);
  }

  getMandateCharge(chargeId: string): Promise<GatewayMandateCharge | null> {
    return rec.getMandateCharge(this.rec, chargeId);
  }

  /** Keyed by its date: a retry already asked for that date is returned as it is. */
  retryMandateCharge(
    chargeId: string,
    settlementDate: string,
    _idempotencyKey?: string,
  ): Promise<GatewayMandateCharge> {
    return rec.retryMandateCharge(this.rec, chargeId, settlementDate);
  }

  cancelMandateCharge(chargeId: string, _idempotencyKey?: string): Promise<GatewayMandateCharge> {
    return rec.cancelMandateCharge(this.rec, chargeId);
  }

  /** A paid cobr's refund: its paid pix's devolução, its id formed from the key (efi-pix-automatico.ts). */
  refundMandateCharge(chargeId: string, amount: number, idempotencyKey: string): Promise<GatewayMandateRefund> {
    return rec.refundMandateCharge(this.rec, chargeId, amount, idempotencyKey);
  }
}
