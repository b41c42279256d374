/**
 * The dashboard's CSV downloads (sales, customers): RFC 4180 with CRLF, UTF-8 with a byte-order mark so a
 * spreadsheet opens accents right, and text cells that a spreadsheet would run as a formula defused.
 */

/** A cell: text, a decimal written as a number (never defused), or empty. */
export type CsvCell = string | CsvDecimal | null;

/** A number as its decimal text ("1083.12"), written bare. */
export interface CsvDecimal {
  decimal: string;
}

const BOM = '\uFEFF';
const DECIMAL = /^-?\d+(\.\d+)?$/;
/** What a spreadsheet takes as the start of a formula (OWASP's CSV injection list). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * Integer cents as decimal reais ("1083.12", "-0.05"), built from the integer's digits as text so the
 * amount never passes through a float.
 */
export function reais(cents: number): CsvDecimal {
  if (!Number.isSafeInteger(cents)) throw new RangeError('cents must be a safe integer');
  const digits = String(Math.abs(cents)).padStart(3, '0');
  return { decimal: `${cents < 0 ? '-' : ''}${digits.slice(0, -2)}.${digits.slice(-2)}` };
}

/** One cell: quoted when it holds a comma, quote or line break; a formula-like text gets a leading quote. */
export function csvCell(value: CsvCell): string {
  if (value === null) return '';
  if (typeof value !== 'string') {
    if (!DECIMAL.test(value.decimal)) throw new RangeError(`not a decimal: ${value.decimal}`);
    return value.decimal;
  }
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A whole document: the byte-order mark, the header row, then the rows, each ended by CRLF. */
export function csvDocument(header: readonly string[], rows: readonly (readonly CsvCell[])[]): string {
  const lines = [header, ...rows].map((row) => `${row.map(csvCell).join(',')}\r\n`);
  return BOM + lines.join('');
}
