/**
 * Price rules of the spec (Price resource, POST create-price, inline prices of
 * POST /products). Pure: callers map `{ ok: false }` to a 400.
 */

export type PriceType = 'one_time' | 'recurring';
export type PriceInterval = 'day' | 'week' | 'month' | 'year';
export type TaxBehavior = 'unspecified' | 'inclusive' | 'exclusive';

export interface PriceInput {
  currency: string;
  unit_amount: number;
  type?: PriceType;
  interval?: PriceInterval | null;
  interval_count?: number | null;
  tax_behavior?: TaxBehavior | null;
}

export interface NormalizedPrice {
  currency: string;
  unit_amount: number;
  type: PriceType;
  interval: PriceInterval | null;
  interval_count: number | null;
  tax_behavior: TaxBehavior;
}

export type PriceValidation = { ok: true; price: NormalizedPrice } | { ok: false; field: string; message: string };

/** Upper bound on unit_amount: keeps amount × quantity far from Number.MAX_SAFE_INTEGER and fits bigint columns. */
export const MAX_UNIT_AMOUNT = 99_999_999_999;
export const MAX_INTERVAL_COUNT = 365;

const PRICE_TYPES: readonly string[] = ['one_time', 'recurring'];
const INTERVALS: readonly string[] = ['day', 'week', 'month', 'year'];
const TAX_BEHAVIORS: readonly string[] = ['unspecified', 'inclusive', 'exclusive'];

const fail = (field: string, message: string): PriceValidation => ({
  ok: false,
  field,
  message,
});

/**
 * Validates and fills defaults. Values are re-checked at runtime because input
 * may come from untyped JSON. A one_time price naming an interval or an
 * interval_count is rejected rather than silently dropped.
 */
export function validatePrice(input: PriceInput): PriceValidation {
  const { currency, unit_amount } = input;
  if (typeof currency !== 'string' || !/^[a-z]{3}$/.test(currency)) {
    return fail('currency', 'currency must be a 3-letter lower-case ISO 4217 code');
  }
  if (typeof unit_amount !== 'number' || !Number.isInteger(unit_amount) || unit_amount < 0) {
    return fail('unit_amount', 'unit_amount must be an integer >= 0 in minor units');
  }
  if (unit_amount > MAX_UNIT_AMOUNT) {
    return fail('unit_amount', `unit_amount must be <= ${MAX_UNIT_AMOUNT}`);
  }
  const type = input.type ?? 'one_time';
  if (!PRICE_TYPES.includes(type)) return fail('type', 'type must be one_time or recurring');

  const interval = input.interval ?? null;
  const intervalCount = input.interval_count ?? null;
  if (interval !== null && !INTERVALS.includes(interval)) {
    return fail('interval', 'interval must be one of day, week, month, year');
  }
  if (
    intervalCount !== null &&
    (typeof intervalCount !== 'number' ||
      !Number.isInteger(intervalCount) ||
      intervalCount < 1 ||
      intervalCount > MAX_INTERVAL_COUNT)
  ) {
    return fail('interval_count', `interval_count must be an integer between 1 and ${MAX_INTERVAL_COUNT}`);
  }

  const taxBehavior = input.tax_behavior ?? 'unspecified';
  if (!TAX_BEHAVIORS.includes(taxBehavior)) {
    return fail('tax_behavior', 'tax_behavior must be one of unspecified, inclusive, exclusive');
  }

  if (type === 'recurring') {
    if (interval === null) return fail('interval', 'interval is required for recurring prices');
    if (unit_amount === 0) return fail('unit_amount', 'unit_amount 0 is allowed only for one_time prices');
    return {
      ok: true,
      price: {
        currency,
        unit_amount,
        type,
        interval,
        interval_count: intervalCount ?? 1,
        tax_behavior: taxBehavior,
      },
    };
  }
  if (interval !== null) return fail('interval', 'interval is only allowed for recurring prices');
  if (intervalCount !== null) return fail('interval_count', 'interval_count is only allowed for recurring prices');
  return {
    ok: true,
    price: {
      currency,
      unit_amount,
      type,
      interval: null,
      interval_count: null,
      tax_behavior: taxBehavior,
    },
  };
}
