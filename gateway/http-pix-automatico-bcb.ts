import type { z } from 'zod';
import { chargeFromCobr, mandateFromRec, SANDBOX_PAYER_BANK } from './bcb-pix-automatico.ts';
import {
  bcbCobGerada,
  bcbCobVGerada,
  bcbLocRecGerada,
  cobrSolicitadaOf,
  cobSolicitadaOf,
  cobVSolicitadaOf,
  SANDBOX_PIX_KEY,
  recSolicitadaOf,
  SANDBOX_RECEIVER,
  solicRecSolicitadaOf,
} from './bcb-pix-automatico-requests.ts';
import { bcbCobRCompleta, bcbRecCompleta, bcbSolicRecCompleta } from './bcb-pix-automatico-schemas.ts';
import { bcbDevolucaoIdOf, bcbTxidOf } from './bcb-pix-automatico-words.ts';
import { bcbDevolucao } from './bcb-pix-automatico-schemas.ts';
import { devolucaoSolicitadaOf, paidEndToEndId, refundFromDevolucao } from './bcb-pix-devolucao.ts';
import { routePath } from './http-protocol.ts';
import {
  GatewayError,
  type GatewayMandate,
  type GatewayMandateCharge,
  type GatewayMandateRefund,
  type MandateChargeInput,
  type MandateInput,
  type PixAutomatico,
} from './port.ts';

/**
 * The HTTP adapter's Pix Automático (gateway/http-adapter.ts): the BCB's Pix API as the simulated
 * server speaks it (bacen/pix-api openapi.yaml 2.9, packages/simulated-gateway/src/server-pix-automatico.ts),
 * its payloads built and read by the BCB mapping (gateway/bcb-pix-automatico*.ts) and checked by its
 * schemas. Our records stay in our words. What the BCB's rec does not carry comes back as unknown: the
 * debtor's e-mail (null) and the payer's maximum (null, theirs to set in their bank's app).
 *
 * A creation is idempotent under its key: every call it makes is keyed from it (the first charge's
 * cob and a cycle's cobr by their txids formed from it; the location, the rec, the solicrec by the
 * Idempotency-Key the simulated server asks of every POST).
 */

/** One call of the adapter: null for a 404 on a GET, the body parsed by `schema` otherwise. */
export type BcbSend = <S extends z.ZodType>(
  method: 'GET' | 'POST' | 'PUT' | 'PATCH',
  path: string,
  body: object | undefined,
  idempotencyKey: string | undefined,
  schema: S,
) => Promise<z.infer<S> | null>;

/** A journey 1 request the caller gave no expiry lasts a week, as the simulator's. */
const DEFAULT_REQUEST_MS = 7 * 86_400_000;
const CANCEL = { status: 'CANCELADA' } as const;

export class BcbPixAutomaticoClient implements PixAutomatico {
  private readonly send: BcbSend;

  constructor(send: BcbSend) {
    this.send = send;
  }

  async createMandate(input: MandateInput, idempotencyKey: string): Promise<GatewayMandate> {
    const firstChargeTxid = input.journey === 'journey_3' ? await this.firstCharge(input, idempotencyKey) : undefined;
    const loc =
      input.journey === 'journey_1'
        ? undefined
        : (await this.call('POST', routePath('createMandateLocation'), {}, `${idempotencyKey}:locrec`, bcbLocRecGerada))
            .id;
    const body = recSolicitadaOf(input, { loc, firstChargeTxid });
    const made = this.mandate(
      await this.call('POST', routePath('createMandate'), body, idempotencyKey, bcbRecCompleta),
    );
    if (input.journey === 'journey_4') return this.withDueCharge(input, made, idempotencyKey);
    if (input.journey !== 'journey_1' || made.request) return made;
    const expiresAt = input.requestExpiresAt ?? new Date(Date.now() + DEFAULT_REQUEST_MS).toISOString();
    // The payer's account when the caller has it; else the sandbox's payer bank stands in.
    const payer = input.payerAccount;
    const bank = payer ? { ispb: payer.ispb, branch: payer.agency, account: payer.account } : SANDBOX_PAYER_BANK;
    const request = solicRecSolicitadaOf(made, expiresAt, bank);
    await this.call(
      'POST',
      routePath('sendMandateRequest'),
      request,
      `${idempotencyKey}:solicrec`,
      bcbSolicRecCompleta,
    );
    const sent = await this.getMandate(made.id);
    if (!sent) throw new GatewayError(`The rec ${made.id} vanished after its solicrec`, true);
    return sent;
  }

  async getMandate(mandateId: string): Promise<GatewayMandate | null> {
    const rec = await this.send('GET', routePath('getMandate', mandateId), undefined, undefined, bcbRecCompleta);
    return rec ? this.mandate(rec) : null;
  }

  async cancelMandate(mandateId: string, idempotencyKey: string): Promise<GatewayMandate> {
    const path = routePath('cancelMandate', mandateId);
    return this.mandate(await this.call('PATCH', path, CANCEL, idempotencyKey, bcbRecCompleta));
  }

  async createMandateCharge(input: MandateChargeInput, idempotencyKey: string): Promise<GatewayMandateCharge> {
    const path = routePath('createMandateCharge', bcbTxidOf(idempotencyKey));
    const body = cobrSolicitadaOf(input, SANDBOX_RECEIVER);
    return chargeFromCobr(await this.call('PUT', path, body, idempotencyKey, bcbCobRCompleta));
  }

  async getMandateCharge(chargeId: string): Promise<GatewayMandateCharge | null> {
    const cobr = await this.send('GET', routePath('getMandateCharge', chargeId), undefined, undefined, bcbCobRCompleta);
    return cobr ? chargeFromCobr(cobr) : null;
  }

  async retryMandateCharge(
    chargeId: string,
    settlementDate: string,
    idempotencyKey: string,
  ): Promise<GatewayMandateCharge> {
    const path = routePath('retryMandateCharge', chargeId, settlementDate);
    return chargeFromCobr(await this.call('POST', path, undefined, idempotencyKey, bcbCobRCompleta));
  }

  async cancelMandateCharge(chargeId: string, idempotencyKey: string): Promise<GatewayMandateCharge> {
    const path = routePath('cancelMandateCharge', chargeId);
    return chargeFromCobr(await this.call('PATCH', path, CANCEL, idempotencyKey, bcbCobRCompleta));
  }

  /**
   * A paid charge's refund (decision 0099): the cobr read back for its paid attempt's end-to-end id,
   * then the pix's devolução (PUT /pix/{e2eid}/devolucao/{id}), its id formed from the key, so a
   * repeated call names the same refund and the server answers the first.
   */
  async refundMandateCharge(chargeId: string, amount: number, idempotencyKey: string): Promise<GatewayMandateRefund> {
    const charge = await this.getMandateCharge(chargeId);
    if (!charge) throw new GatewayError(`No cobr ${chargeId}`, false);
    const endToEndId = paidEndToEndId(charge);
    const path = routePath('refundPix', endToEndId, bcbDevolucaoIdOf(idempotencyKey));
    const devolucao = await this.call('PUT', path, devolucaoSolicitadaOf(amount), idempotencyKey, bcbDevolucao);
    return refundFromDevolucao(devolucao, chargeId, endToEndId);
  }

  /** Journey 3's first period: an immediate cob (PUT /cob/{txid}) whose txid is formed from the mandate's key. */
  private async firstCharge(input: MandateInput, idempotencyKey: string): Promise<string> {
    const first = input.firstCharge;
    if (!first) throw new GatewayError('Journey 3 needs the first charge it pays (firstCharge)', false);
    const { email, name, taxId } = input.debtor;
    const pix = {
      reference: `${input.reference}:first-payment`,
      amount: first.amount,
      currency: 'BRL',
      buyer: { email: email ?? '', name, taxId },
      expiresInSeconds: first.expiresInSeconds,
    };
    const txid = bcbTxidOf(`${idempotencyKey}:first-charge`);
    const body = cobSolicitadaOf(pix, SANDBOX_PIX_KEY);
    return (await this.call('PUT', routePath('createFirstCharge', txid), body, idempotencyKey, bcbCobGerada)).txid;
  }

  /**
   * Journey 4: the due-date charge (PUT /cobv/{txid}, its txid formed from the mandate's key) and the
   * composite QR code that pays it and offers the rec (GET /rec/{idRec}?txid=). A rec does not name a
   * cobv (dadosJornada is journey 3's), so the mandate's `firstPaymentId` is the cobv's txid as created
   * here; a later read of the rec leaves it unknown (null). Retried, each step answers as it first did
   * (the cobv by its txid, the composition by the charge it bound).
   */
  private async withDueCharge(input: MandateInput, made: GatewayMandate, key: string): Promise<GatewayMandate> {
    const txid = bcbTxidOf(`${key}:due-charge`);
    const cobv = cobVSolicitadaOf(input, SANDBOX_PIX_KEY);
    await this.call('PUT', routePath('createDueCharge', txid), cobv, `${key}:cobv`, bcbCobVGerada);
    const path = `${routePath('getMandate', made.id)}?txid=${encodeURIComponent(txid)}`;
    const rec = await this.send('GET', path, undefined, undefined, bcbRecCompleta);
    if (!rec) throw new GatewayError(`The rec ${made.id} vanished before its QR code was composed`, true);
    return { ...this.mandate(rec), firstPaymentId: txid };
  }

  /** The rec as our mandate; the debtor's e-mail, which a rec does not carry, unknown. */
  private mandate(rec: z.infer<typeof bcbRecCompleta>): GatewayMandate {
    const mandate = mandateFromRec(rec);
    return { ...mandate, debtor: { ...mandate.debtor, email: null } };
  }

  private async call<S extends z.ZodType>(
    method: 'POST' | 'PUT' | 'PATCH',
    path: string,
    body: object | undefined,
    idempotencyKey: string,
    schema: S,
  ): Promise<z.infer<S>> {
    const answer = await this.send(method, path, body, idempotencyKey, schema);
    if (answer === null) throw new GatewayError(`${method} ${path}: not found`, false);
    return answer;
  }
}
