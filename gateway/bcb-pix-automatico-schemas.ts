import { z } from 'zod';

/**
 * The Banco Central's Pix API for Pix Automático as it travels on the wire (bacen/pix-api openapi.yaml,
 * release 2.9): the mandate (`rec`, GET /rec/{idRec}), its request to the payer's bank (`solicrec`), a
 * cycle's charge (`cobr`, GET /cobr/{txid}) and the two webhooks' bodies. Written field for field from
 * the specification's components; its allOf/oneOf are resolved by hand into plain objects. Keys the
 * specification does not name are dropped (zod's default), so a PSP's extra fields do no harm.
 *
 * The specification's own inconsistencies, and what these schemas do about them:
 * - Its patterns are unanchored JSON Schema patterns (`\d{1,10}\.\d{2}`), which would let "x1.00y"
 *   through; they are anchored here. CPF's and codMun's are written as JavaScript literals
 *   ("/^\d{11}$/"); read as the regex between the slashes.
 * - RecBase requires "retentativa", a field it does not have (politicaRetentativa is RecConfiguracao's,
 *   required there); RecNotification's `required` lacks a quote (`atualizacao"`); DadosPagadorRec
 *   requires ispbParticipante beside `pagador` instead of inside it; SolicRecBase requires "pagador",
 *   which it does not have; SolicRecCompleta requires "rec" while its field is `recPayload`.
 * - The examples' rec histories name the status `nome` (recResponse1–8, getRec1), where RecAtualizacao
 *   requires `status`; recResponse1 puts tipoJornada inside dadosJornada; the cobr examples write CEPs
 *   as "89256-140" (9 characters, maxLength 8) and cobRResponse4 writes tipoConta "POUPANÇA" (the enum
 *   has POUPANCA); several tentativas lack their required `atualizacao`; cobRWebhookNotification1's
 *   dataLiquidacao is "2024-20-08". These schemas keep the schema's word, not the examples'
 *   (test/fixtures/bcb-pix/README.md lists each example's deviations).
 * - A cobr's cancellation codes (ACCT, BLCK, CCLD, FAIL, OTHR, SLBD, SLCR) are not a rec's (…, SLDB):
 *   "SLBD" is kept as the specification spells it.
 * - PixAutomatico.valor is declared a string and, at once, anyOf objects (original, juros, …): read as
 *   the string, as every example has it.
 */

const anchored = (pattern: string) => new RegExp(`^(?:${pattern})$`);

/** ID Recorrência: R, R|N (retries allowed or not), the creator's ISPB, yyyyMMdd, an 11-character sequence. */
export const bcbRecId = z.string().regex(anchored('[a-zA-Z0-9]{29}'));
export const bcbSolicRecId = z.string().regex(anchored('[a-zA-Z0-9]{29}'));
export const bcbTxid = z.string().regex(anchored('[a-zA-Z0-9]{26,35}'));
export const bcbEndToEndId = z.string().regex(anchored('[a-zA-Z0-9]{32}'));
/** Reais with two decimals, as a string ("106.07"). */
export const bcbAmount = z.string().regex(anchored('\\d{1,10}\\.\\d{2}'));
export const bcbDate = z.iso.date();
/** RFC 3339 (date-time). */
export const bcbDateTime = z.iso.datetime({ offset: true });
const cpf = z.string().regex(/^\d{11}$/);
const cnpj = z.string().regex(/^[0-9A-Z]{14}$/);
const ispb = z.string().regex(/^[0-9A-Z]{8}$/);

// ── Words ────────────────────────────────────────────────────────────────────────────────────────

export const bcbRecStatus = z.enum(['CRIADA', 'APROVADA', 'REJEITADA', 'EXPIRADA', 'CANCELADA']);
export const bcbPeriodicidade = z.enum(['SEMANAL', 'MENSAL', 'TRIMESTRAL', 'SEMESTRAL', 'ANUAL']);
export const bcbPoliticaRetentativa = z.enum(['NAO_PERMITE', 'PERMITE_3R_7D']);
export const bcbTipoJornada = z.enum(['JORNADA_1', 'JORNADA_2', 'JORNADA_3', 'JORNADA_4', 'AGUARDANDO_DEFINICAO']);
export const bcbSolicitante = z.enum(['PSP_PAGADOR', 'USUARIO_PAGADOR', 'PSP_RECEBEDOR', 'USUARIO_RECEBEDOR']);
export const bcbRecRejeicaoCodigo = z.enum(['AP13', 'AP14']);
export const bcbRecCancelamentoCodigo = z.enum(['ACCL', 'CPCL', 'DCSD', 'ERSL', 'FRUD', 'PCFD', 'SLCR', 'SLDB']);
export const bcbSolicRecStatus = z.enum([
  'CRIADA',
  'ENVIADA',
  'RECEBIDA',
  'REJEITADA',
  'ACEITA',
  'EXPIRADA',
  'CANCELADA',
]);
export const bcbCobRStatus = z.enum(['CRIADA', 'ATIVA', 'CONCLUIDA', 'EXPIRADA', 'REJEITADA', 'CANCELADA']);
export const bcbCobRCancelamentoCodigo = z.enum(['ACCT', 'BLCK', 'CCLD', 'FAIL', 'OTHR', 'SLBD', 'SLCR']);
/** A charge's and an attempt's rejection codes (the same list in CobRAtualizacao and CobRTentativas). */
export const bcbCobRRejeicaoCodigo = z.enum([
  'AB10',
  'AC05',
  'AC06',
  'AM02',
  'AM09',
  'DENC',
  'DS27',
  'DTED',
  'DTNT',
  'FBRD',
  'IRNT',
  'MIDI',
  'MSUC',
  'NIEC',
  'NIPA',
  'NITX',
  'QUNT',
  'RC09',
  'UDEI',
]);
export const bcbTipoTentativa = z.enum(['AGND', 'NTAG', 'RIFL']);
export const bcbTentativaStatus = z.enum(['SOLICITADA', 'AGENDADA', 'PAGA', 'CANCELADA', 'REJEITADA', 'EXPIRADA']);
export const bcbTipoConta = z.enum(['CORRENTE', 'POUPANCA', 'PAGAMENTO']);

const history = <S extends z.ZodEnum>(status: S) => z.array(z.object({ status, data: bcbDateTime }));
const descricao = z.string().max(400);

// ── People ───────────────────────────────────────────────────────────────────────────────────────

/** PessoaFisicaRecorrencia | PessoaJuridicaRecorrencia. */
export const bcbPessoaRecorrencia = z.union([
  z.object({ cpf, nome: z.string().max(140) }),
  z.object({ cnpj, nome: z.string().max(140) }),
]);

/** RecCompleta.recebedor: PessoaJuridicaRecorrencia and the receiver's agreement with its PSP. */
export const bcbRecRecebedor = z.object({
  cnpj,
  nome: z.string().max(140),
  convenio: z.string().max(60).optional(),
});

/** DadosPagadorRec.pagador: the payer's PSP (and city, for its local holidays) once known. */
export const bcbPagadorRec = z.union([
  z.object({
    ispbParticipante: ispb,
    codMun: z
      .string()
      .regex(/^\d{7}$/)
      .optional(),
    cpf,
  }),
  z.object({
    ispbParticipante: ispb,
    codMun: z
      .string()
      .regex(/^\d{7}$/)
      .optional(),
    cnpj,
  }),
]);

/** DadosDevedorRecorrencia.devedor: a cobr's payer, address only (the name and tax id are the rec's). */
export const bcbDevedorCobR = z.object({
  email: z.string().optional(),
  logradouro: z.string().max(200).optional(),
  cidade: z.string().max(200).optional(),
  uf: z.string().max(2).optional(),
  cep: z.string().max(8).optional(),
});

/** DadosBancariosRecebedor: the account a cobr pays into. */
export const bcbRecebedorCobR = z.object({
  conta: z.string().max(20),
  tipoConta: bcbTipoConta,
  agencia: z.string().max(4).optional(),
  // CobRGerada's PessoaJuridicaRecorrencia, which the examples also show on a complete cobr.
  cnpj: cnpj.optional(),
  nome: z.string().max(140).optional(),
});

/** SolicRecBase.destinatario: DadosBancarios and CPF | CNPJ: the payer's account the request goes to. */
export const bcbDestinatario = z.union([
  z.object({ conta: z.string().max(20), ispbParticipante: ispb, agencia: z.string().max(4).optional(), cpf }),
  z.object({ conta: z.string().max(20), ispbParticipante: ispb, agencia: z.string().max(4).optional(), cnpj }),
]);

// ── rec ──────────────────────────────────────────────────────────────────────────────────────────

const vinculo = z.object({
  objeto: z.string().max(35).optional(),
  devedor: bcbPessoaRecorrencia,
  contrato: z.string().max(35),
});

const calendarioRec = z.object({
  dataInicial: bcbDate,
  dataFinal: bcbDate.optional(),
  periodicidade: bcbPeriodicidade,
});

/** valorRec for a fixed amount, or valorMinimoRecebedor (the floor under the payer's maximum): not both. */
const valorRec = z
  .object({ valorRec: bcbAmount.optional(), valorMinimoRecebedor: bcbAmount.optional() })
  .refine((v) => v.valorRec === undefined || v.valorMinimoRecebedor === undefined, {
    message: 'valorMinimoRecebedor cannot be set on a fixed-amount rec (valorRec)',
  });

/** RecEncerramento: oneOf rejeicao | cancelamento. */
export const bcbRecEncerramento = z.union([
  z.object({ rejeicao: z.object({ codigo: bcbRecRejeicaoCodigo, descricao }) }),
  z.object({ cancelamento: z.object({ solicitante: bcbSolicitante, codigo: bcbRecCancelamentoCodigo, descricao }) }),
]);

/** RecAtivacao: the journey, and journey 3's immediate charge (dadosJornada.txid). */
export const bcbRecAtivacao = z.object({
  tipoJornada: bcbTipoJornada,
  dadosJornada: z.object({ txid: bcbTxid }).optional(),
});

/** PayloadLocationRecCompleta. */
export const bcbLocRec = z.object({
  id: z.number().int(),
  location: z.string().max(77),
  criacao: bcbDateTime,
  idRec: bcbRecId.optional(),
});

/** RecPayload: the rec as a SolicRec carries it to the payer's bank. */
export const bcbRecPayload = z.object({
  idRec: bcbRecId,
  vinculo,
  calendario: calendarioRec,
  valor: valorRec.optional(),
  recebedor: z.object({ cnpj, nome: z.string().max(140), ispbParticipante: ispb }),
  politicaRetentativa: bcbPoliticaRetentativa,
  atualizacao: history(bcbRecStatus),
});

/** SolicRecCompleta: journey 1's request to the payer's bank. */
export const bcbSolicRecCompleta = z.object({
  idSolicRec: bcbSolicRecId,
  idRec: bcbRecId,
  calendario: z.object({ dataExpiracaoSolicitacao: bcbDateTime }),
  destinatario: bcbDestinatario,
  status: bcbSolicRecStatus,
  atualizacao: history(bcbSolicRecStatus),
  recPayload: bcbRecPayload.optional(),
});

/** RecCompleta: the rec as GET /rec/{idRec} answers it. */
export const bcbRecCompleta = z.object({
  idRec: bcbRecId,
  vinculo,
  calendario: calendarioRec,
  valor: valorRec.optional(),
  recebedor: bcbRecRecebedor,
  pagador: bcbPagadorRec.optional(),
  status: bcbRecStatus,
  politicaRetentativa: bcbPoliticaRetentativa,
  loc: bcbLocRec.optional(),
  atualizacao: history(bcbRecStatus),
  encerramento: bcbRecEncerramento.optional(),
  solicitacao: z.array(bcbSolicRecCompleta).optional(),
  ativacao: bcbRecAtivacao.optional(),
  dadosQR: z
    .object({
      jornada: z.enum(['JORNADA_2', 'JORNADA_3', 'JORNADA_4']).optional(),
      pixCopiaECola: z.string().max(512).optional(),
    })
    .optional(),
});

/** RecNotification: one of a /webhookrec body's `recs`. */
export const bcbRecNotification = z.object({
  idRec: bcbRecId,
  status: bcbRecStatus,
  atualizacao: history(bcbRecStatus),
  encerramento: bcbRecEncerramento.optional(),
  ativacao: bcbRecAtivacao.optional(),
});

export const bcbWebhookRecBody = z.object({ recs: z.array(bcbRecNotification) });

// ── cobr ─────────────────────────────────────────────────────────────────────────────────────────

/** CobRAtualizacao.encerramento: oneOf cancelamento | rejeicao of the charge as a whole. */
export const bcbCobREncerramento = z.union([
  z.object({ cancelamento: z.object({ solicitante: bcbSolicitante, codigo: bcbCobRCancelamentoCodigo, descricao }) }),
  z.object({ rejeicao: z.object({ codigo: bcbCobRRejeicaoCodigo, descricao }) }),
]);

/** CobRTentativas.tentativas[]: one settlement try. */
export const bcbTentativa = z.object({
  dataLiquidacao: bcbDate,
  tipo: bcbTipoTentativa,
  status: bcbTentativaStatus,
  endToEndId: bcbEndToEndId,
  atualizacao: history(bcbTentativaStatus),
  rejeicao: z.object({ codigo: bcbCobRRejeicaoCodigo, descricao }).optional(),
});

/** PixAutomatico: a pix received for the cobr. */
export const bcbPixAutomatico = z.object({
  endToEndId: bcbEndToEndId,
  txid: bcbTxid,
  valor: bcbAmount,
  horario: bcbDateTime,
  infoPagador: z.string().max(140).optional(),
  // DevolucaoPixAutomatico: refunds are not Pix Automático's business here; kept as they come.
  devolucoes: z.array(z.unknown()).optional(),
});

/** CobRCompleta: the cobr as GET /cobr/{txid} answers it. */
export const bcbCobRCompleta = z.object({
  idRec: bcbRecId,
  txid: bcbTxid,
  infoAdicional: z.string().max(140).optional(),
  calendario: z.object({ criacao: bcbDate, dataDeVencimento: bcbDate }),
  valor: z.object({ original: bcbAmount }),
  ajusteDiaUtil: z.boolean(),
  recebedor: bcbRecebedorCobR,
  devedor: bcbDevedorCobR.optional(),
  status: bcbCobRStatus,
  politicaRetentativa: bcbPoliticaRetentativa,
  pix: z.array(bcbPixAutomatico).optional(),
  atualizacao: history(bcbCobRStatus),
  encerramento: bcbCobREncerramento.optional(),
  tentativas: z.array(bcbTentativa).optional(),
});

/** CobRNotification: one of a /webhookcobr body's `cobsr`. */
export const bcbCobRNotification = z.object({
  idRec: bcbRecId,
  txid: bcbTxid,
  status: bcbCobRStatus,
  atualizacao: history(bcbCobRStatus),
  encerramento: bcbCobREncerramento.optional(),
  tentativas: z.array(bcbTentativa).optional(),
  pix: z.array(bcbPixAutomatico).optional(),
});

export const bcbWebhookCobRBody = z.object({ cobsr: z.array(bcbCobRNotification) });

// ── Refunds of a received pix (the API's Pix section: PUT/GET /pix/{e2eid}/devolucao/{id}) ──────

/** DevolucaoId: the receiver's own id of a refund. */
export const bcbDevolucaoId = z.string().regex(anchored('[a-zA-Z0-9]{1,35}'));
export const bcbDevolucaoStatus = z.enum(['EM_PROCESSAMENTO', 'DEVOLVIDO', 'NAO_REALIZADO']);

/** DevolucaoSolicitada: the body of PUT /pix/{e2eid}/devolucao/{id}. */
export const bcbDevolucaoSolicitada = z.object({
  valor: bcbAmount,
  natureza: z.enum(['ORIGINAL', 'RETIRADA']).optional(),
  descricao: z.string().max(140).optional(),
});

/** Devolucao: the refund as PUT (201) and GET (200) answer it. */
export const bcbDevolucao = z.object({
  id: bcbDevolucaoId,
  rtrId: z.string().regex(anchored('[a-zA-Z0-9]{32}')),
  valor: bcbAmount,
  natureza: z.enum(['ORIGINAL', 'RETIRADA', 'MED_OPERACIONAL', 'MED_FRAUDE', 'MED_PIX_AUTOMATICO']).optional(),
  descricao: z.string().max(140).optional(),
  horario: z.object({ solicitacao: bcbDateTime.optional(), liquidacao: bcbDateTime.optional() }),
  status: bcbDevolucaoStatus,
  motivo: z.string().max(140).optional(),
});

export type BcbRecCompleta = z.infer<typeof bcbRecCompleta>;
export type BcbRecNotification = z.infer<typeof bcbRecNotification>;
export type BcbSolicRecCompleta = z.infer<typeof bcbSolicRecCompleta>;
export type BcbCobRCompleta = z.infer<typeof bcbCobRCompleta>;
export type BcbCobRNotification = z.infer<typeof bcbCobRNotification>;
export type BcbTentativa = z.infer<typeof bcbTentativa>;
export type BcbTipoConta = z.infer<typeof bcbTipoConta>;
export type BcbDevolucaoSolicitada = z.infer<typeof bcbDevolucaoSolicitada>;
export type BcbDevolucao = z.infer<typeof bcbDevolucao>;
export type BcbDevolucaoStatus = z.infer<typeof bcbDevolucaoStatus>;
