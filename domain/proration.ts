/**
 * Proration of a price change inside a paid period (pure; time is an argument).
 *
 * Switching from a period price `from` to `to` at `at` owes the difference for the part of the
 * period that is left: (to − from) × left / length, in cents, rounded half away from zero. The
 * rounding is symmetric (switching back at the same instant owes exactly the opposite) and monotone
 * in the time left, so an upgrade followed by a downgrade never owes the customer more than they
 * paid: no sequence of changes creates money.
 */

/** How an organization settles a plan change (subscription_settings.proration_behavior). */
export const PRORATION_BEHAVIORS = ['prorate', 'invoice', 'none'] as const;
export type ProrationBehavior = (typeof PRORATION_BEHAVIORS)[number];

/** An organization that has not chosen settles a plan change at once, prorated (the spec's default). */
export const DEFAULT_PRORATION_BEHAVIOR: ProrationBehavior = 'prorate';

/**
 * The organization's `subscription_settings.proration_behavior`, or the default (the settings as
 * stored: an absent or unknown value is the default).
 */
export function prorationBehaviorOf(settings: Readonly<Record<string, unknown>> | null): ProrationBehavior {
  const stored = settings?.proration_behavior;
  return PRORATION_BEHAVIORS.find((b) => b === stored) ?? DEFAULT_PRORATION_BEHAVIOR;
}

export interface PeriodSpan {
  start: Date;
  end: Date;
}

/** Positive: the customer owes it; negative: a credit. Zero outside the period or for equal prices. */
export function prorationAmount(from: number, to: number, period: PeriodSpan, at: Date): number {
  for (const [name, v] of [
    ['from', from],
    ['to', to],
  ] as const) {
    if (!Number.isSafeInteger(v) || v < 0) throw new RangeError(`${name} must be a non-negative integer, got ${v}`);
  }
  const length = BigInt(period.end.getTime() - period.start.getTime());
  if (length <= 0n) throw new RangeError('the period must end after it starts');
  const left = BigInt(Math.min(Math.max(period.end.getTime() - at.getTime(), 0), Number(length)));
  const diff = BigInt(to - from);
  const magnitude = diff < 0n ? -diff : diff;
  // floor(|d| × left / length + 1/2), exactly, in integers.
  const rounded = (2n * magnitude * left + length) / (2n * length);
  return Number(diff < 0n ? -rounded : rounded);
}

/**
 * What a change settles now and what it leaves for the next renewal. `prorate`: an amount owed is
 * charged now, a credit waits for the next renewals; `invoice`: both wait for the next renewal;
 * `none`: nothing is prorated, the new price applies from the next period.
 */
export function settleProration(
  behavior: ProrationBehavior,
  prorated: number,
): { chargeNow: number; toBalance: number } {
  if (behavior === 'none') return { chargeNow: 0, toBalance: 0 };
  if (behavior === 'prorate' && prorated > 0) return { chargeNow: prorated, toBalance: 0 };
  return { chargeNow: 0, toBalance: prorated };
}

/**
 * What moving a subscription from the period price `from` to `to` at `at` settles: the workflow's
 * activity makes the change with it and the customer portal shows it before the customer confirms.
 * A trial has nothing paid to prorate (its first charge is the new price); an amount owed with no
 * saved card to charge waits for the next renewal.
 */
export function planChangeSettlement(change: {
  behavior: ProrationBehavior;
  trialing: boolean;
  from: number;
  to: number;
  period: PeriodSpan;
  at: Date;
  savedCard: boolean;
}): { prorated: number; chargeNow: number; toBalance: number } {
  const prorated = change.trialing ? 0 : prorationAmount(change.from, change.to, change.period, change.at);
  const { chargeNow, toBalance } = settleProration(change.behavior, prorated);
  if (chargeNow > 0 && !change.savedCard) return { prorated, chargeNow: 0, toBalance: chargeNow };
  return { prorated, chargeNow, toBalance };
}

/**
 * A renewal's charge with the subscription's balance (positive: owed from a change; negative: a
 * credit): never below zero, and what a credit does not cover is carried to the next renewal.
 */
export function applyBalance(periodAmount: number, balance: number): { charge: number; balanceAfter: number } {
  const due = periodAmount + balance;
  return due >= 0 ? { charge: due, balanceAfter: 0 } : { charge: 0, balanceAfter: due };
}

/** The terms of a price that a plan change compares. */
export interface PlanTerms {
  type: string;
  active: boolean;
  currency: string;
  interval: string | null;
  intervalCount: number | null;
}

/**
 * Why a subscription on `current` cannot move to `next`; null when it can. Periods keep their
 * anchored dates, so the new price must bill the same interval in the same currency.
 */
export function planChangeRefusal(current: PlanTerms, next: PlanTerms): string | null {
  if (next.type !== 'recurring') return 'The new price is not recurring';
  if (!next.active) return 'The new price is archived';
  if (next.currency !== current.currency) return 'The new price is in another currency';
  if (next.interval !== current.interval || (next.intervalCount ?? 1) !== (current.intervalCount ?? 1)) {
    return 'The new price bills another interval';
  }
  return null;
}

/**
 * A plan change beyond planChangeRefusal, the merchant's and the customer's alike: only to what a new
 * buyer could buy, so not a price of a product the merchant has archived (withdrawn from sale).
 */
export function archivedProductRefusal(next: { productArchived: boolean }): string | null {
  return next.productArchived ? "The new price's product is archived" : null;
}

/**
 * A customer's own plan change (the customer portal, its pages and API) beyond the merchant's rules:
 * only among the prices the merchant sells the subscription's product at. Moving to another product
 * stays the merchant's (its PATCH) or a new purchase's (an upgrade checkout), decision 0088.
 */
export function customerPlanRefusal(current: { productId: string }, next: { productId: string }): string | null {
  return next.productId === current.productId ? null : "The new price is of another product than the subscription's";
}
