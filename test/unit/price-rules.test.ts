import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { MAX_UNIT_AMOUNT, validatePrice, type PriceInput } from '../../domain/price-rules.ts';

const recurring = (over: Partial<PriceInput> = {}): PriceInput => ({
  currency: 'brl',
  unit_amount: 2990,
  type: 'recurring',
  interval: 'month',
  ...over,
});

function failedField(input: PriceInput): string | undefined {
  const r = validatePrice(input);
  return r.ok ? undefined : r.field;
}

describe('validatePrice defaults', () => {
  it('a bare price is one_time with null interval fields and unspecified tax_behavior', () => {
    expect(validatePrice({ currency: 'brl', unit_amount: 1000 })).toEqual({
      ok: true,
      price: {
        currency: 'brl',
        unit_amount: 1000,
        type: 'one_time',
        interval: null,
        interval_count: null,
        tax_behavior: 'unspecified',
      },
    });
  });

  it('recurring defaults interval_count to 1', () => {
    const r = validatePrice(recurring());
    expect(r.ok && r.price).toMatchObject({
      type: 'recurring',
      interval: 'month',
      interval_count: 1,
    });
  });

  it('keeps given interval_count and tax_behavior', () => {
    const r = validatePrice(
      recurring({
        interval: 'week',
        interval_count: 2,
        tax_behavior: 'inclusive',
      }),
    );
    expect(r.ok && r.price).toMatchObject({
      interval: 'week',
      interval_count: 2,
      tax_behavior: 'inclusive',
    });
  });

  it('null tax_behavior becomes unspecified', () => {
    const r = validatePrice({
      currency: 'usd',
      unit_amount: 1,
      tax_behavior: null,
    });
    expect(r.ok && r.price.tax_behavior).toBe('unspecified');
  });
});

describe('validatePrice currency', () => {
  it.each(['BRL', 'br', 'brla', 'b1l', '', ' brl', 'Brl'])('rejects %p', (currency) => {
    const r = validatePrice({ currency, unit_amount: 100 });
    expect(r).toEqual({
      ok: false,
      field: 'currency',
      message: 'currency must be a 3-letter lower-case ISO 4217 code',
    });
  });

  it('property: any 3 lower-case letters are accepted', () => {
    const lower = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz');
    fc.assert(
      fc.property(fc.tuple(lower, lower, lower), (cs) => validatePrice({ currency: cs.join(''), unit_amount: 1 }).ok),
    );
  });

  it('property: strings that are not 3 lower-case letters are rejected', () => {
    fc.assert(
      fc.property(
        fc.string().filter((s) => !/^[a-z]{3}$/.test(s)),
        (currency) => failedField({ currency, unit_amount: 1 }) === 'currency',
      ),
    );
  });
});

describe('validatePrice unit_amount', () => {
  it.each([-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, MAX_UNIT_AMOUNT + 1])('rejects %p', (unit_amount) => {
    expect(failedField({ currency: 'brl', unit_amount })).toBe('unit_amount');
  });

  it('rejects a non-number from untyped JSON', () => {
    expect(failedField({ currency: 'brl', unit_amount: '100' as unknown as number })).toBe('unit_amount');
  });

  it('accepts the bounds 0 (one_time) and MAX_UNIT_AMOUNT', () => {
    expect(MAX_UNIT_AMOUNT).toBe(99_999_999_999);
    expect(validatePrice({ currency: 'brl', unit_amount: 0 }).ok).toBe(true);
    expect(validatePrice({ currency: 'brl', unit_amount: MAX_UNIT_AMOUNT }).ok).toBe(true);
  });

  it('rejects 0 for recurring prices', () => {
    expect(failedField(recurring({ unit_amount: 0 }))).toBe('unit_amount');
  });

  it('property: integers in range are accepted for both types (>=1 when recurring)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: MAX_UNIT_AMOUNT }), (n) => {
        return validatePrice({ currency: 'brl', unit_amount: n }).ok && validatePrice(recurring({ unit_amount: n })).ok;
      }),
    );
  });
});

describe('validatePrice type and interval', () => {
  it('rejects an unknown type', () => {
    expect(
      failedField({
        currency: 'brl',
        unit_amount: 1,
        type: 'monthly' as never,
      }),
    ).toBe('type');
  });

  it('recurring requires an interval', () => {
    expect(failedField(recurring({ interval: undefined }))).toBe('interval');
    expect(failedField(recurring({ interval: null }))).toBe('interval');
  });

  it('rejects an unknown interval', () => {
    expect(failedField(recurring({ interval: 'quarter' as never }))).toBe('interval');
  });

  it.each(['day', 'week', 'month', 'year'] as const)('accepts interval %s', (interval) => {
    expect(validatePrice(recurring({ interval })).ok).toBe(true);
  });

  it('a one_time price naming an interval is invalid', () => {
    expect(
      failedField({
        currency: 'brl',
        unit_amount: 1,
        type: 'one_time',
        interval: 'month',
      }),
    ).toBe('interval');
  });

  it('a one_time price naming an interval_count is invalid', () => {
    expect(failedField({ currency: 'brl', unit_amount: 1, interval_count: 1 })).toBe('interval_count');
  });

  it('one_time accepts explicit null interval fields', () => {
    expect(
      validatePrice({
        currency: 'brl',
        unit_amount: 1,
        interval: null,
        interval_count: null,
      }).ok,
    ).toBe(true);
  });
});

describe('validatePrice interval_count', () => {
  it.each([0, -1, 366, 1.5])('rejects %p', (interval_count) => {
    expect(failedField(recurring({ interval_count }))).toBe('interval_count');
  });

  it('property: 1..365 accepted and kept', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 365 }), (n) => {
        const r = validatePrice(recurring({ interval_count: n }));
        return r.ok && r.price.interval_count === n;
      }),
    );
  });
});

describe('validatePrice tax_behavior', () => {
  it('rejects an unknown tax_behavior', () => {
    expect(
      failedField({
        currency: 'brl',
        unit_amount: 1,
        tax_behavior: 'included' as never,
      }),
    ).toBe('tax_behavior');
  });

  it.each(['unspecified', 'inclusive', 'exclusive'] as const)('accepts %s', (tax_behavior) => {
    const r = validatePrice({
      currency: 'brl',
      unit_amount: 1,
      tax_behavior,
    });
    expect(r.ok && r.price.tax_behavior).toBe(tax_behavior);
  });
});
