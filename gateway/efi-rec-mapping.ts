import type {
  GatewayMandate,
  GatewayMandateAttempt,
  GatewayMandateCharge,
  MandateAttemptKind,
  MandateAttemptStatus,
  MandateCancelledBy,
  MandateChargeStatus,
  MandateJourney,
  MandatePeriodicity,
  MandateRetryPolicy,
  MandateStatus,
  PixReasonCode,
} from '../contracts/pix-automatico.ts';
import { centsOf } from './efi-client.ts';

/**
 * The BCB's `rec` and `cobr` (Pix API 2.9, as Efí answers them) as our records, and our words as the
 * BCB's. The one place the Efí adapter maps them: when the shared BCB mapping (gateway/bcb-pix-
 * automatico*.ts, `mandateFromRec`, `chargeFromCobr`) lands, these two functions give way to it.
 */

export interface BcbRec {
  idRec: string;
  status: string;
  vinculo: { contrato: string; objeto?: string; devedor: { cpf?: string; cnpj?: string; nome: string } };
  calendario: { dataInicial: string; dataFinal?: string; periodicidade: string };
  valor: { valorRec?: string; valorMinimoRecebedor?: string };
  politicaRetentativa: string;
  loc?: { id: number; location?: string } | null;
  atualizacao?: { status: string; data: string }[];
  encerramento?: {
    rejeicao?: { codigo: string; descricao: string };
    cancelamento?: { solicitante: string; codigo: string; descricao: string };
  } | null;
  ativacao?: { tipoJornada?: string; dadosJornada?: { txid?: string } } | null;
  solicitacao?: { idSolicRec: string; status: string; calendario?: { dataExpiracaoSolicitacao?: string } }[];
  dadosQR?: { jornada?: string; pixCopiaECola?: string } | null;
}

export interface BcbCobr {
  idRec: string;
  txid: string;
  status: string;
  infoAdicional?: string;
  calendario: { dataDeVencimento: string; criacao?: string };
  valor: { original: string };
  politicaRetentativa?: string;
  atualizacao?: { status: string; data: string }[];
  encerramento?: {
    rejeicao?: { codigo: string; descricao: string };
    cancelamento?: { solicitante: string; codigo: string; descricao: string };
  } | null;
  tentativas?: {
    dataLiquidacao: string;
    tipo: string;
    status: string;
    endToEndId: string;
    motivo?: { codigo: string; descricao: string } | null;
    rejeicao?: { codigo: string; descricao: string } | null;
    atualizacao?: { status: string; data: string }[];
  }[];
}

const MANDATE_STATUS: Record<string, MandateStatus> = {
  CRIADA: 'created',
  APROVADA: 'approved',
  REJEITADA: 'rejected',
  EXPIRADA: 'expired',
  CANCELADA: 'cancelled',
};
const CHARGE_STATUS: Record<string, MandateChargeStatus> = {
  CRIADA: 'created',
  ATIVA: 'active',
  CONCLUIDA: 'completed',
  EXPIRADA: 'expired',
  REJEITADA: 'rejected',
  CANCELADA: 'cancelled',
};
const ATTEMPT_STATUS: Record<string, MandateAttemptStatus> = {
  SOLICITADA: 'requested',
  AGENDADA: 'scheduled',
  PAGA: 'paid',
  CANCELADA: 'cancelled',
  REJEITADA: 'rejected',
  EXPIRADA: 'expired',
};
const ATTEMPT_KIND: Record<string, MandateAttemptKind> = { AGND: 'scheduled', NTAG: 'unscheduled', RIFL: 'retry' };
const JOURNEY: Record<string, MandateJourney> = {
  JORNADA_1: 'journey_1',
  JORNADA_2: 'journey_2',
  JORNADA_3: 'journey_3',
  JORNADA_4: 'journey_4',
};
const CANCELLED_BY: Record<string, MandateCancelledBy> = {
  PSP_PAGADOR: 'payer_psp',
  USUARIO_PAGADOR: 'payer',
  PSP_RECEBEDOR: 'receiver_psp',
  USUARIO_RECEBEDOR: 'receiver',
};
export const PERIODICITY: Record<MandatePeriodicity, string> = {
  weekly: 'SEMANAL',
  monthly: 'MENSAL',
  quarterly: 'TRIMESTRAL',
  semiannual: 'SEMESTRAL',
  yearly: 'ANUAL',
};
export const RETRY_POLICY: Record<MandateRetryPolicy, string> = {
  none: 'NAO_PERMITE',
  three_in_seven_days: 'PERMITE_3R_7D',
};

const known = <T>(table: Record<string, T>, value: string, what: string): T => {
  const mapped = table[value];
  if (mapped === undefined) throw new Error(`Efí answered a ${what} we do not know: ${value}`);
  return mapped;
};
const reverse = <T extends string>(table: Record<T, string>, value: string, what: string): T =>
  known(Object.fromEntries(Object.entries(table).map(([k, v]) => [v, k])) as Record<string, T>, value, what);

const reason = (r: { codigo: string; descricao: string } | null | undefined): PixReasonCode | null =>
  r ? { code: r.codigo, description: r.descricao } : null;
const cancellationOf = (c: { solicitante: string; codigo: string; descricao: string } | undefined) =>
  c ? { code: c.codigo, description: c.descricao, by: known(CANCELLED_BY, c.solicitante, 'cancellation') } : null;
const rfc3339 = (at: string) => new Date(at).toISOString();

/** A `rec` as our mandate; `firstPaymentId` is journey 3's cob (its txid), which the rec names once activated. */
export function mandateFromRec(rec: BcbRec, firstPaymentId: string | null = null): GatewayMandate {
  const request = rec.solicitacao?.[rec.solicitacao.length - 1];
  const status = known(MANDATE_STATUS, rec.status, 'rec status');
  return {
    id: rec.idRec,
    reference: rec.vinculo.contrato,
    status,
    journey: JOURNEY[rec.ativacao?.tipoJornada ?? ''] ?? 'pending',
    objectLabel: rec.vinculo.objeto ?? '',
    debtor: { name: rec.vinculo.devedor.nome, taxId: rec.vinculo.devedor.cpf ?? rec.vinculo.devedor.cnpj ?? '' },
    startDate: rec.calendario.dataInicial,
    endDate: rec.calendario.dataFinal ?? null,
    periodicity: reverse(PERIODICITY, rec.calendario.periodicidade, 'periodicity'),
    fixedAmount: rec.valor.valorRec ? centsOf(rec.valor.valorRec) : null,
    minimumAmount: rec.valor.valorMinimoRecebedor ? centsOf(rec.valor.valorMinimoRecebedor) : null,
    // The BCB's rec does not tell the receiver the payer's maximum: it is learnt from a charge's AM02.
    payerMaximum: null,
    retryPolicy: reverse(RETRY_POLICY, rec.politicaRetentativa, 'retry policy'),
    rejection: reason(rec.encerramento?.rejeicao),
    cancellation: cancellationOf(rec.encerramento?.cancelamento),
    history: (rec.atualizacao ?? []).map((a) => ({
      status: known(MANDATE_STATUS, a.status, 'rec status'),
      at: rfc3339(a.data),
    })),
    qrCode: status === 'created' ? (rec.dadosQR?.pixCopiaECola ?? null) : null,
    firstPaymentId: rec.ativacao?.dadosJornada?.txid ?? firstPaymentId,
    request: request
      ? {
          id: request.idSolicRec,
          status: known(
            {
              CRIADA: 'created',
              ENVIADA: 'sent',
              RECEBIDA: 'received',
              REJEITADA: 'rejected',
              ACEITA: 'accepted',
              EXPIRADA: 'expired',
              CANCELADA: 'cancelled',
            } as const,
            request.status,
            'solicrec status',
          ),
          expiresAt: request.calendario?.dataExpiracaoSolicitacao ?? '',
        }
      : null,
  };
}

function attemptOf(t: NonNullable<BcbCobr['tentativas']>[number]): GatewayMandateAttempt {
  return {
    settlementDate: t.dataLiquidacao,
    kind: known(ATTEMPT_KIND, t.tipo, 'attempt kind'),
    status: known(ATTEMPT_STATUS, t.status, 'attempt status'),
    endToEndId: t.endToEndId,
    rejection: reason(t.rejeicao ?? t.motivo),
    history: (t.atualizacao ?? []).map((a) => ({
      status: known(ATTEMPT_STATUS, a.status, 'attempt status'),
      at: rfc3339(a.data),
    })),
  };
}

/** A `cobr` as our mandate charge; `reference` is ours (the cobr carries it in infoAdicional). */
export function chargeFromCobr(cobr: BcbCobr): GatewayMandateCharge {
  const history = (cobr.atualizacao ?? []).map((a) => ({
    status: known(CHARGE_STATUS, a.status, 'cobr status'),
    at: rfc3339(a.data),
  }));
  const attempts = (cobr.tentativas ?? []).map(attemptOf);
  const paid = attempts.find((a) => a.status === 'paid');
  return {
    id: cobr.txid,
    mandateId: cobr.idRec,
    reference: cobr.infoAdicional ?? '',
    dueDate: cobr.calendario.dataDeVencimento,
    amount: centsOf(cobr.valor.original),
    status: known(CHARGE_STATUS, cobr.status, 'cobr status'),
    retryPolicy: cobr.politicaRetentativa ? reverse(RETRY_POLICY, cobr.politicaRetentativa, 'retry policy') : 'none',
    attempts,
    rejection: reason(cobr.encerramento?.rejeicao),
    cancellation: cancellationOf(cobr.encerramento?.cancelamento),
    history,
    paidAt: paid ? (paid.history.find((h) => h.status === 'paid')?.at ?? `${paid.settlementDate}T12:00:00.000Z`) : null,
  };
}
