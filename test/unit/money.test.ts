import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { assertMinorUnits, formatAmount, installmentAmounts, multiplyAmount } from '../../domain/money.ts';

describe('assertMinorUnits', () => {
  it.each([0, 1, 2990, Number.MAX_SAFE_INTEGER])('accepts %p', (n) => {
    expect(assertMinorUnits(n)).toBe(true);
  });
  it.each([-1, 0.5, Number.NaN, Number.POSITIVE_INFINITY, Number.MAX_SAFE_INTEGER + 1])('rejects %p', (n) => {
    expect(assertMinorUnits(n)).toBe(false);
  });
});

describe('multiplyAmount', () => {
  it('multiplies integers', () => {
    expect(multiplyAmount(2990, 3)).toBe(8970);
    expect(multiplyAmount(2990, 0)).toBe(0);
  });

  it('throws RangeError beyond Number.MAX_SAFE_INTEGER', () => {
    expect(() => multiplyAmount(Number.MAX_SAFE_INTEGER, 2)).toThrow(RangeError);
    expect(() => multiplyAmount(99_999_999_999, 100_000)).toThrow(RangeError);
    expect(multiplyAmount(Number.MAX_SAFE_INTEGER, 1)).toBe(Number.MAX_SAFE_INTEGER);
  });

  it.each([
    [1.5, 2],
    [100, 1.5],
    [-1, 2],
    [100, -2],
  ])('throws RangeError for non-integer or negative input (%p, %p)', (a, q) => {
    expect(() => multiplyAmount(a, q)).toThrow(RangeError);
  });

  it('property: agrees with exact bigint multiplication whenever it returns', () => {
    fc.assert(
      fc.property(fc.maxSafeNat(), fc.maxSafeNat(), (a, q) => {
        const exact = BigInt(a) * BigInt(q);
        if (exact > BigInt(Number.MAX_SAFE_INTEGER)) {
          try {
            multiplyAmount(a, q);
            return false;
          } catch (e) {
            return e instanceof RangeError;
          }
        }
        return BigInt(multiplyAmount(a, q)) === exact;
      }),
    );
  });
});

describe('installmentAmounts', () => {
  it('gives remainder cents to the first installments', () => {
    expect(installmentAmounts(1000, 3)).toEqual([334, 333, 333]);
    expect(installmentAmounts(1001, 3)).toEqual([334, 334, 333]);
    expect(installmentAmounts(999, 3)).toEqual([333, 333, 333]);
    expect(installmentAmounts(5, 12)).toEqual([1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0]);
    expect(installmentAmounts(2990, 1)).toEqual([2990]);
  });

  it.each([0, 13, 1.5, -1])('throws RangeError for %p installments', (n) => {
    expect(() => installmentAmounts(1000, n)).toThrow(RangeError);
  });

  it.each([-1, 10.5])('throws RangeError for total %p', (total) => {
    expect(() => installmentAmounts(total, 2)).toThrow(RangeError);
  });

  it('property: sums to total, has the right length, parts differ by at most 1, non-increasing', () => {
    fc.assert(
      fc.property(fc.maxSafeNat(), fc.integer({ min: 1, max: 12 }), (total, n) => {
        const parts = installmentAmounts(total, n);
        const sum = parts.reduce((a, b) => a + BigInt(b), 0n);
        const max = Math.max(...parts);
        const min = Math.min(...parts);
        return (
          parts.length === n &&
          sum === BigInt(total) &&
          max - min <= 1 &&
          parts.every((p, i) => Number.isInteger(p) && (i === 0 || p <= parts[i - 1]!))
        );
      }),
    );
  });
});

describe('formatAmount', () => {
  it.each([
    [12_345, 'BRL', 'R$123.45'],
    [5, 'brl', 'R$0.05'],
    [0, 'BRL', 'R$0.00'],
    [-4_990, 'usd', '-$49.90'],
    [123_456_789, 'BRL', 'R$1,234,567.89'],
    [500, 'JPY', '¥500'],
    [Number.MAX_SAFE_INTEGER, 'BRL', 'R$90,071,992,547,409.91'],
  ])('formats %p minor units of %s as %s, exactly', (amount, currency, text) => {
    expect(formatAmount(amount, currency)).toBe(text);
  });

  it.each([
    [9_990, 'R$\u00a099,90'],
    [123_456_789, 'R$\u00a01.234.567,89'],
    [Number.MAX_SAFE_INTEGER, 'R$\u00a090.071.992.547.409,91'],
  ])('formats %p centavos for a Brazilian reader as %s', (amount, text) => {
    expect(formatAmount(amount, 'BRL', 'pt-BR')).toBe(text);
  });

  it('refuses an amount that is not a safe integer', () => {
    expect(() => formatAmount(1.5, 'BRL')).toThrow(RangeError);
  });
});
