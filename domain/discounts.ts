/**
 * Discount rules: how much a discount takes off a subtotal, and whether it applies to a purchase.
 * Pure: the caller passes the clock (`now`) and the discount as stored (a deleted discount is never
 * handed in: loaders leave it out).
 */

export interface DiscountRule {
  type: 'percentage' | 'fixed';
  /** Percentage in hundredths of a percent: 1 = 0.01 %, 10000 = 100 %. Set for percentage discounts. */
  basisPoints: number | null;
  /** Minor units. Set for fixed discounts. */
  amount: number | null;
  /** Lower-case ISO 4217, like prices. Set for fixed discounts. */
  currency: string | null;
  startsAt: Date | null;
  endsAt: Date | null;
  maxRedemptions: number | null;
  redemptionsCount: number;
  /** Empty: every product of the organization is eligible. */
  productIds: readonly string[];
}

export type DiscountInapplicability =
  'not_started' | 'ended' | 'exhausted' | 'product_not_eligible' | 'currency_mismatch';

const BASIS_POINTS_PER_WHOLE = 10_000n;

/** Prices carry lower-case currencies and checkouts upper-case ones; both name the same money. */
function sameCurrency(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

/**
 * The amount (minor units) the discount takes off `subtotal`. Always an integer between 0 and
 * `subtotal`.
 * - percentage: subtotal × basisPoints / 10000, rounded half up to the cent (e.g. 10 % of 1005 is 101):
 *   the half cent goes to the buyer, as a shop rounding a displayed percentage would. Computed in
 *   BigInt so large subtotals never lose precision.
 * - fixed: the amount, capped at the subtotal; a fixed discount in another currency takes nothing off
 *   (it does not apply; `discountApplicability` says why).
 */
export function discountAmount(subtotal: number, currency: string, rule: DiscountRule): number {
  if (!Number.isSafeInteger(subtotal) || subtotal <= 0) return 0;
  if (rule.type === 'percentage') {
    const bp = rule.basisPoints ?? 0;
    if (!Number.isInteger(bp) || bp <= 0) return 0;
    if (bp >= 10_000) return subtotal;
    const cents = (BigInt(subtotal) * BigInt(bp) * 2n + BASIS_POINTS_PER_WHOLE) / (2n * BASIS_POINTS_PER_WHOLE);
    return Math.min(subtotal, Number(cents));
  }
  if (rule.currency === null || !sameCurrency(rule.currency, currency)) return 0;
  const amount = rule.amount ?? 0;
  if (!Number.isSafeInteger(amount) || amount <= 0) return 0;
  return Math.min(amount, subtotal);
}

/**
 * `max_redemptions` caps the checkouts that take a discount (none: no cap). The redemption itself
 * counts under the same rule in one conditional UPDATE (db/catalog/discount-redemptions.ts), so racing buyers
 * never exceed it.
 */
export const hasRedemptionsLeft = (d: { maxRedemptions: number | null; redemptionsCount: number }): boolean =>
  d.maxRedemptions === null || d.redemptionsCount < d.maxRedemptions;

/** A cap may be lowered to the redemptions already made, never below them (a 422). */
export function maxRedemptionsRefusal(
  maxRedemptions: number | null | undefined,
  redemptionsCount: number,
): { code: 'max_redemptions_below_redemptions'; message: string; detail: string } | null {
  if (maxRedemptions == null || maxRedemptions >= redemptionsCount) return null;
  return {
    code: 'max_redemptions_below_redemptions',
    message: 'max_redemptions cannot be lower than redemptions_count',
    detail: `The discount was already redeemed ${redemptionsCount} times`,
  };
}

/**
 * Whether the discount may be used for this product, currency and moment. The checks run in a fixed
 * order (time window, redemptions, product, currency) so a buyer gets one stable reason.
 * `startsAt` is inclusive and `endsAt` exclusive: a discount ending at midnight is over at midnight.
 */
export function discountApplicability(
  rule: DiscountRule,
  ctx: { productId: string; currency: string; now: Date },
): { ok: true } | { ok: false; reason: DiscountInapplicability } {
  const now = ctx.now.getTime();
  if (rule.startsAt !== null && now < rule.startsAt.getTime()) return { ok: false, reason: 'not_started' };
  if (rule.endsAt !== null && now >= rule.endsAt.getTime()) return { ok: false, reason: 'ended' };
  if (!hasRedemptionsLeft(rule)) return { ok: false, reason: 'exhausted' };
  if (rule.productIds.length > 0 && !rule.productIds.includes(ctx.productId)) {
    return { ok: false, reason: 'product_not_eligible' };
  }
  if (rule.type === 'fixed' && (rule.currency === null || !sameCurrency(rule.currency, ctx.currency))) {
    return { ok: false, reason: 'currency_mismatch' };
  }
  return { ok: true };
}

/** A stored discount as a rule (amounts come back from PostgreSQL's bigint as numbers or strings). */
export function discountRule(d: {
  type: 'percentage' | 'fixed';
  basisPoints?: number | null;
  amount?: number | string | null;
  currency?: string | null;
  startsAt?: Date | null;
  endsAt?: Date | null;
  maxRedemptions?: number | null;
  redemptionsCount: number;
  productIds?: readonly string[] | null;
}): DiscountRule {
  return {
    type: d.type,
    basisPoints: d.basisPoints ?? null,
    amount: d.amount == null ? null : Number(d.amount),
    currency: d.currency ?? null,
    startsAt: d.startsAt ? new Date(d.startsAt) : null,
    endsAt: d.endsAt ? new Date(d.endsAt) : null,
    maxRedemptions: d.maxRedemptions ?? null,
    redemptionsCount: d.redemptionsCount,
    productIds: [...(d.productIds ?? [])],
  };
}
