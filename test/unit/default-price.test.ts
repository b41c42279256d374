import { describe, expect, it } from '@jest/globals';
import {
  defaultPriceChangeRefusal,
  defaultPriceIndexValid,
  newDefaultPriceRefusal,
} from '../../domain/default-price.ts';

const prices = [
  { id: 'a', active: true },
  { id: 'b', active: true },
  { id: 'old', active: false },
];

describe("a product's default price", () => {
  it('is one of the prices it is created with', () => {
    expect(defaultPriceIndexValid(0, 2)).toBe(true);
    expect(defaultPriceIndexValid(1, 2)).toBe(true);
    expect(defaultPriceIndexValid(2, 2)).toBe(false);
    expect(defaultPriceIndexValid(-1, 2)).toBe(false);
  });

  it('is an active price when created as the default', () => {
    expect(newDefaultPriceRefusal(true)).toBeNull();
    expect(newDefaultPriceRefusal(false)?.code).toBe('invalid_default_price');
  });

  it('moves only to an active price of the product that this change does not archive', () => {
    const change = { current: 'a', archiving: [] as string[], prices };
    expect(defaultPriceChangeRefusal({ ...change, requested: 'b' })).toBeNull();
    for (const requested of ['old', 'elsewhere']) {
      expect(defaultPriceChangeRefusal({ ...change, requested })).toEqual({
        code: 'invalid_default_price',
        message: 'default_price_id must be an active price of this product',
        detail: `default_price_id: ${requested}`,
      });
    }
    expect(defaultPriceChangeRefusal({ ...change, requested: 'b', archiving: ['b'] })?.code).toBe(
      'invalid_default_price',
    );
    // Archiving the old default while naming another is one change.
    expect(defaultPriceChangeRefusal({ ...change, requested: 'b', archiving: ['a'] })).toBeNull();
  });

  it('is not archived while it is the default', () => {
    const change = { requested: undefined, current: 'a', prices };
    expect(defaultPriceChangeRefusal({ ...change, archiving: ['a'] })?.code).toBe('default_price_archived');
    expect(defaultPriceChangeRefusal({ ...change, archiving: ['b'] })).toBeNull();
    expect(defaultPriceChangeRefusal({ ...change, current: null, archiving: ['a'] })).toBeNull();
  });
});
