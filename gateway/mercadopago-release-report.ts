import type { LedgerKind, LedgerRow } from '../domain/reconciliation.ts';
import { reaisToCents } from './mercadopago-money.ts';
import { GatewayError, type LedgerWindow } from './port.ts';

/**
 * Mercado Pago's ledger is its release report ("Reporte de liberaciones", decision 0073), as its
 * developer guide (reports/released-money: api, how-to-use, glossary) describes it:
 *
 * - `POST /v1/account/release_report` `{ begin_date, end_date }` asks for one (202: it is built
 *   asynchronously); `GET /v1/account/release_report/list` lists those made, each with its
 *   `begin_date`, `end_date` and `file_name`; `GET /v1/account/release_report/:file_name` downloads
 *   the CSV.
 * - Columns (the guide's example; the account's report config may add others, which are ignored):
 *   DATE, SOURCE_ID (the payment's id), EXTERNAL_REFERENCE, RECORD_TYPE (initial_available_balance,
 *   release, block, unblock, subtotal, total), DESCRIPTION (payment, refund, chargeback, dispute,
 *   `reserve-…` holds, payout, withdrawal, …), NET_CREDIT_AMOUNT, NET_DEBIT_AMOUNT, GROSS_AMOUNT,
 *   MP_FEE_AMOUNT, FINANCING_FEE_AMOUNT, SHIPPING_FEE_AMOUNT, TAXES_AMOUNT, COUPON_AMOUNT,
 *   INSTALLMENTS, PAYMENT_METHOD; amounts signed decimals of the account's currency.
 *
 * A movement row becomes a row of its kind for GROSS_AMOUNT, a `fee` row for the fees beside it and
 * a `withholding` row for TAXES_AMOUNT, so that their sum is the row's net. INSTALLMENTS is, as the
 * glossary says, the number of instalments of the operation, not which one a row releases: a payment
 * row of more than one carries `installment: { number: null, of }`, and the rule calls a part of it
 * released instalment timing (decision 0077). Rows of the account (a payout, a fee or tax of no
 * payment: no SOURCE_ID nor EXTERNAL_REFERENCE) keep their null keys; no organization's report takes
 * them, and the run counts them apart (decision 0077).
 */

const SKIPPED_RECORDS = new Set(['initial_available_balance', 'subtotal', 'total', '']);

/** One CSV record's fields; quotes as RFC 4180 has them (the report quotes a field with its separator). */
function splitRecord(line: string, separator: string): string[] {
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < line.length; i += 1) {
    const ch = line[i]!;
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') {
        field += '"';
        i += 1;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === separator) {
      fields.push(field);
      field = '';
    } else field += ch;
  }
  fields.push(field);
  return fields;
}

/** A signed decimal of reais ("-43.04", "1099.00", "") → signed cents. */
export function signedCents(text: string | undefined): number {
  const value = (text ?? '').trim();
  if (value === '') return 0;
  const negative = value.startsWith('-');
  const cents = reaisToCents(Number(negative ? value.slice(1) : value));
  return negative ? -cents : cents;
}

function kindOf(recordType: string, description: string): LedgerKind {
  if (recordType === 'block' || recordType === 'unblock') return 'dispute';
  if (description.startsWith('reserve') || /chargeback|dispute|mediation/.test(description)) return 'dispute';
  if (description.startsWith('refund')) return 'refund';
  if (description === 'payout' || description.startsWith('withdrawal')) return 'payout';
  if (/withholding|tax/.test(description)) return 'withholding';
  // A payment, and any movement the glossary may add: against the payment, where a difference shows.
  return 'payment';
}

/** The release report's CSV → ledger rows (the separator read from its header: `,` or the config's `;`). */
export function parseReleaseReport(csv: string): LedgerRow[] {
  const lines = csv
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .filter((line) => line.trim() !== '');
  const header = lines.shift();
  if (header === undefined) return [];
  const separator = header.includes(';') && !header.includes(',') ? ';' : ',';
  const columns = splitRecord(header, separator).map((name) => name.trim().toUpperCase());
  const rows: LedgerRow[] = [];
  for (const line of lines) {
    const fields = splitRecord(line, separator);
    const at = (name: string) => fields[columns.indexOf(name)]?.trim() ?? '';
    const recordType = at('RECORD_TYPE').toLowerCase();
    if (SKIPPED_RECORDS.has(recordType)) continue;
    const kind = kindOf(recordType, at('DESCRIPTION').toLowerCase());
    const key = {
      gatewayId: at('SOURCE_ID') || null,
      reference: at('EXTERNAL_REFERENCE') || null,
      releaseDate: at('DATE') || null,
    };
    const installments = Number(at('INSTALLMENTS')) || 1;
    const installment = kind === 'payment' && installments > 1 ? { number: null, of: installments } : null;
    const gross = signedCents(at('GROSS_AMOUNT'));
    // A row whose money is all in its fee or tax columns (a tax of the account) gives no empty row of its own.
    if (gross !== 0 || kind === 'payment' || kind === 'refund') {
      rows.push({ ...key, kind, amount: gross, ...(installment ? { installment } : {}) });
    }
    // A payout's own fee (the withdrawal's) is the account's money too: a fee row of no payment.
    const fee = ['MP_FEE_AMOUNT', 'FINANCING_FEE_AMOUNT', 'SHIPPING_FEE_AMOUNT'].reduce(
      (total, name) => total + signedCents(at(name)),
      0,
    );
    if (fee !== 0) rows.push({ ...key, kind: 'fee', amount: fee });
    const taxes = signedCents(at('TAXES_AMOUNT'));
    if (taxes !== 0) rows.push({ ...key, kind: 'withholding', amount: taxes });
  }
  return rows;
}

/** A listed report, as `GET /v1/account/release_report/list` answers it. */
export interface ReleaseReportListing {
  begin_date: string;
  end_date: string;
  file_name?: string | null;
}

/** The report's end is inclusive (the list shows `…T23:59:59Z`): a window's last second. */
export const reportRange = (window: LedgerWindow) => ({
  begin_date: window.from.toISOString().replace('.000Z', 'Z'),
  end_date: new Date(window.to.getTime() - 1_000).toISOString().replace('.000Z', 'Z'),
});

/** The listed report of exactly this window, if one was asked for. */
export function reportOf(list: ReleaseReportListing[], window: LedgerWindow): ReleaseReportListing | null {
  const range = reportRange(window);
  const same = (a: string, b: string) => Math.abs(new Date(a).getTime() - new Date(b).getTime()) < 1_000;
  return list.find((r) => same(r.begin_date, range.begin_date) && same(r.end_date, range.end_date)) ?? null;
}

/** Not ready yet: the activity retries (Temporal's backoff) until the file is listed. */
export const reportPending = (window: LedgerWindow) =>
  new GatewayError(`Mercado Pago is preparing the release report of ${window.from.toISOString()}`, true);

/** Rows dated inside the window only: a report's first and last days may reach past it. */
export const rowsIn = (rows: LedgerRow[], window: LedgerWindow) =>
  rows.filter((row) => {
    if (!row.releaseDate) return true;
    const at = new Date(row.releaseDate).getTime();
    return Number.isNaN(at) || (at >= window.from.getTime() && at < window.to.getTime());
  });
