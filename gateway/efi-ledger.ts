import type { LedgerRow } from '../domain/reconciliation.ts';
import { efiCall, type EfiSdk } from './efi-client.ts';
import { ledgerRowsOfPix, type EfiPix } from './efi-payments.ts';
import type { LedgerWindow } from './port.ts';

/**
 * Efí's ledger for the daily reconciliation (decision 0073): the pix received in the window (the Pix
 * API's `GET /v2/pix`) and the boletos paid in it (the charges API's `GET /v1/charges`, by date of
 * payment). Neither API states Efí's fee of a payment (only the Extratos API's CNAB statement files do,
 * which are not read), so the ledger has no fee rows (decision 0102).
 */

/** Brazil's offset: the charges API takes and answers Brasília dates and times (no daylight saving since 2019). */
const BRASILIA_OFFSET_MS = 3 * 3_600_000;
/** The charges API's page size (its maximum). */
const CHARGES_PAGE = 1000;
/** Boletos whose money reached the account: paid, and paid ones refunded or disputed since (not `settled`, marked paid by hand). */
const MONEY_MOVED = new Set(['paid', 'refunded', 'contested']);

/** A paid boleto as `GET /v1/charges` lists it (amounts in cents, times in Brasília). */
export interface EfiListedCharge {
  id: number;
  total: number;
  status: string;
  custom_id?: string | null;
  payment?: {
    payment_method?: string;
    paid_at?: string | null;
    paid_value?: number;
    received_by_bank_at?: string;
  } | null;
}

const brasiliaDate = (at: Date) => new Date(at.getTime() - BRASILIA_OFFSET_MS).toISOString().slice(0, 10);

/** "2026-01-12 09:30:00" (or a date alone) in Brasília as an instant; an ISO time with its zone as it is. */
export function brasiliaInstant(text: string): Date {
  if (/[zZ]|[+-]\d\d:\d\d$/.test(text)) return new Date(text);
  const [date, time = '00:00:00'] = text.trim().split(/[ T]/);
  return new Date(`${date}T${time}-03:00`);
}

/** Each boleto paid in the window as its gross payment, keyed by its charge_id (our transaction id). */
export function ledgerRowsOfBoletos(listed: EfiListedCharge[], window: LedgerWindow): LedgerRow[] {
  return listed.flatMap((charge) => {
    const paidAt = charge.payment?.paid_at;
    if (charge.payment?.payment_method !== 'banking_billet' || !paidAt || !MONEY_MOVED.has(charge.status)) return [];
    const at = brasiliaInstant(paidAt).getTime();
    if (at < window.from.getTime() || at >= window.to.getTime()) return [];
    const settled = charge.payment.received_by_bank_at;
    return [
      {
        kind: 'payment' as const,
        gatewayId: String(charge.id),
        reference: null,
        // What the payer paid (interest or a fine included), else the boleto's face value.
        amount: charge.payment.paid_value ?? charge.total,
        status: charge.status,
        releaseDate: settled ? brasiliaInstant(settled).toISOString() : null,
      },
    ];
  });
}

/** `GET /v2/pix` over the window, page by page; `fim` is inclusive at Efí, the window's `to` is not. */
async function pixReceived(sdk: EfiSdk, timeoutMs: number, window: LedgerWindow): Promise<EfiPix[]> {
  const received: EfiPix[] = [];
  for (let page = 0; ; page++) {
    const answer = (await efiCall('GET /v2/pix', timeoutMs, () =>
      sdk.pixReceivedList({
        inicio: window.from.toISOString(),
        fim: window.to.toISOString(),
        'paginacao.paginaAtual': page,
        'paginacao.itensPorPagina': 1000,
      }),
    )) as { pix?: EfiPix[]; parametros?: { paginacao?: { quantidadeDePaginas?: number } } };
    received.push(...(answer.pix ?? []));
    if (page + 1 >= (answer.parametros?.paginacao?.quantidadeDePaginas ?? 1)) break;
  }
  return received.filter((p) => Date.parse(p.horario) < window.to.getTime());
}

/**
 * `GET /v1/charges` of boletos by date of payment, over the Brasília days the window touches, page by
 * page until a short one (the API states no page count); the rows are then cut to the window itself.
 */
async function boletosPaid(sdk: EfiSdk, timeoutMs: number, window: LedgerWindow): Promise<EfiListedCharge[]> {
  const listed: EfiListedCharge[] = [];
  for (let page = 1; ; page++) {
    const answer = (await efiCall('GET /v1/charges', timeoutMs, () =>
      sdk.listCharges({
        charge_type: 'billet',
        date_of: 'payment',
        begin_date: brasiliaDate(window.from),
        end_date: brasiliaDate(new Date(window.to.getTime() - 1)),
        limit: CHARGES_PAGE,
        page,
      }),
    )) as { data?: EfiListedCharge[] };
    const data = answer.data ?? [];
    listed.push(...data);
    if (data.length < CHARGES_PAGE) break;
  }
  return listed;
}

/** The pix and the boletos Efí received in the window, as ledger rows. */
export async function efiLedger(sdk: EfiSdk, timeoutMs: number, window: LedgerWindow): Promise<LedgerRow[]> {
  const pix = ledgerRowsOfPix(await pixReceived(sdk, timeoutMs, window));
  const boletos = ledgerRowsOfBoletos(await boletosPaid(sdk, timeoutMs, window), window);
  return [...pix, ...boletos];
}
