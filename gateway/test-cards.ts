import type { DeclineReason } from './port.ts';

/**
 * The simulator's deterministic test cards. Any other number that passes the Luhn check is
 * approved; a number that fails it is declined as invalid_card; an expiry in the past is declined as
 * expired_card whatever the number.
 */
export type CardOutcome =
  | 'approve'
  /** Fails with a retryable processing error on the first attempt of an idempotency key; approves on a retry. */
  | 'processing_error_once'
  /** Authorizes only (pre_authorized) even when capture is asked; must be captured. */
  | 'authorize_only'
  /**
   * Held for review (pending, as Mercado Pago's `in_process`); the review ends (the sandbox's
   * `endReview`) approved, or declined as fraud_suspected.
   */
  | 'review_approve'
  | 'review_decline'
  | `decline:${DeclineReason}`;

export interface TestCard {
  number: string;
  brand: string;
  outcome: CardOutcome;
  description: string;
}

export const TEST_CARDS: readonly TestCard[] = [
  { number: '4111111111111111', brand: 'visa', outcome: 'approve', description: 'Approved' },
  { number: '5555555555554444', brand: 'mastercard', outcome: 'approve', description: 'Approved' },
  {
    number: '4000000000000002',
    brand: 'visa',
    outcome: 'decline:card_declined',
    description: 'Declined: card_declined',
  },
  {
    number: '4000000000009995',
    brand: 'visa',
    outcome: 'decline:insufficient_funds',
    description: 'Declined: insufficient_funds',
  },
  { number: '4000000000000069', brand: 'visa', outcome: 'decline:expired_card', description: 'Declined: expired_card' },
  {
    number: '4000000000000127',
    brand: 'visa',
    outcome: 'decline:incorrect_cvc',
    description: 'Declined: incorrect_cvc',
  },
  {
    number: '4000000000000259',
    brand: 'visa',
    outcome: 'decline:fraud_suspected',
    description: 'Declined: fraud_suspected',
  },
  {
    number: '4000000000000119',
    brand: 'visa',
    outcome: 'processing_error_once',
    description:
      'Processing error (retryable) on the first attempt of an idempotency key; approved on the retry with the same key',
  },
  {
    number: '4000000000003220',
    brand: 'visa',
    outcome: 'authorize_only',
    description: 'Requires pre-authorization: always pre_authorized, must be captured',
  },
  {
    number: '4000000000001505',
    brand: 'visa',
    outcome: 'review_approve',
    description: 'Under review: pending until the review ends (sandbox: POST …/end-review), then approved',
  },
  {
    number: '4000000000002503',
    brand: 'visa',
    outcome: 'review_decline',
    description:
      'Under review: pending until the review ends (sandbox: POST …/end-review), then declined: fraud_suspected',
  },
];

const byNumber = new Map(TEST_CARDS.map((c) => [c.number, c]));

export const digitsOf = (number: string) => number.replace(/[\s-]/g, '');

export function isLuhnValid(number: string): boolean {
  const digits = digitsOf(number);
  if (!/^\d{12,19}$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

// Elo and Hipercard BINs overlap the Visa/Mastercard ranges, so they are matched first.
const ELO_PREFIXES = [
  '401178',
  '401179',
  '431274',
  '438935',
  '451416',
  '457393',
  '457631',
  '457632',
  '504175',
  '627780',
  '636297',
  '636368',
  '506699',
  '5067',
  '509',
  '650',
  '651652',
  '655',
];
const HIPERCARD_PREFIXES = ['606282', '384100', '384140', '384160', '6062'];

/** The card brand told by its number (BIN ranges), or 'unknown'. */
export function cardBrand(number: string): string {
  const n = digitsOf(number);
  if (HIPERCARD_PREFIXES.some((p) => n.startsWith(p))) return 'hipercard';
  if (ELO_PREFIXES.some((p) => n.startsWith(p))) return 'elo';
  if (/^3[47]/.test(n)) return 'amex';
  if (n.startsWith('4')) return 'visa';
  const two = Number(n.slice(0, 2));
  const four = Number(n.slice(0, 4));
  if ((two >= 51 && two <= 55) || (four >= 2221 && four <= 2720)) return 'mastercard';
  return 'unknown';
}

/** What charging this number will do, decided once at tokenization (the number itself is not kept). */
export function cardOutcome(number: string): CardOutcome {
  const digits = digitsOf(number);
  if (!isLuhnValid(digits)) return 'decline:invalid_card';
  return byNumber.get(digits)?.outcome ?? 'approve';
}

/** True when the card's last valid month (MM / YY or YYYY) ended before `now`. */
export function isExpired(expirationMonth: string, expirationYear: string, now: Date): boolean {
  const month = Number(expirationMonth);
  let year = Number(expirationYear);
  if (!Number.isInteger(month) || month < 1 || month > 12 || !Number.isInteger(year)) return true;
  if (year < 100) year += 2000;
  // The first instant after the expiry month, in UTC.
  return now.getTime() >= Date.UTC(year, month, 1);
}
