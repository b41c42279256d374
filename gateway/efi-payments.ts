import type { LedgerRow } from '../domain/reconciliation.ts';
import { centsOf, personOf, reais } from './efi-client.ts';
import { GatewayError, type BoletoChargeInput, type GatewayTransaction, type PixChargeInput } from './port.ts';

/**
 * Our pix and boleto as Efí's bodies, and Efí's answers as our transactions.
 *
 * - Pix: an immediate charge (`cob`, the BCB's Pix API as Efí serves it) made with `PUT /v2/cob/{txid}`,
 *   the txid derived from our key; our reference travels in `infoAdicionais` (`referencia`). Its QR
 *   image comes from `GET /v2/loc/{id}/qrcode`. Its id here is the txid.
 * - Boleto: Efí's charges API (`POST /v1/charge/one-step`, banking_billet), amounts in cents; our key
 *   travels as `metadata.custom_id`, which `GET /v1/charges?custom_id=` finds again. Its id here is
 *   Efí's numeric charge_id, so a transaction id that is all digits is a boleto's (a txid never is).
 */

/** Who we tell the buyer the receiver is, and where our reference travels in a cob. */
const REFERENCE_FIELD = 'referencia';

export const isBoletoId = (transactionId: string) => /^\d+$/.test(transactionId);

// ── Pix (cob) ──────────────────────────────────────────────────────────────────────────────────

/** The fields of a cob this adapter reads (BCB CobCompleta, as Efí answers PUT/GET /v2/cob/{txid}). */
export interface EfiCob {
  txid: string;
  status: 'ATIVA' | 'CONCLUIDA' | 'REMOVIDA_PELO_USUARIO_RECEBEDOR' | 'REMOVIDA_PELO_PSP';
  calendario: { criacao: string; expiracao: number };
  valor: { original: string };
  loc?: { id: number } | null;
  pixCopiaECola?: string;
  infoAdicionais?: { nome: string; valor: string }[];
  /** The pix that paid it, each with its devoluções (refunds). */
  pix?: EfiPix[];
}

export interface EfiPix {
  endToEndId: string;
  txid?: string;
  valor: string;
  horario: string;
  devolucoes?: { id: string; rtrId?: string; valor: string; status: string; horario?: { solicitacao?: string } }[];
}

/** `GET /v2/loc/{id}/qrcode`: the copy-and-paste payload and its PNG as a data: URL. */
export interface EfiQrCode {
  qrcode: string;
  imagemQrcode: string;
  linkVisualizacao?: string;
}

export function cobBody(input: PixChargeInput, pixKey: string) {
  if (input.currency.toUpperCase() !== 'BRL') throw new GatewayError('Efí charges pix in BRL only', false);
  const buyer = input.buyer;
  const taxId = buyer?.taxId?.replace(/\D/g, '');
  // The BCB's devedor needs a name with the tax id; without both the cob names no payer.
  const devedor = taxId && buyer?.name ? personOf(taxId, buyer.name) : undefined;
  return {
    calendario: { expiracao: input.expiresInSeconds },
    ...(devedor ? { devedor } : {}),
    valor: { original: reais(input.amount) },
    chave: pixKey,
    infoAdicionais: [{ nome: REFERENCE_FIELD, valor: input.reference }],
  };
}

/** A cob's refunds that moved money back (DEVOLVIDO) or are on their way (EM_PROCESSAMENTO). */
function refundsOfCob(cob: EfiCob): { id: string; amount: number }[] {
  return (cob.pix ?? []).flatMap((pix) =>
    (pix.devolucoes ?? [])
      .filter((d) => d.status !== 'NAO_REALIZADO')
      .map((d) => ({ id: d.id, amount: centsOf(d.valor) })),
  );
}

export function transactionFromCob(cob: EfiCob, qr: EfiQrCode | null, now: Date): GatewayTransaction {
  const amount = centsOf(cob.valor.original);
  const paid = (cob.pix ?? []).reduce((sum, pix) => sum + centsOf(pix.valor), 0);
  const refunds = refundsOfCob(cob);
  const refunded = refunds.reduce((sum, r) => sum + r.amount, 0);
  const expiresAt = new Date(Date.parse(cob.calendario.criacao) + cob.calendario.expiracao * 1000).toISOString();
  let status: GatewayTransaction['status'] = 'pending';
  let declineReason: GatewayTransaction['declineReason'] = null;
  if (cob.status === 'CONCLUIDA') {
    status = refunded === 0 ? 'succeeded' : refunded >= paid ? 'refunded' : 'partial_refunded';
  } else if (cob.status === 'REMOVIDA_PELO_USUARIO_RECEBEDOR') {
    status = 'canceled';
  } else if (cob.status === 'REMOVIDA_PELO_PSP' || now.toISOString() >= expiresAt) {
    // The BCB's cob stays ATIVA past its expiry; no pix can pay it then.
    status = 'failed';
    declineReason = 'expired';
  }
  const copyPaste = qr?.qrcode ?? cob.pixCopiaECola ?? '';
  return {
    id: cob.txid,
    reference: cob.infoAdicionais?.find((i) => i.nome === REFERENCE_FIELD)?.valor ?? '',
    status,
    paymentType: 'pix',
    amount,
    baseAmount: amount,
    currency: 'BRL',
    installments: 1,
    installmentAmounts: [amount],
    authorizationCode: cob.pix?.[0]?.endToEndId ?? null,
    declineReason,
    card: null,
    pix: copyPaste
      ? {
          qrCode: copyPaste,
          qrCodeImage: qr?.imagemQrcode ?? '',
          expiresAt,
          ...(qr?.linkVisualizacao ? { url: qr.linkVisualizacao } : {}),
        }
      : null,
    boleto: null,
    buyerId: null,
    transactionNumber: cob.txid,
    capturedAmount: cob.status === 'CONCLUIDA' ? paid || amount : 0,
    refundedAmount: refunded,
    ...(refunds.length > 0 ? { refunds } : {}),
    createdAt: new Date(cob.calendario.criacao).toISOString(),
    confirmedAt: cob.pix?.[0]?.horario ? new Date(cob.pix[0].horario).toISOString() : null,
  };
}

// ── Boleto (charges API) ───────────────────────────────────────────────────────────────────────

/** The fields of an Efí charge this adapter reads (`POST /v1/charge/one-step`, `GET /v1/charge/{id}`). */
export interface EfiCharge {
  charge_id: number;
  status: string;
  total: number;
  custom_id?: string | null;
  created_at?: string;
  /** one-step's answer: the boleto at the top level. */
  barcode?: string;
  link?: string;
  billet_link?: string;
  expire_at?: string;
  pdf?: { charge?: string };
  /** detailCharge's answer: the boleto under payment.banking_billet. */
  payment?: {
    banking_billet?: {
      barcode?: string;
      link?: string;
      billet_link?: string;
      expire_at?: string;
      pdf?: { charge?: string };
    };
  } | null;
  history?: { message?: string; created_at?: string }[];
}

/** The charges API wants the payer's name and CPF (or a company's name and CNPJ) on every boleto. */
export function boletoBody(input: BoletoChargeInput, idempotencyKey: string, notificationUrl: string | null) {
  if (input.currency.toUpperCase() !== 'BRL') throw new GatewayError('Efí issues boletos in BRL only', false);
  const taxId = input.buyer.taxId?.replace(/\D/g, '') ?? '';
  const name = input.buyer.name ?? '';
  if (!name || (taxId.length !== 11 && taxId.length !== 14)) {
    throw new GatewayError("Efí issues a boleto only with the payer's name and CPF or CNPJ", false);
  }
  const customer =
    taxId.length === 14
      ? { email: input.buyer.email, juridical_person: { corporate_name: name, cnpj: taxId } }
      : { name, cpf: taxId, email: input.buyer.email };
  return {
    items: [{ name: (input.sale?.items?.[0]?.title ?? input.reference).slice(0, 255), value: input.amount, amount: 1 }],
    metadata: { custom_id: idempotencyKey, ...(notificationUrl ? { notification_url: notificationUrl } : {}) },
    payment: { banking_billet: { customer, expire_at: input.dueDate, message: input.reference.slice(0, 80) } },
  };
}

/** Efí's charge statuses (charges API "Status"): new/waiting unpaid, paid/settled paid, the rest ended. */
function boletoStatus(status: string): Pick<GatewayTransaction, 'status' | 'declineReason'> {
  if (status === 'paid' || status === 'settled' || status === 'identified')
    return { status: 'succeeded', declineReason: null };
  if (status === 'canceled') return { status: 'canceled', declineReason: null };
  if (status === 'unpaid' || status === 'expired') return { status: 'failed', declineReason: 'overdue' };
  if (status === 'refunded') return { status: 'refunded', declineReason: null };
  return { status: 'pending', declineReason: null };
}

/**
 * A boleto's digitable line (47 digits) as its barcode (44): bank and currency, the check digit, the
 * due factor and amount, then the three fields' free digits (FEBRABAN's layout).
 */
export function barcodeOfDigitableLine(line: string): string {
  const d = line.replace(/\D/g, '');
  if (d.length !== 47) return d;
  return d.slice(0, 4) + d.slice(32, 33) + d.slice(33, 47) + d.slice(4, 9) + d.slice(10, 20) + d.slice(21, 31);
}

export function transactionFromCharge(charge: EfiCharge, reference: string): GatewayTransaction {
  const billet = charge.payment?.banking_billet ?? charge;
  const line = billet.barcode ?? '';
  const { status, declineReason } = boletoStatus(charge.status);
  const amount = charge.total;
  const created = charge.created_at
    ? new Date(charge.created_at.replace(' ', 'T') + (charge.created_at.includes('Z') ? '' : '-03:00'))
    : null;
  const paidAt =
    status === 'succeeded' ? charge.history?.find((h) => /pag/i.test(h.message ?? ''))?.created_at : undefined;
  return {
    id: String(charge.charge_id),
    reference,
    status,
    paymentType: 'boleto',
    amount,
    baseAmount: amount,
    currency: 'BRL',
    installments: 1,
    installmentAmounts: [amount],
    authorizationCode: null,
    declineReason,
    card: null,
    pix: null,
    boleto: line
      ? {
          barcode: barcodeOfDigitableLine(line),
          digitableLine: line,
          dueDate: (billet.expire_at ?? '').slice(0, 10),
          url: billet.pdf?.charge ?? billet.billet_link ?? billet.link ?? '',
        }
      : null,
    buyerId: null,
    transactionNumber: String(charge.charge_id),
    capturedAmount: status === 'succeeded' || status === 'refunded' ? amount : 0,
    refundedAmount: status === 'refunded' ? amount : 0,
    createdAt: created && !Number.isNaN(created.getTime()) ? created.toISOString() : new Date(0).toISOString(),
    confirmedAt: paidAt ? new Date(paidAt.replace(' ', 'T') + '-03:00').toISOString() : null,
  };
}

// ── Ledger (pix received) ──────────────────────────────────────────────────────────────────────

/**
 * The pix received in a window (`GET /v2/pix`) as ledger rows: each pix's gross, keyed by its txid
 * (our transaction id), and each devolução that left as a refund. The boletos are read beside them
 * (efi-ledger.ts); Efí's fees are in neither (decision 0102).
 */
export function ledgerRowsOfPix(received: EfiPix[]): LedgerRow[] {
  return received.flatMap((pix) => [
    { kind: 'payment' as const, gatewayId: pix.txid ?? pix.endToEndId, reference: null, amount: centsOf(pix.valor) },
    ...(pix.devolucoes ?? [])
      .filter((d) => d.status === 'DEVOLVIDO')
      .map((d) => ({
        kind: 'refund' as const,
        gatewayId: pix.txid ?? pix.endToEndId,
        reference: null,
        amount: -centsOf(d.valor),
      })),
  ]);
}
