import { cobBody } from './efi-payments.ts';
import {
  EfiGatewayError,
  efiCall,
  efiRead,
  idFromKey,
  looseSdk,
  personOf,
  reais,
  type EfiClient,
  type EfiOptions,
} from './efi-client.ts';
import {
  BCB_PERIODICITY,
  BCB_RETRY_POLICY,
  chargeFromCobr as chargeOfCobr,
  contratoOf,
  mandateFromRec as mandateOfRec,
  parseBcbCobR,
  parseBcbRec,
} from './bcb-pix-automatico.ts';
import { bcbDevolucaoIdOf } from './bcb-pix-automatico-words.ts';
import { devolucaoSolicitadaOf, paidEndToEndId, parseBcbDevolucao, refundFromDevolucao } from './bcb-pix-devolucao.ts';
import {
  GatewayError,
  type GatewayMandate,
  type GatewayMandateCharge,
  type GatewayMandateRefund,
  type MandateChargeInput,
  type MandateInput,
} from './port.ts';

/**
 * Pix Automático through Efí's Pix API (the BCB's `rec`, `locrec`, `cobr`), for EfiGateway.
 *
 * Efí makes a rec's id itself (POST /v2/rec), so a mandate is found again by its contract: the rec's
 * `vinculo.contrato` is our reference, and a creation first lists the debtor's recs of the last days
 * (GET /v2/rec?cpf=…) for one with that contract. A cycle's charge has a txid derived from our
 * reference (PUT /v2/cobr/{txid}), read before it is made, so a retry after a lost answer finds it.
 */

/** How far back a creation looks for the rec a lost answer made. */
const REC_LOOKBACK_DAYS = 35;
/** The cobr's txid of a cycle's charge: one per reference (subscription and cycle). */
export const cobrTxidOf = (reference: string) => idFromKey(`cobr:${reference}`);
/** Journey 3's immediate charge that pays the first period, one per mandate key. */
export const firstChargeTxidOf = (idempotencyKey: string) => idFromKey(`${idempotencyKey}:first-charge`);

/** The fields of a rec and a cobr this module reads before they are parsed (the BCB's RecCompleta, CobRCompleta). */
interface BcbRec {
  idRec: string;
  status: string;
  vinculo?: { contrato?: string };
  ativacao?: { dadosJornada?: { txid?: string } } | null;
  dadosQR?: { pixCopiaECola?: string } | null;
  /** Journey 1's requests (solicrec) to the payer's bank, the last one current. */
  solicitacao?: unknown[] | null;
}
interface BcbCobr {
  txid: string;
  status: string;
  tentativas?: { tipo: string; dataLiquidacao: string }[];
}

/**
 * The one place Efí's answers become our records: the BCB's payloads parsed and mapped by the shared
 * BCB mapping (gateway/bcb-pix-automatico.ts); a payload that is not the BCB's is a definite error.
 */
const mandateFromRec = (rec: BcbRec) => mandateOfRec(parseBcbRec(rec));
const chargeFromCobr = (cobr: BcbCobr) => chargeOfCobr(parseBcbCobR(cobr));

const JOURNEY_1_NEEDS_ACCOUNT =
  "Efí's journey 1 (POST /v2/solicrec) sends the request to the payer's account: give its ISPB, agency and account " +
  '(payerAccount), or use journey 2 or 3 (a QR code)';
/** A journey 1 request given no expiry lasts this long (the API's default answer time). */
const DEFAULT_REQUEST_MS = 7 * 86_400_000;
/** Journey 4 rides on a due-date cobv whose composite QR code Efí's adapter does not make yet (decision 0100). */
export const JOURNEY_4_NOT_ON_EFI =
  "Efí's adapter does not offer journey 4 yet (a cobv's composite QR code with its rec): use journey 2 or 3";

export interface RecContext {
  client: EfiClient;
  options: EfiOptions;
  now: () => Date;
}

const sdk = (ctx: RecContext) => looseSdk(ctx.client);
const call = <T>(ctx: RecContext, what: string, run: () => Promise<unknown>) =>
  efiCall(what, ctx.options.timeoutMs, run) as Promise<T>;
const read = <T>(ctx: RecContext, what: string, run: () => Promise<unknown>) =>
  efiRead(what, ctx.options.timeoutMs, run) as Promise<T | null>;

/** The rec with its QR code while it waits for the payer (journey 3's composite one names the cob's txid). */
async function recWithQr(ctx: RecContext, idRec: string): Promise<BcbRec | null> {
  const rec = await read<BcbRec>(ctx, `GET /v2/rec/${idRec}`, () => sdk(ctx).pixDetailRecurrenceAutomatic({ idRec }));
  const txid = rec?.ativacao?.dadosJornada?.txid;
  if (!rec || rec.status !== 'CRIADA' || !txid || rec.dadosQR?.pixCopiaECola) return rec;
  return read<BcbRec>(ctx, `GET /v2/rec/${idRec}?txid=${txid}`, () =>
    sdk(ctx).pixDetailRecurrenceAutomatic({ idRec, txid }),
  );
}

/** The rec a previous creation made for this contract, if any (newest first). */
async function findRec(ctx: RecContext, input: MandateInput): Promise<BcbRec | null> {
  const now = ctx.now();
  const inicio = new Date(now.getTime() - REC_LOOKBACK_DAYS * 86_400_000).toISOString();
  const fim = new Date(now.getTime() + 86_400_000).toISOString();
  const taxId = input.debtor.taxId.replace(/\D/g, '');
  const who = taxId.length === 14 ? { cnpj: taxId } : { cpf: taxId };
  const listed = await call<{ recs?: BcbRec[] }>(ctx, 'GET /v2/rec', () =>
    sdk(ctx).pixListRecurrenceAutomatic({ inicio, fim, ...who, 'paginacao.itensPorPagina': 1000 }),
  );
  const contract = contratoOf(input.reference);
  const found = (listed.recs ?? []).filter((r) => r.vinculo?.contrato === contract);
  return found[found.length - 1] ?? null;
}

function recBody(input: MandateInput, loc: number | null, firstTxid: string | null) {
  const value =
    input.fixedAmount !== null
      ? { valorRec: reais(input.fixedAmount) }
      : { valorMinimoRecebedor: reais(input.minimumAmount ?? 0) };
  return {
    vinculo: {
      contrato: contratoOf(input.reference),
      devedor: personOf(input.debtor.taxId, input.debtor.name),
      objeto: input.objectLabel.slice(0, 35),
    },
    calendario: {
      dataInicial: input.startDate,
      ...(input.endDate ? { dataFinal: input.endDate } : {}),
      periodicidade: BCB_PERIODICITY[input.periodicity],
    },
    valor: value,
    politicaRetentativa: BCB_RETRY_POLICY[input.retryPolicy],
    // Journey 1 has no QR code, so no location: its request goes to the payer's bank (solicrec).
    ...(loc !== null ? { loc } : {}),
    ...(firstTxid ? { ativacao: { dadosJornada: { txid: firstTxid } } } : {}),
  };
}

/** Journey 3's first period: an immediate cob (PUT /v2/cob/{txid}, idempotent by its txid). */
async function firstCharge(ctx: RecContext, input: MandateInput, idempotencyKey: string): Promise<string> {
  if (!input.firstCharge) throw new GatewayError('Journey 3 pays its first charge: firstCharge is required', false);
  const txid = firstChargeTxidOf(idempotencyKey);
  const existing = await read(ctx, `GET /v2/cob/${txid}`, () => sdk(ctx).pixDetailCharge({ txid }));
  if (existing) return txid;
  const body = cobBody(
    {
      reference: input.reference,
      amount: input.firstCharge.amount,
      currency: 'BRL',
      buyer: { email: input.debtor.email ?? '', name: input.debtor.name, taxId: input.debtor.taxId },
      expiresInSeconds: input.firstCharge.expiresInSeconds,
    },
    ctx.options.pixKey,
  );
  await call(ctx, `PUT /v2/cob/${txid}`, () => sdk(ctx).pixCreateCharge({ txid }, body));
  return txid;
}

export async function createMandate(
  ctx: RecContext,
  input: MandateInput,
  idempotencyKey: string,
): Promise<GatewayMandate> {
  if (input.journey === 'journey_1') return requestMandate(ctx, input);
  if (input.journey === 'journey_4') throw new GatewayError(JOURNEY_4_NOT_ON_EFI, false);
  const earlier = await findRec(ctx, input);
  if (earlier) {
    const rec = (await recWithQr(ctx, earlier.idRec)) ?? earlier;
    return mandateFromRec(rec);
  }
  const firstTxid = input.journey === 'journey_3' ? await firstCharge(ctx, input, idempotencyKey) : null;
  const loc = await call<{ id: number }>(ctx, 'POST /v2/locrec', () => sdk(ctx).pixCreateLocationRecurrenceAutomatic());
  const made = await call<BcbRec>(ctx, 'POST /v2/rec', () =>
    sdk(ctx).pixCreateRecurrenceAutomatic(recBody(input, loc.id, firstTxid)),
  );
  const rec = (await recWithQr(ctx, made.idRec)) ?? made;
  return mandateFromRec(rec);
}

/** The solicrec's body: the rec, the request's expiry, and the payer's account held by the debtor. */
function solicRecBody(input: MandateInput, idRec: string, now: Date) {
  const account = input.payerAccount!;
  const expiresAt = input.requestExpiresAt ?? new Date(now.getTime() + DEFAULT_REQUEST_MS).toISOString();
  const digits = input.debtor.taxId.replace(/\D/g, '');
  const taxId = digits.length === 14 ? { cnpj: digits } : { cpf: digits };
  return {
    idRec,
    calendario: { dataExpiracaoSolicitacao: expiresAt },
    destinatario: { agencia: account.agency, conta: account.account, ispbParticipante: account.ispb, ...taxId },
  };
}

/**
 * Journey 1: a rec without a location (`POST /v2/rec`), then its request to the payer's account
 * (`POST /v2/solicrec`), and the rec read back with it. A retry finds the rec by its contract and sends
 * the request only when the rec has none; a request refused because the rec has one already (a first
 * POST whose answer was lost) reads the rec again.
 */
async function requestMandate(ctx: RecContext, input: MandateInput): Promise<GatewayMandate> {
  if (!input.payerAccount) throw new GatewayError(JOURNEY_1_NEEDS_ACCOUNT, false);
  const rec =
    (await findRec(ctx, input)) ??
    (await call<BcbRec>(ctx, 'POST /v2/rec', () => sdk(ctx).pixCreateRecurrenceAutomatic(recBody(input, null, null))));
  if (rec.status === 'CRIADA' && !rec.solicitacao?.length) {
    const body = solicRecBody(input, rec.idRec, ctx.now());
    try {
      await call(ctx, 'POST /v2/solicrec', () => sdk(ctx).pixCreateRequestRecurrenceAutomatic(body));
    } catch (err) {
      if (!(err instanceof GatewayError) || err.retryable) throw err;
      const now = await read<BcbRec>(ctx, `GET /v2/rec/${rec.idRec}`, () =>
        sdk(ctx).pixDetailRecurrenceAutomatic({ idRec: rec.idRec }),
      );
      if (!now?.solicitacao?.length) throw err;
      return mandateFromRec(now);
    }
  }
  const sent = await read<BcbRec>(ctx, `GET /v2/rec/${rec.idRec}`, () =>
    sdk(ctx).pixDetailRecurrenceAutomatic({ idRec: rec.idRec }),
  );
  if (!sent) throw new EfiGatewayError(`Efí rec ${rec.idRec} vanished after its request`, true, 200, 'vanished');
  return mandateFromRec(sent);
}

export async function getMandate(ctx: RecContext, mandateId: string): Promise<GatewayMandate | null> {
  const rec = await recWithQr(ctx, mandateId);
  return rec ? mandateFromRec(rec) : null;
}

export async function cancelMandate(ctx: RecContext, mandateId: string): Promise<GatewayMandate> {
  const rec = await recWithQr(ctx, mandateId);
  if (!rec) throw new EfiGatewayError(`Efí has no rec ${mandateId}`, false, 404, 'not_found');
  if (rec.status === 'CANCELADA') return mandateFromRec(rec);
  const cancelled = await call<BcbRec>(ctx, `PATCH /v2/rec/${mandateId}`, () =>
    sdk(ctx).pixUpdateRecurrenceAutomatic({ idRec: mandateId }, { status: 'CANCELADA' }),
  );
  return mandateFromRec(cancelled);
}

const readCobr = (ctx: RecContext, txid: string) =>
  read<BcbCobr>(ctx, `GET /v2/cobr/${txid}`, () => sdk(ctx).pixDetailAutomaticCharge({ txid }));

export async function createMandateCharge(ctx: RecContext, input: MandateChargeInput): Promise<GatewayMandateCharge> {
  const account = ctx.options.account;
  if (!account) {
    throw new GatewayError(
      "Efí's cobr names the receiving account: set EFI_ACCOUNT_NUMBER (and EFI_ACCOUNT_AGENCY)",
      false,
    );
  }
  const txid = cobrTxidOf(input.reference);
  const existing = await readCobr(ctx, txid);
  if (existing) return chargeFromCobr(existing);
  const body = {
    idRec: input.mandateId,
    infoAdicional: input.reference.slice(0, 140),
    calendario: { dataDeVencimento: input.dueDate },
    valor: { original: reais(input.amount) },
    ajusteDiaUtil: true,
    recebedor: { conta: account.number, tipoConta: account.type, agencia: account.agency },
  };
  try {
    return chargeFromCobr(
      await call<BcbCobr>(ctx, `PUT /v2/cobr/${txid}`, () => sdk(ctx).pixCreateAutomaticChargeTxid({ txid }, body)),
    );
  } catch (err) {
    // A first PUT whose answer was lost made it: the second is refused (txid in use), the charge is there.
    if (!(err instanceof GatewayError) || err.retryable) throw err;
    const made = await readCobr(ctx, txid);
    if (made) return chargeFromCobr(made);
    throw err;
  }
}

export async function getMandateCharge(ctx: RecContext, chargeId: string): Promise<GatewayMandateCharge | null> {
  const cobr = await readCobr(ctx, chargeId);
  return cobr ? chargeFromCobr(cobr) : null;
}

const hasRetryOn = (cobr: BcbCobr, date: string) =>
  (cobr.tentativas ?? []).some((t) => t.tipo === 'RIFL' && t.dataLiquidacao === date);

/** POST /v2/cobr/{txid}/retentativa/{data}; a retry already asked for that date is returned as it is. */
export async function retryMandateCharge(
  ctx: RecContext,
  chargeId: string,
  settlementDate: string,
): Promise<GatewayMandateCharge> {
  const before = await readCobr(ctx, chargeId);
  if (!before) throw new EfiGatewayError(`Efí has no cobr ${chargeId}`, false, 404, 'not_found');
  if (hasRetryOn(before, settlementDate)) return chargeFromCobr(before);
  try {
    const after = await call<BcbCobr>(ctx, `POST /v2/cobr/${chargeId}/retentativa/${settlementDate}`, () =>
      sdk(ctx).pixRetryRequestAutomatic({ txid: chargeId, data: settlementDate }),
    );
    return chargeFromCobr(after);
  } catch (err) {
    if (!(err instanceof GatewayError) || err.retryable) throw err;
    const now = await readCobr(ctx, chargeId);
    if (now && hasRetryOn(now, settlementDate)) return chargeFromCobr(now);
    throw err;
  }
}

export async function cancelMandateCharge(ctx: RecContext, chargeId: string): Promise<GatewayMandateCharge> {
  const cobr = await readCobr(ctx, chargeId);
  if (!cobr) throw new EfiGatewayError(`Efí has no cobr ${chargeId}`, false, 404, 'not_found');
  if (cobr.status === 'CANCELADA') return chargeFromCobr(cobr);
  if (cobr.status === 'CONCLUIDA')
    throw new GatewayError(`Efí cobr ${chargeId} is paid: it cannot be cancelled`, false);
  return chargeFromCobr(
    await call<BcbCobr>(ctx, `PATCH /v2/cobr/${chargeId}`, () =>
      sdk(ctx).pixUpdateAutomaticCharge({ txid: chargeId }, { status: 'CANCELADA' }),
    ),
  );
}

/**
 * A paid cobr's refund (decision 0099): the cobr read (GET /v2/cobr/{txid}) for its paid attempt's
 * end-to-end id, then that pix's devolução through the SDK, its id formed from our key. The devolução is
 * read first (GET /v2/pix/{e2eId}/devolucao/{id}) and asked for (PUT) only when Efí has none, so a
 * retry after a lost answer gets the first refund and never a second one.
 */
export async function refundMandateCharge(
  ctx: RecContext,
  chargeId: string,
  amount: number,
  idempotencyKey: string,
): Promise<GatewayMandateRefund> {
  const cobr = await readCobr(ctx, chargeId);
  if (!cobr) throw new EfiGatewayError(`Efí has no cobr ${chargeId}`, false, 404, 'not_found');
  const e2eId = paidEndToEndId(chargeFromCobr(cobr));
  const id = bcbDevolucaoIdOf(idempotencyKey);
  const what = `/v2/pix/${e2eId}/devolucao/${id}`;
  const made = await read<unknown>(ctx, `GET ${what}`, () => sdk(ctx).pixDetailDevolution({ e2eId, id }));
  const devolucao =
    made ??
    (await call<unknown>(ctx, `PUT ${what}`, () =>
      sdk(ctx).pixDevolution({ e2eId, id }, devolucaoSolicitadaOf(amount)),
    ));
  return refundFromDevolucao(parseBcbDevolucao(devolucao), chargeId, e2eId);
}
