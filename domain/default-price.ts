/**
 * A product's default price (what a checkout of the product charges when no price is named) is always
 * one of its own active prices: chosen among the prices a product is created with, set to another
 * active price later, never archived while it is the default. A 422 otherwise.
 */
export interface DefaultPriceRefusal {
  code: 'invalid_default_price' | 'default_price_archived';
  message: string;
  detail: string;
}

/** On create: `default_price_index` names one of the prices sent (a 422 in the API, which says so). */
export const defaultPriceIndexValid = (index: number, prices: number) => index >= 0 && index < prices;

/** A price created as the product's default must be active. */
export function newDefaultPriceRefusal(active: boolean): DefaultPriceRefusal | null {
  if (active) return null;
  return {
    code: 'invalid_default_price',
    message: 'An inactive price cannot be the default price',
    detail: 'set_as_default requires active true',
  };
}

/**
 * On update: a `requested` default must be an active price of the product not archived in the same
 * change; without one, the current default may not be archived.
 */
export function defaultPriceChangeRefusal(change: {
  requested: string | undefined;
  current: string | null;
  archiving: readonly string[];
  prices: readonly { id: string; active: boolean }[];
}): DefaultPriceRefusal | null {
  const { requested, current, archiving } = change;
  if (requested !== undefined) {
    const price = change.prices.find((p) => p.id === requested);
    if (price?.active && !archiving.includes(price.id)) return null;
    return {
      code: 'invalid_default_price',
      message: 'default_price_id must be an active price of this product',
      detail: `default_price_id: ${requested}`,
    };
  }
  if (current && archiving.includes(current)) {
    return {
      code: 'default_price_archived',
      message: 'The default price cannot be archived',
      detail: 'Set default_price_id to another active price of this product in the same request',
    };
  }
  return null;
}
