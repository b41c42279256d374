/**
 * Brazilian tax ids (CPF for people, CNPJ for companies), validated by their
 * mod-11 check digits. Only the classic all-numeric CNPJ is supported.
 */

export type TaxId = { type: 'cpf' | 'cnpj'; number: string };

const CPF_LENGTH = 11;
const CNPJ_LENGTH = 14;

/** Strips the punctuation people type (`.`, `-`, `/`, whitespace); anything else is kept so it fails validation. */
export function normalizeTaxIdDigits(input: string): string {
  return input.replace(/[.\-/\s]/g, '');
}

/** Mod-11 check digit over `digits` with the given weights (same rule for CPF and CNPJ). */
function checkDigit(digits: string, weights: readonly number[]): number {
  let sum = 0;
  for (let i = 0; i < weights.length; i++) sum += Number(digits[i]) * weights[i]!;
  const rest = sum % 11;
  return rest < 2 ? 0 : 11 - rest;
}

function hasShape(digits: string, length: number): boolean {
  // Repeated-digit sequences (000..., 111...) satisfy the arithmetic for some digits
  // but are not issued, and are the most common fake input, so they are rejected.
  return digits.length === length && /^\d+$/.test(digits) && !/^(\d)\1*$/.test(digits);
}

const CPF_W1 = [10, 9, 8, 7, 6, 5, 4, 3, 2] as const;
const CPF_W2 = [11, 10, 9, 8, 7, 6, 5, 4, 3, 2] as const;
const CNPJ_W1 = [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2] as const;
const CNPJ_W2 = [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2] as const;

/** `digits` must already be digits only (see normalizeTaxIdDigits). */
export function isValidCpf(digits: string): boolean {
  return (
    hasShape(digits, CPF_LENGTH) &&
    checkDigit(digits, CPF_W1) === Number(digits[9]) &&
    checkDigit(digits, CPF_W2) === Number(digits[10])
  );
}

/** `digits` must already be digits only (see normalizeTaxIdDigits). */
export function isValidCnpj(digits: string): boolean {
  return (
    hasShape(digits, CNPJ_LENGTH) &&
    checkDigit(digits, CNPJ_W1) === Number(digits[12]) &&
    checkDigit(digits, CNPJ_W2) === Number(digits[13])
  );
}

/**
 * Accepts a bare string (type inferred from length: 11 → cpf, 14 → cnpj) or the
 * `{ type, number }` object of the customer update body. A given type must agree
 * with the digits. Returns null for anything invalid.
 */
export function parseTaxId(input: string | { type?: string; number: string }): TaxId | null {
  const raw = typeof input === 'string' ? input : input.number;
  if (typeof raw !== 'string') return null;
  const digits = normalizeTaxIdDigits(raw);
  const inferred = isValidCpf(digits) ? 'cpf' : isValidCnpj(digits) ? 'cnpj' : null;
  if (inferred === null) return null;
  if (typeof input !== 'string' && input.type !== undefined) {
    if (typeof input.type !== 'string' || input.type.toLowerCase() !== inferred) return null;
  }
  return { type: inferred, number: digits };
}

/** 123.456.789-09 / 12.345.678/0001-95. Input that is not the right shape is returned unchanged. */
export function formatTaxId(t: TaxId): string {
  return t.type === 'cpf'
    ? t.number.replace(/^(\d{3})(\d{3})(\d{3})(\d{2})$/, '$1.$2.$3-$4')
    : t.number.replace(/^(\d{2})(\d{3})(\d{3})(\d{4})(\d{2})$/, '$1.$2.$3/$4-$5');
}
