import type {
  GatewayMandate,
  GatewayMandateAttempt,
  GatewayMandateCharge,
  PixReasonCode,
  StatusChange,
} from '../contracts/pix-automatico.ts';
import {
  bcbCobRCompleta,
  bcbCobRNotification,
  bcbRecCompleta,
  bcbRecNotification,
  type BcbCobRCompleta,
  type BcbCobRNotification,
  type BcbRecCompleta,
  type BcbRecNotification,
  type BcbTentativa,
  type BcbTipoConta,
} from './bcb-pix-automatico-schemas.ts';
import { BCB_WORDS, bcbAmountOf, centsOf, centsOrNull, OUR_WORDS } from './bcb-pix-automatico-words.ts';
import { GatewayError } from './port.ts';

export * from './bcb-pix-automatico-words.ts';

/**
 * Our Pix Automático records (contracts/pix-automatico.ts) ↔ the BCB's wire payloads
 * (gateway/bcb-pix-automatico-schemas.ts): parsing, for an adapter that receives the BCB's JSON (Efí),
 * and producing, for the simulator that speaks it. Conventions where the two do not line up:
 * - A mandate's `reference` is vinculo.contrato (≤ 35 characters): a UUID (36) travels without its
 *   hyphens and gets them back; any other reference travels as it is.
 * - A charge's `reference` travels in infoAdicional (≤ 140; the payer's bank may show it, so keep it
 *   readable). A cobr without infoAdicional (created elsewhere) takes its txid as its reference.
 * - `payerMaximum` is the payer's, set in their bank's app: the receiver's API never shows it, so a
 *   parsed mandate has null and a produced rec leaves it out.
 * - The debtor's e-mail has no place in a rec (vinculo.devedor is a name and a tax id): left out.
 * - Journey 1's request keeps no history in our record: a produced solicitacao has one entry, its
 *   current status at the mandate's latest change, and the payer's account of `payerBank`.
 */

const historyOf = <B extends string, O extends string>(
  entries: readonly { status: B; data: string }[],
  words: Record<B, O>,
): StatusChange<O>[] => entries.map((entry) => ({ status: words[entry.status], at: entry.data }));

const atualizacaoOf = <O extends string, B extends string>(history: readonly StatusChange<O>[], words: Record<O, B>) =>
  history.map((change) => ({ status: words[change.status], data: change.at }));

const reasonOf = (reason: { codigo: string; descricao: string }): PixReasonCode => ({
  code: reason.codigo,
  description: reason.descricao,
});

function lastChangeAt(history: readonly StatusChange<string>[], what: string): string {
  const last = history.at(-1);
  if (!last) throw new GatewayError(`Pix Automático: ${what} has no status history`, false);
  return last.at;
}

// ── Parsing ──────────────────────────────────────────────────────────────────────────────────────

function parsed<T>(schema: {
  safeParse(json: unknown): { success: true; data: T } | { success: false; error: Error };
}) {
  return (json: unknown, what: string): T => {
    const result = schema.safeParse(json);
    if (!result.success)
      throw new GatewayError(`Pix Automático: ${what} is not the BCB's: ${result.error.message}`, false);
    return result.data;
  };
}

export const parseBcbRec = (json: unknown) => parsed(bcbRecCompleta)(json, 'the rec');
export const parseBcbCobR = (json: unknown) => parsed(bcbCobRCompleta)(json, 'the cobr');
export const parseBcbRecNotification = (json: unknown) => parsed(bcbRecNotification)(json, 'the rec notification');
export const parseBcbCobRNotification = (json: unknown) => parsed(bcbCobRNotification)(json, 'the cobr notification');

const UUID_HEX = /^[0-9a-f]{32}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Our mandate reference → vinculo.contrato (≤ 35). */
export function contratoOf(reference: string): string {
  const contrato = UUID.test(reference) ? reference.replaceAll('-', '') : reference;
  if (contrato.length > 35)
    throw new GatewayError(`Pix Automático: "${reference}" does not fit vinculo.contrato`, false);
  return contrato;
}

/** vinculo.contrato → our mandate reference. */
export const referenceOfContrato = (contrato: string) =>
  UUID_HEX.test(contrato)
    ? `${contrato.slice(0, 8)}-${contrato.slice(8, 12)}-${contrato.slice(12, 16)}-${contrato.slice(16, 20)}-${contrato.slice(20)}`
    : contrato;

type RecClosing = Pick<BcbRecNotification, 'encerramento' | 'ativacao'>;

function mandateClosingOf(rec: RecClosing) {
  const closing = rec.encerramento;
  return {
    journey: OUR_WORDS.journey[rec.ativacao?.tipoJornada ?? 'AGUARDANDO_DEFINICAO'],
    firstPaymentId: rec.ativacao?.dadosJornada?.txid ?? null,
    rejection: closing && 'rejeicao' in closing ? reasonOf(closing.rejeicao) : null,
    cancellation:
      closing && 'cancelamento' in closing
        ? { ...reasonOf(closing.cancelamento), by: OUR_WORDS.cancelledBy[closing.cancelamento.solicitante] }
        : null,
  };
}

/** A rec (GET /rec/{idRec}) as our mandate. */
export function mandateFromRec(rec: BcbRecCompleta): GatewayMandate {
  const devedor = rec.vinculo.devedor;
  const request = rec.solicitacao?.at(-1);
  const closing = mandateClosingOf(rec);
  return {
    id: rec.idRec,
    reference: referenceOfContrato(rec.vinculo.contrato),
    status: OUR_WORDS.mandateStatus[rec.status],
    journey: closing.journey,
    objectLabel: rec.vinculo.objeto ?? '',
    debtor: { name: devedor.nome, taxId: 'cpf' in devedor ? devedor.cpf : devedor.cnpj },
    startDate: rec.calendario.dataInicial,
    endDate: rec.calendario.dataFinal ?? null,
    periodicity: OUR_WORDS.periodicity[rec.calendario.periodicidade],
    fixedAmount: centsOrNull(rec.valor?.valorRec),
    minimumAmount: centsOrNull(rec.valor?.valorMinimoRecebedor),
    payerMaximum: null,
    retryPolicy: OUR_WORDS.retryPolicy[rec.politicaRetentativa],
    rejection: closing.rejection,
    cancellation: closing.cancellation,
    history: historyOf(rec.atualizacao, OUR_WORDS.mandateStatus),
    qrCode: rec.dadosQR?.pixCopiaECola ?? null,
    firstPaymentId: closing.firstPaymentId,
    request: request
      ? {
          id: request.idSolicRec,
          status: OUR_WORDS.requestStatus[request.status],
          expiresAt: request.calendario.dataExpiracaoSolicitacao,
        }
      : null,
  };
}

/** What a rec notification tells of the mandate (the rest is read back with GET /rec/{idRec}). */
export function mandateNoticeOf(notice: BcbRecNotification) {
  return {
    id: notice.idRec,
    status: OUR_WORDS.mandateStatus[notice.status],
    history: historyOf(notice.atualizacao, OUR_WORDS.mandateStatus),
    ...mandateClosingOf(notice),
  };
}

function attemptFromTentativa(tentativa: BcbTentativa): GatewayMandateAttempt {
  return {
    settlementDate: tentativa.dataLiquidacao,
    kind: OUR_WORDS.attemptKind[tentativa.tipo],
    status: OUR_WORDS.attemptStatus[tentativa.status],
    endToEndId: tentativa.endToEndId,
    rejection: tentativa.rejeicao ? reasonOf(tentativa.rejeicao) : null,
    history: historyOf(tentativa.atualizacao, OUR_WORDS.attemptStatus),
  };
}

type CobRProgress = Pick<BcbCobRNotification, 'status' | 'atualizacao' | 'encerramento' | 'tentativas' | 'pix'>;

function chargeProgressOf(cobr: CobRProgress) {
  const closing = cobr.encerramento;
  const attempts = (cobr.tentativas ?? []).map(attemptFromTentativa);
  const paidAttempt = attempts.find((attempt) => attempt.status === 'paid');
  return {
    status: OUR_WORDS.chargeStatus[cobr.status],
    attempts,
    rejection: closing && 'rejeicao' in closing ? reasonOf(closing.rejeicao) : null,
    cancellation:
      closing && 'cancelamento' in closing
        ? { ...reasonOf(closing.cancelamento), by: OUR_WORDS.cancelledBy[closing.cancelamento.solicitante] }
        : null,
    history: historyOf(cobr.atualizacao, OUR_WORDS.chargeStatus),
    // The pix's own time when the cobr lists it; else when the paid attempt turned PAGA.
    paidAt: cobr.pix?.[0]?.horario ?? paidAttempt?.history.find((change) => change.status === 'paid')?.at ?? null,
  };
}

/** A cobr (GET /cobr/{txid}) as our mandate's charge. */
export function chargeFromCobr(cobr: BcbCobRCompleta): GatewayMandateCharge {
  return {
    id: cobr.txid,
    mandateId: cobr.idRec,
    reference: cobr.infoAdicional ?? cobr.txid,
    dueDate: cobr.calendario.dataDeVencimento,
    amount: centsOf(cobr.valor.original),
    retryPolicy: OUR_WORDS.retryPolicy[cobr.politicaRetentativa],
    ...chargeProgressOf(cobr),
  };
}

/** What a cobr notification tells of the charge (the rest is read back with GET /cobr/{txid}). */
export function chargeNoticeOf(notice: BcbCobRNotification) {
  return { id: notice.txid, mandateId: notice.idRec, ...chargeProgressOf(notice) };
}

// ── Producing ────────────────────────────────────────────────────────────────────────────────────

/** The receiver (recebedor) a produced rec or cobr names: our merchant at its PSP. */
export interface BcbReceiver {
  /** 14 characters (digits, or letters and digits for the alphanumeric CNPJ). */
  cnpj: string;
  name: string;
  /** The receiver's agreement with its PSP (convenio), if any. */
  agreement?: string;
  account: { number: string; type: BcbTipoConta; branch?: string };
}

/** The payer's bank, once the mandate reached it: the rec's pagador and the request's destinatario. */
export interface BcbPayerBank {
  ispb: string;
  account: string;
  branch?: string;
  /** IBGE's 7-digit city code: the payer's local holidays are their bank's to apply. */
  cityCode?: string;
}

/** The simulator's payer bank (no real ISPB: the sandbox is its own participant). */
export const SANDBOX_PAYER_BANK: BcbPayerBank = { ispb: '99999999', account: '0000001', branch: '0001' };

const taxIdOf = (taxId: string) => (taxId.length === 11 ? { cpf: taxId } : { cnpj: taxId });

function closingOf(thing: Pick<GatewayMandate, 'rejection' | 'cancellation'>) {
  if (thing.cancellation) {
    const { by, code, description } = thing.cancellation;
    return { cancelamento: { solicitante: BCB_WORDS.cancelledBy[by], codigo: code, descricao: description } };
  }
  if (thing.rejection) return { rejeicao: { codigo: thing.rejection.code, descricao: thing.rejection.description } };
  return undefined;
}

/** RecAtivacao: dadosJornada.txid is journey 3's alone (the BCB's receiver removes it for journeys 1, 2 and 4). */
const ativacaoOf = (mandate: GatewayMandate) => ({
  tipoJornada: BCB_WORDS.journey[mandate.journey],
  ...(mandate.firstPaymentId === null || mandate.journey !== 'journey_3'
    ? {}
    : { dadosJornada: { txid: mandate.firstPaymentId } }),
});

/** dadosQR: the composite QR code, named by its journey (2: the rec's alone, 3 with a cob, 4 with a cobv). */
const dadosQrOf = (mandate: GatewayMandate) => {
  if (mandate.qrCode === null) return undefined;
  const j = mandate.journey;
  return j === 'journey_2' || j === 'journey_3' || j === 'journey_4'
    ? { jornada: BCB_WORDS.journey[j], pixCopiaECola: mandate.qrCode }
    : { pixCopiaECola: mandate.qrCode };
};

const withoutUndefined = <T extends object>(value: T): T =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;

/**
 * Our mandate as the rec GET /rec/{idRec} answers. Check it with bcbRecCompleta before it leaves:
 * codes and ids that do not fit the BCB's (a rejection code other than AP13/AP14, an id that is not
 * 29 characters) are the simulator's mistake and the schema says so.
 */
export function recFromMandate(
  mandate: GatewayMandate,
  receiver: BcbReceiver,
  payerBank: BcbPayerBank = SANDBOX_PAYER_BANK,
): BcbRecCompleta {
  const account = withoutUndefined({
    conta: payerBank.account,
    ispbParticipante: payerBank.ispb,
    agencia: payerBank.branch,
  });
  return withoutUndefined({
    idRec: mandate.id,
    vinculo: withoutUndefined({
      objeto: mandate.objectLabel === '' ? undefined : mandate.objectLabel,
      devedor: { ...taxIdOf(mandate.debtor.taxId), nome: mandate.debtor.name },
      contrato: contratoOf(mandate.reference),
    }),
    calendario: withoutUndefined({
      dataInicial: mandate.startDate,
      dataFinal: mandate.endDate ?? undefined,
      periodicidade: BCB_WORDS.periodicity[mandate.periodicity],
    }),
    valor: withoutUndefined({
      valorRec: mandate.fixedAmount === null ? undefined : bcbAmountOf(mandate.fixedAmount),
      valorMinimoRecebedor: mandate.minimumAmount === null ? undefined : bcbAmountOf(mandate.minimumAmount),
    }),
    recebedor: withoutUndefined({ cnpj: receiver.cnpj, nome: receiver.name, convenio: receiver.agreement }),
    pagador:
      mandate.journey === 'pending'
        ? undefined
        : withoutUndefined({
            ispbParticipante: payerBank.ispb,
            codMun: payerBank.cityCode,
            ...taxIdOf(mandate.debtor.taxId),
          }),
    status: BCB_WORDS.mandateStatus[mandate.status],
    politicaRetentativa: BCB_WORDS.retryPolicy[mandate.retryPolicy],
    atualizacao: atualizacaoOf(mandate.history, BCB_WORDS.mandateStatus),
    encerramento: closingOf(mandate),
    solicitacao: mandate.request
      ? [
          {
            idSolicRec: mandate.request.id,
            idRec: mandate.id,
            calendario: { dataExpiracaoSolicitacao: mandate.request.expiresAt },
            destinatario: { ...account, ...taxIdOf(mandate.debtor.taxId) },
            status: BCB_WORDS.requestStatus[mandate.request.status],
            atualizacao: [
              {
                status: BCB_WORDS.requestStatus[mandate.request.status],
                data: lastChangeAt(mandate.history, 'the mandate'),
              },
            ],
          },
        ]
      : undefined,
    ativacao: ativacaoOf(mandate),
    dadosQR: dadosQrOf(mandate),
  }) as BcbRecCompleta;
}

/** The rec notification /webhookrec posts when the mandate changes. */
export function recNotificationOf(mandate: GatewayMandate): BcbRecNotification {
  return withoutUndefined({
    idRec: mandate.id,
    status: BCB_WORDS.mandateStatus[mandate.status],
    atualizacao: atualizacaoOf(mandate.history, BCB_WORDS.mandateStatus),
    encerramento: closingOf(mandate),
    ativacao: ativacaoOf(mandate),
  }) as BcbRecNotification;
}

function tentativaOf(attempt: GatewayMandateAttempt): BcbTentativa {
  return withoutUndefined({
    dataLiquidacao: attempt.settlementDate,
    tipo: BCB_WORDS.attemptKind[attempt.kind],
    status: BCB_WORDS.attemptStatus[attempt.status],
    endToEndId: attempt.endToEndId,
    atualizacao: atualizacaoOf(attempt.history, BCB_WORDS.attemptStatus),
    rejeicao: attempt.rejection
      ? { codigo: attempt.rejection.code, descricao: attempt.rejection.description }
      : undefined,
  }) as BcbTentativa;
}

function chargeProgressPayload(charge: GatewayMandateCharge) {
  const paidAttempt = charge.attempts.find((attempt) => attempt.status === 'paid');
  return {
    status: BCB_WORDS.chargeStatus[charge.status],
    atualizacao: atualizacaoOf(charge.history, BCB_WORDS.chargeStatus),
    encerramento: closingOf(charge),
    tentativas: charge.attempts.map(tentativaOf),
    pix:
      charge.paidAt !== null && paidAttempt
        ? [
            {
              endToEndId: paidAttempt.endToEndId,
              txid: charge.id,
              valor: bcbAmountOf(charge.amount),
              horario: charge.paidAt,
            },
          ]
        : undefined,
  };
}

/** Our charge as the cobr GET /cobr/{txid} answers (check it with bcbCobRCompleta, as recFromMandate). */
export function cobrFromCharge(charge: GatewayMandateCharge, receiver: BcbReceiver): BcbCobRCompleta {
  const created = charge.history[0];
  if (!created) throw new GatewayError(`Pix Automático: the charge ${charge.id} has no status history`, false);
  return withoutUndefined({
    idRec: charge.mandateId,
    txid: charge.id,
    infoAdicional: charge.reference,
    calendario: { criacao: created.at.slice(0, 10), dataDeVencimento: charge.dueDate },
    valor: { original: bcbAmountOf(charge.amount) },
    // Always: a due date on a holiday settles on the next business day (domain/pix-automatico.ts).
    ajusteDiaUtil: true,
    recebedor: withoutUndefined({
      conta: receiver.account.number,
      tipoConta: receiver.account.type,
      agencia: receiver.account.branch,
    }),
    politicaRetentativa: BCB_WORDS.retryPolicy[charge.retryPolicy],
    ...withoutUndefined(chargeProgressPayload(charge)),
  }) as BcbCobRCompleta;
}

/** The cobr notification /webhookcobr posts when the charge or one of its attempts changes. */
export function cobrNotificationOf(charge: GatewayMandateCharge): BcbCobRNotification {
  return withoutUndefined({
    idRec: charge.mandateId,
    txid: charge.id,
    ...chargeProgressPayload(charge),
  }) as BcbCobRNotification;
}
