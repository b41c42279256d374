import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { formatAmount } from '../../domain/money.ts';
import {
  basisPointsOf,
  dayEnd,
  dayStart,
  priceBody,
  wholeNumberOf,
} from '../../pages/dashboard/routes/catalog-forms.ts';
import { centsOf } from '../../pages/dashboard/routes/forms.ts';

/** What the dashboard's catalog forms send the API: reais as cents, percentages as basis points, days as moments. */

describe('centsOf: reais as the merchant types them, in integer cents', () => {
  it.each([
    ['99,90', 9990],
    ['99.90', 9990],
    ['99', 9900],
    ['0,05', 5],
    ['0,5', 50],
    ['1.234,56', 123456],
    ['1 234,56', 123456],
    ['R$ 99,90', 9990],
    ['R$99,90', 9990],
    ['  12,30  ', 1230],
    ['1.000.000', 100000000],
  ])('%p is %p cents', (text, cents) => {
    expect(centsOf(text)).toBe(cents);
  });

  it.each(['', '   ', 'abc', '12,345', '1,2,3', '-5', '99,9x', '1.23.4', 'R$', '9 9', '5e3', undefined])(
    '%p is not an amount',
    (text) => {
      expect(centsOf(text)).toBeUndefined();
    },
  );

  it('reads back every amount as the pages write it in Portuguese', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 99_999_999_999 }), (cents) => {
        expect(centsOf(formatAmount(cents, 'brl', 'pt-BR'))).toBe(cents);
      }),
    );
  });
});

describe('basisPointsOf: a percentage in basis points', () => {
  it.each([
    ['10', 1000],
    ['12,5', 1250],
    ['12.5 %', 1250],
    ['0,01', 1],
    ['100%', 10000],
  ])('%p is %p', (text, bp) => {
    expect(basisPointsOf(text)).toBe(bp);
  });
  it.each(['', 'ten', '1,234', '-3', '%'])('%p is not a percentage', (text) => {
    expect(basisPointsOf(text)).toBeUndefined();
  });
});

describe('wholeNumberOf', () => {
  it('is undefined when blank, the number when whole, null otherwise', () => {
    expect(wholeNumberOf('  ')).toBeUndefined();
    expect(wholeNumberOf(' 3 ')).toBe(3);
    expect(wholeNumberOf('2.5')).toBeNull();
    expect(wholeNumberOf('x')).toBeNull();
  });
});

describe('days in Brasília', () => {
  it('starts at midnight and ends at the last millisecond, UTC−3', () => {
    expect(dayStart('2026-03-01')).toBe('2026-03-01T03:00:00.000Z');
    expect(dayEnd('2026-03-01')).toBe('2026-03-02T02:59:59.999Z');
    expect(dayStart('')).toBeUndefined();
    expect(dayEnd('01/03/2026')).toBeUndefined();
  });
});

describe('priceBody', () => {
  it('sends a recurring price with its interval, a one-time price without one', () => {
    expect(priceBody({ amount: '99,90', type: 'recurring', interval: 'month', interval_count: '3' }, 'en')).toEqual({
      price: { currency: 'brl', unit_amount: 9990, type: 'recurring', interval: 'month', interval_count: 3 },
    });
    expect(priceBody({ amount: '10', type: 'one_time', interval: 'month', interval_count: '1' }, 'en')).toEqual({
      price: { currency: 'brl', unit_amount: 1000, type: 'one_time' },
    });
  });

  it('leaves a blank amount to the API, and names an amount that is not reais', () => {
    expect(priceBody({ amount: '', type: 'one_time' }, 'en')).toEqual({
      price: { currency: 'brl', unit_amount: undefined, type: 'one_time' },
    });
    expect(priceBody({ amount: 'abc' }, 'en')).toEqual({
      problem: { field: 'amount', message: 'Amount: “abc” is not an amount in reais, like 99,90.' },
    });
    expect(priceBody({ amount: '5', type: 'recurring', interval: 'week', interval_count: 'two' }, 'en')).toMatchObject({
      problem: { field: 'interval_count' },
    });
  });

  it('names the field and what to type in the page’s language', () => {
    expect(priceBody({ amount: 'abc' }, 'pt-BR')).toEqual({
      problem: { field: 'amount', message: 'Valor: “abc” não é um valor em reais, como 99,90.' },
    });
    expect(priceBody({ amount: '5', type: 'recurring', interval_count: 'dois' }, 'pt-BR')).toEqual({
      problem: { field: 'interval_count', message: 'A cada: “dois” não é um número inteiro.' },
    });
  });
});
