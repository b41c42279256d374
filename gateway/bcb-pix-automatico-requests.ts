import { z } from 'zod';
import type { GatewayMandate, GatewayTransaction, MandateChargeInput, MandateInput, PixChargeInput } from './port.ts';
import {
  bcbAmount,
  bcbDate,
  bcbDateTime,
  bcbDestinatario,
  bcbLocRec,
  bcbPeriodicidade,
  bcbPessoaRecorrencia,
  bcbPoliticaRetentativa,
  bcbRecId,
  bcbTipoConta,
  bcbTxid,
  type BcbSolicRecCompleta,
} from './bcb-pix-automatico-schemas.ts';
import { BCB_WORDS, bcbAmountOf, centsOrNull, centsOf, OUR_WORDS } from './bcb-pix-automatico-words.ts';
import { contratoOf, referenceOfContrato, type BcbPayerBank, type BcbReceiver } from './bcb-pix-automatico.ts';
import { GatewayError } from './port.ts';

/**
 * What a receiver sends the BCB's Pix API for Pix Automático (bacen/pix-api openapi.yaml 2.9): the
 * request bodies of PUT /cob/{txid} (CobSolicitada: journey 3's immediate charge), PUT /cobv/{txid}
 * (CobVSolicitada: journey 4's due-date charge), POST /rec (RecSolicitada), PATCH /rec/{idRec} (RecRevisada, here only its
 * cancellation), POST /solicrec (SolicRecSolicitada), PUT /cobr/{txid} (CobRSolicitada), PATCH
 * /cobr/{txid} (CobRRevisada) and PUT /webhookrec, /webhookcobr; and our records both ways. The HTTP
 * adapter builds them, the simulator's server parses them (its answers are bcb-pix-automatico.ts's).
 * The journey is not a field of a rec: journey 3 names its immediate charge (ativacao.dadosJornada.txid),
 * journey 2 its QR code's location (loc), and journey 1 has neither and a solicrec after it. Journey 4's
 * rec is made as journey 2's, and its composite QR code asked with its cobv (GET /rec/{idRec}?txid=).
 */

const pessoa = z.union([
  z.object({ cpf: z.string().regex(/^\d{11}$/), nome: z.string().max(200) }),
  z.object({ cnpj: z.string().regex(/^[0-9A-Z]{14}$/), nome: z.string().max(200) }),
]);

/** CobSolicitada: an immediate charge (journey 3's first period), its validity in seconds from its creation. */
export const bcbCobSolicitada = z.object({
  calendario: z.object({ expiracao: z.number().int().positive() }),
  devedor: pessoa.optional(),
  valor: z.object({ original: bcbAmount }),
  chave: z.string().max(77),
  infoAdicionais: z
    .array(z.object({ nome: z.string().max(50), valor: z.string().max(200) }))
    .max(50)
    .optional(),
});
export type BcbCobSolicitada = z.infer<typeof bcbCobSolicitada>;

/** CobGerada: PUT /cob/{txid}'s answer (its loc left out: the copy-and-paste stands for it). */
export const bcbCobGerada = bcbCobSolicitada.extend({
  txid: bcbTxid,
  calendario: z.object({ criacao: bcbDateTime, expiracao: z.number().int().positive() }),
  revisao: z.number().int().nonnegative(),
  status: z.enum(['ATIVA', 'CONCLUIDA', 'REMOVIDA_PELO_USUARIO_RECEBEDOR', 'REMOVIDA_PELO_PSP']),
  pixCopiaECola: z.string().max(512).optional(),
});
export type BcbCobGerada = z.infer<typeof bcbCobGerada>;

/**
 * CobVSolicitada: a due-date charge (journey 4's), payable until `validadeAposVencimento` days after
 * `dataDeVencimento`; its devedor is required (a cobv names whom it bills).
 */
export const bcbCobVSolicitada = z.object({
  calendario: z.object({ dataDeVencimento: bcbDate, validadeAposVencimento: z.number().int().nonnegative() }),
  devedor: pessoa,
  valor: z.object({ original: bcbAmount }),
  chave: z.string().max(77),
  infoAdicionais: bcbCobSolicitada.shape.infoAdicionais,
});
export type BcbCobVSolicitada = z.infer<typeof bcbCobVSolicitada>;

/** CobVGerada: PUT /cobv/{txid}'s answer (its loc and recebedor left out, as the cob's). */
export const bcbCobVGerada = bcbCobVSolicitada.extend({
  txid: bcbTxid,
  calendario: bcbCobVSolicitada.shape.calendario.extend({ criacao: bcbDateTime }),
  revisao: z.number().int().nonnegative(),
  status: bcbCobGerada.shape.status,
  pixCopiaECola: z.string().max(512).optional(),
});
export type BcbCobVGerada = z.infer<typeof bcbCobVGerada>;

/** RecSolicitada (vinculo, calendario, valor, recebedor.convenio, politicaRetentativa, loc, ativacao). */
export const bcbRecSolicitada = z.object({
  vinculo: z.object({
    objeto: z.string().max(35).optional(),
    devedor: bcbPessoaRecorrencia,
    contrato: z.string().max(35),
  }),
  calendario: z.object({ dataInicial: bcbDate, dataFinal: bcbDate.optional(), periodicidade: bcbPeriodicidade }),
  valor: z.object({ valorRec: bcbAmount.optional(), valorMinimoRecebedor: bcbAmount.optional() }).optional(),
  recebedor: z.object({ convenio: z.string().max(60).optional() }).optional(),
  politicaRetentativa: bcbPoliticaRetentativa,
  /** PayloadLocationRecId: a location made by POST /locrec. */
  loc: z.number().int().optional(),
  ativacao: z.object({ dadosJornada: z.object({ txid: bcbTxid }).optional() }).optional(),
});
export type BcbRecSolicitada = z.infer<typeof bcbRecSolicitada>;

/** SolicRecSolicitada: journey 1's request, sent to the payer's account. */
export const bcbSolicRecSolicitada = z.object({
  idRec: bcbRecId,
  calendario: z.object({ dataExpiracaoSolicitacao: bcbDateTime }),
  destinatario: bcbDestinatario,
});
export type BcbSolicRecSolicitada = z.infer<typeof bcbSolicRecSolicitada>;

/** CobRSolicitada: a cycle's charge (CobRBase, DadosDevedorRecorrencia). */
export const bcbCobRSolicitada = z.object({
  idRec: bcbRecId,
  infoAdicional: z.string().max(140).optional(),
  calendario: z.object({ dataDeVencimento: bcbDate }),
  valor: z.object({ original: bcbAmount }),
  ajusteDiaUtil: z.boolean(),
  recebedor: z.object({ conta: z.string().max(20), tipoConta: bcbTipoConta, agencia: z.string().max(4).optional() }),
});
export type BcbCobRSolicitada = z.infer<typeof bcbCobRSolicitada>;

/** RecRevisada and CobRRevisada, as far as a receiver cancels with them. */
export const bcbCancelamento = z.object({ status: z.literal('CANCELADA') });
/** WebhookRecSolicitado, WebhookCobRSolicitado. */
export const bcbWebhookSolicitado = z.object({ webhookUrl: z.url() });
/** PayloadLocationRecGerada: POST /locrec's answer (the location a journey 2 or 3 rec's QR code names). */
export const bcbLocRecGerada = bcbLocRec;

/** The simulated receiver (our merchant at the sandbox's PSP) and its account. */
export const SANDBOX_RECEIVER: BcbReceiver = {
  cnpj: '00000000000191',
  name: 'Recebedor Sandbox',
  account: { number: '0000002', type: 'CORRENTE', branch: '0001' },
};
/** The simulated receiver's pix key (a cob's chave). */
export const SANDBOX_PIX_KEY = 'recebedor@sandbox.invalid';
const REFERENCE_FIELD = 'referencia';

const devedorOf = (taxId: string, nome: string) => (taxId.length === 11 ? { cpf: taxId, nome } : { cnpj: taxId, nome });

/** A pix as PUT /cob/{txid}'s body: our reference travels as an infoAdicional. */
export function cobSolicitadaOf(input: PixChargeInput, chave: string): BcbCobSolicitada {
  if (input.currency.toUpperCase() !== 'BRL') throw new GatewayError('A pix is charged in BRL only', false);
  const buyer = input.buyer;
  return {
    calendario: { expiracao: input.expiresInSeconds },
    ...(buyer?.taxId && buyer.name ? { devedor: devedorOf(buyer.taxId, buyer.name) } : {}),
    valor: { original: bcbAmountOf(input.amount) },
    chave,
    infoAdicionais: [{ nome: REFERENCE_FIELD, valor: input.reference }],
  };
}

/**
 * PUT /cob/{txid}'s body as our pix input. A cob's devedor has no e-mail, by which a buyer is known
 * (BuyerInput): the pix names no buyer, as a journey 3 pix of a debtor without e-mail does.
 */
export function pixInputOfCob(cob: BcbCobSolicitada, txid: string): PixChargeInput {
  const reference = cob.infoAdicionais?.find((info) => info.nome === REFERENCE_FIELD)?.valor ?? txid;
  return {
    reference,
    amount: centsOf(cob.valor.original),
    currency: 'BRL',
    buyer: null,
    expiresInSeconds: cob.calendario.expiracao,
  };
}

/** Our pix as PUT /cob/{txid}'s answer. */
export function cobGeradaOf(transaction: GatewayTransaction, cob: BcbCobSolicitada): BcbCobGerada {
  return {
    ...cob,
    txid: transaction.id,
    calendario: { criacao: transaction.createdAt, expiracao: cob.calendario.expiracao },
    revisao: 0,
    status: transaction.status === 'succeeded' ? 'CONCLUIDA' : 'ATIVA',
    ...(transaction.pix ? { pixCopiaECola: transaction.pix.qrCode } : {}),
  };
}

/** Journey 4's due-date charge as PUT /cobv/{txid}'s body: our reference travels as an infoAdicional. */
export function cobVSolicitadaOf(input: MandateInput, chave: string): BcbCobVSolicitada {
  const due = input.dueCharge;
  if (!due) throw new GatewayError('Journey 4 needs the due-date charge it pays (dueCharge)', false);
  return {
    calendario: { dataDeVencimento: due.dueDate, validadeAposVencimento: due.daysPayableAfterDue },
    devedor: devedorOf(input.debtor.taxId, input.debtor.name),
    valor: { original: bcbAmountOf(due.amount) },
    chave,
    infoAdicionais: [{ nome: REFERENCE_FIELD, valor: `${input.reference}:due-payment` }],
  };
}

/**
 * PUT /cobv/{txid}'s body as our pix input: payable until the end of its last day in Brasília, from
 * `now` (a cobv whose last day has passed is refused, not retryable).
 */
export function pixInputOfCobV(cobv: BcbCobVSolicitada, txid: string, now: Date): PixChargeInput {
  const { dataDeVencimento, validadeAposVencimento } = cobv.calendario;
  const last = new Date(`${dataDeVencimento}T23:59:59-03:00`).getTime() + validadeAposVencimento * 86_400_000;
  const expiresInSeconds = Math.floor((last - now.getTime()) / 1000);
  if (expiresInSeconds <= 0) throw new GatewayError(`The cobv ${txid} is past its last day`, false);
  return {
    reference: cobv.infoAdicionais?.find((info) => info.nome === REFERENCE_FIELD)?.valor ?? txid,
    amount: centsOf(cobv.valor.original),
    currency: 'BRL',
    buyer: null,
    expiresInSeconds,
  };
}

/** Our pix as PUT /cobv/{txid}'s answer. */
export function cobVGeradaOf(transaction: GatewayTransaction, cobv: BcbCobVSolicitada): BcbCobVGerada {
  return {
    ...cobv,
    txid: transaction.id,
    calendario: { ...cobv.calendario, criacao: transaction.createdAt },
    revisao: 0,
    status: transaction.status === 'succeeded' ? 'CONCLUIDA' : 'ATIVA',
    ...(transaction.pix ? { pixCopiaECola: transaction.pix.qrCode } : {}),
  };
}

/** A mandate to create as POST /rec's body: journey 3 names its first charge, journey 2 its location. */
export function recSolicitadaOf(
  input: MandateInput,
  journey: { loc?: number; firstChargeTxid?: string },
): BcbRecSolicitada {
  const taxId = input.debtor.taxId;
  return {
    vinculo: {
      objeto: input.objectLabel,
      devedor: devedorOf(taxId, input.debtor.name),
      contrato: contratoOf(input.reference),
    },
    calendario: {
      dataInicial: input.startDate,
      ...(input.endDate === null ? {} : { dataFinal: input.endDate }),
      periodicidade: BCB_WORDS.periodicity[input.periodicity],
    },
    valor:
      input.fixedAmount !== null
        ? { valorRec: bcbAmountOf(input.fixedAmount) }
        : input.minimumAmount !== null
          ? { valorMinimoRecebedor: bcbAmountOf(input.minimumAmount) }
          : undefined,
    politicaRetentativa: BCB_WORDS.retryPolicy[input.retryPolicy],
    ...(journey.loc === undefined ? {} : { loc: journey.loc }),
    ...(journey.firstChargeTxid === undefined ? {} : { ativacao: { dadosJornada: { txid: journey.firstChargeTxid } } }),
  };
}

/** POST /rec's body as our mandate input (the debtor's e-mail has no place in a rec), and its journey's data. */
export function mandateInputOfRec(rec: BcbRecSolicitada): { input: MandateInput; firstChargeTxid: string | null } {
  const devedor = rec.vinculo.devedor;
  const firstChargeTxid = rec.ativacao?.dadosJornada?.txid ?? null;
  const journey = firstChargeTxid !== null ? 'journey_3' : rec.loc !== undefined ? 'journey_2' : 'journey_1';
  return {
    input: {
      reference: referenceOfContrato(rec.vinculo.contrato),
      objectLabel: rec.vinculo.objeto ?? '',
      debtor: { name: devedor.nome, taxId: 'cpf' in devedor ? devedor.cpf : devedor.cnpj, email: null },
      startDate: rec.calendario.dataInicial,
      endDate: rec.calendario.dataFinal ?? null,
      periodicity: OUR_WORDS.periodicity[rec.calendario.periodicidade],
      fixedAmount: centsOrNull(rec.valor?.valorRec),
      minimumAmount: centsOrNull(rec.valor?.valorMinimoRecebedor),
      retryPolicy: OUR_WORDS.retryPolicy[rec.politicaRetentativa],
      journey,
    },
    firstChargeTxid,
  };
}

/** Journey 1's request to the payer's account (the sandbox's payer bank when the mandate carries none). */
export function solicRecSolicitadaOf(
  mandate: Pick<GatewayMandate, 'id' | 'debtor'>,
  expiresAt: string,
  payerBank: BcbPayerBank,
): BcbSolicRecSolicitada {
  const taxId = mandate.debtor.taxId;
  const account = { conta: payerBank.account, ispbParticipante: payerBank.ispb, agencia: payerBank.branch };
  return {
    idRec: mandate.id,
    calendario: { dataExpiracaoSolicitacao: expiresAt },
    destinatario: taxId.length === 11 ? { ...account, cpf: taxId } : { ...account, cnpj: taxId },
  };
}

/** The solicrec journey 1's mandate carries (POST /solicrec's answer), as recFromMandate's `solicitacao`. */
export function solicRecFromMandate(mandate: GatewayMandate, payerBank: BcbPayerBank): BcbSolicRecCompleta {
  const request = mandate.request;
  if (!request) throw new GatewayError(`Pix Automático: the mandate ${mandate.id} has no request`, false);
  const at = mandate.history.at(-1)?.at ?? request.expiresAt;
  return {
    idSolicRec: request.id,
    ...solicRecSolicitadaOf(mandate, request.expiresAt, payerBank),
    status: BCB_WORDS.requestStatus[request.status],
    atualizacao: [{ status: BCB_WORDS.requestStatus[request.status], data: at }],
  };
}

/** A cycle's charge as PUT /cobr/{txid}'s body, paid into `receiver`'s account. */
export function cobrSolicitadaOf(input: MandateChargeInput, receiver: BcbReceiver): BcbCobRSolicitada {
  return {
    idRec: input.mandateId,
    infoAdicional: input.reference,
    calendario: { dataDeVencimento: input.dueDate },
    valor: { original: bcbAmountOf(input.amount) },
    // A due date on a holiday settles on the next business day (domain/pix-automatico.ts).
    ajusteDiaUtil: true,
    recebedor: { conta: receiver.account.number, tipoConta: receiver.account.type, agencia: receiver.account.branch },
  };
}

/** PUT /cobr/{txid}'s body as our charge input; a cobr without infoAdicional takes its txid as reference. */
export const chargeInputOfCobr = (cobr: BcbCobRSolicitada, txid: string): MandateChargeInput => ({
  mandateId: cobr.idRec,
  reference: cobr.infoAdicional ?? txid,
  dueDate: cobr.calendario.dataDeVencimento,
  amount: centsOf(cobr.valor.original),
});
