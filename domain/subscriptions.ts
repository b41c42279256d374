import { discountAmount, type DiscountRule } from './discounts.ts';
import { addInterval, type PeriodInterval } from './periods.ts';

/**
 * A subscription's rules, shared by its workflow, its activities and the API: the lifecycle as a
 * state machine, period boundaries, the charge keys, dunning and discounts at renewal. No clock here:
 * every instant is an argument.
 */

/**
 * Who bills a subscription's renewals: the gateway's own recurrence (`gateway`), this engine charging the
 * kept card or opening renewal checkouts (`manual`), or this engine through the buyer's Pix Automático
 * mandate (`pix_automatico`, decision 0096).
 */
export const RECURRENCE_BILLINGS = ['gateway', 'manual', 'pix_automatico'] as const;
export type RecurrenceBilling = (typeof RECURRENCE_BILLINGS)[number];

export const SUBSCRIPTION_STATUSES = ['incomplete', 'trialing', 'active', 'past_due', 'unpaid', 'canceled'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

/** One workflow per subscription for its whole life (continued as new once per period). */
export const subscriptionWorkflowId = (subscriptionId: string) => `subscription:${subscriptionId}`;

/**
 * The gateway key of one charge of a period. A period may be charged more than once (dunning
 * retries), so the key also names the try; both numbers are durable state of the subscription
 * (stored, and carried across continue-as-new), never a per-run counter: a retried or replayed
 * activity reuses the key, and the gateway answers with what it did the first time.
 */
export const renewalChargeKey = (subscriptionId: string, period: number, tryNumber: number) =>
  `subscription:${subscriptionId}:period:${period}:try:${tryNumber}`;

/** The charge of a subscription's n-th plan change (its prorated difference, charged now). */
export const priceChangeKey = (subscriptionId: string, n: number) => `subscription:${subscriptionId}:price-change:${n}`;

/** A gateway-billed period's settling of the subscription's balance (a charge owed, or a credit given back). */
export const balanceSettlementKey = (subscriptionId: string, period: number) =>
  `subscription:${subscriptionId}:period:${period}:balance`;

/**
 * The keys of one card charge of a subscription (a renewal try, a plan change, a balance owed): the
 * charge's own key, and beside it those of capturing its pre-authorization and of voiding it when the
 * capture is refused (as the checkout's capture and void keys sit beside its charge's).
 */
export const subscriptionChargeKeys = (chargeKey: string) => ({
  charge: chargeKey,
  capture: `${chargeKey}:capture`,
  void: `${chargeKey}:void`,
});

/** Cancels a gateway-billed subscription's recurrence at the gateway, once however often it is asked. */
export const gatewayCancelKey = (subscriptionId: string) => `subscription:${subscriptionId}:gateway-cancel`;

/** A sandbox gateway's recurrence run for a period's try, driven by the subscription's test clock. */
export const sandboxCycleKey = (subscriptionId: string, period: number, tryNumber: number) =>
  `subscription:${subscriptionId}:period:${period}:try:${tryNumber}:sandbox-cycle`;

// ── Gateway-billed periods ──────────────────────────────────────────────────────────────────────

/**
 * The gateway's recurrence starts on the first period the checkout did not pay: period 1 after a
 * trial (period 0), else period 2. Its cycle c bills our period c + that.
 */
export const gatewayCycleOf = (period: number, hadTrial: boolean) => period - (hadTrial ? 1 : 2);

/** How long after a period's end the gateway's word on its charge is waited for before asking it. */
export const GATEWAY_NOTICE_GRACE_MS = 24 * 3_600_000;
/** While the gateway has not billed a period past that grace, it is asked again this often. */
export const GATEWAY_RECHECK_MS = 24 * 3_600_000;

// ── Lifecycle ───────────────────────────────────────────────────────────────────────────────────

export type SubscriptionChange =
  /** A period was paid: the first charge after a trial, a renewal, or a dunning retry. */
  | 'charge_succeeded'
  /** A period's charge was refused. */
  | 'charge_failed'
  /** A period ended unpaid with no card to charge: its renewal checkout waits for the customer. */
  | 'payment_due'
  /** Every dunning retry was refused, or a hard decline made retrying pointless. */
  | 'dunning_exhausted'
  /** The period ended with cancel_at_period_end set. */
  | 'period_ended_canceled'
  /** Ended now by the merchant (or a customer where allowed). */
  | 'revoked'
  /** A paid period's payment was taken back by a lost dispute (decision 0072): owed again. */
  | 'charged_back';

export type DunningExhaustedStatus = 'unpaid' | 'canceled';

/** The events of a subscription's changes (DESIGN.md's names). */
export type SubscriptionEvent =
  | 'subscription.created'
  | 'subscription.active'
  | 'subscription.updated'
  | 'subscription.past_due'
  | 'subscription.canceled'
  | 'subscription.uncanceled'
  | 'subscription.revoked';

export interface Transition {
  status: SubscriptionStatus;
  /** The event this change emits. */
  event: SubscriptionEvent;
}

/**
 * The lifecycle (docs/decisions/0029-subscription-workflow.md): null when the change does not apply in this
 * status (a canceled subscription never changes again). `exhausted` is the organization's choice
 * of where dunning ends.
 */
export function transition(
  status: SubscriptionStatus,
  change: SubscriptionChange,
  exhausted: DunningExhaustedStatus = 'unpaid',
): Transition | null {
  if (status === 'canceled') return null;
  switch (change) {
    case 'charge_succeeded':
      // Renewing an active subscription is an update; anything else becomes active again.
      return status === 'active'
        ? { status: 'active', event: 'subscription.updated' }
        : { status: 'active', event: 'subscription.active' };
    case 'charge_failed':
      if (status === 'past_due') return { status: 'past_due', event: 'subscription.updated' };
      if (status === 'unpaid') return { status: 'unpaid', event: 'subscription.updated' };
      return { status: 'past_due', event: 'subscription.past_due' };
    case 'payment_due':
      return status === 'active' || status === 'trialing'
        ? { status: 'past_due', event: 'subscription.past_due' }
        : null;
    case 'dunning_exhausted':
      if (status !== 'past_due') return null;
      return exhausted === 'canceled'
        ? { status: 'canceled', event: 'subscription.canceled' }
        : { status: 'unpaid', event: 'subscription.updated' };
    case 'period_ended_canceled':
      return { status: 'canceled', event: 'subscription.canceled' };
    case 'revoked':
      return { status: 'canceled', event: 'subscription.revoked' };
    case 'charged_back':
      return status === 'active' || status === 'trialing'
        ? { status: 'past_due', event: 'subscription.past_due' }
        : null;
  }
}

/** A change asked of a subscription that has ended (canceled): refused. */
export const SUBSCRIPTION_ENDED = 'subscription_ended';
export const SUBSCRIPTION_ENDED_MESSAGE = 'The subscription has ended';

/**
 * A canceled subscription has ended for good: no change of action, price, metadata or clock applies
 * to it (the API answers 409). A revocation ends it at once, before its row says so.
 */
export const subscriptionHasEnded = (status: SubscriptionStatus, revoked = false): boolean =>
  revoked || status === 'canceled';
/** A plan change refused for its price or billing (answered 422), or because its charge was declined. */
export const PLAN_CHANGE_REFUSED = 'PlanChangeRefused';
export const PLAN_CHANGE_DECLINED = 'PlanChangeDeclined';
/**
 * A customer's new card refused (answered 422): the gateway does not know its token, or the gateway's
 * own recurrence bills the subscription (it keeps the card it charges itself).
 */
export const CARD_CHANGE_REFUSED = 'CardChangeRefused';

/** The changes a merchant makes through its workflow. */
export const SUBSCRIPTION_ACTIONS = ['cancel_at_period_end', 'uncancel', 'revoke'] as const;
export type SubscriptionAction = (typeof SUBSCRIPTION_ACTIONS)[number];

/** Statuses whose subscription still renews (and may be canceled, uncanceled or revoked). */
export const isLive = (status: SubscriptionStatus) => status !== 'canceled' && status !== 'incomplete';

// ── Periods ─────────────────────────────────────────────────────────────────────────────────────

export interface BillingTerms {
  interval: PeriodInterval;
  intervalCount: number;
}

/**
 * Period `n` (1, 2…) of a subscription whose first paid period starts at `anchor`. Every boundary is
 * counted from the anchor, never from the previous boundary, so a subscription started on 31 January
 * renews on 28 (or 29) February and again on 31 March, not on 28 March.
 */
export function periodBounds(anchor: Date, terms: BillingTerms, n: number): { start: Date; end: Date } {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`period number must be 1 or more, got ${n}`);
  return {
    start: addInterval(anchor, terms.interval, terms.intervalCount * (n - 1)),
    end: addInterval(anchor, terms.interval, terms.intervalCount * n),
  };
}

// ── Dunning ─────────────────────────────────────────────────────────────────────────────────────

/** Days after a renewal's first refusal on which it is tried again (each organization may set its own). */
export const DEFAULT_DUNNING_RETRY_DAYS: readonly number[] = [1, 3, 5, 7];

/** Refusals that no retry can cure: the card is gone or someone else's. Dunning ends at once. */
export const HARD_DECLINES: readonly string[] = ['expired_card', 'fraud_suspected', 'invalid_card'];
export const isHardDecline = (reason: string | null) => reason !== null && HARD_DECLINES.includes(reason);

export const DUNNING_EXHAUSTED_STATUSES = ['unpaid', 'canceled'] as const;
/** At most this many retries, each at most this many days after the first refusal. */
export const MAX_DUNNING_RETRIES = 8;
export const MAX_DUNNING_DAY = 60;

/** An organization's dunning, from its subscription_settings, defaults filled in. */
export function dunningSettings(settings: Record<string, unknown>): {
  retryDays: number[];
  exhaustedStatus: DunningExhaustedStatus;
} {
  const days = settings.dunning_retry_days;
  return {
    retryDays: Array.isArray(days) ? days.map(Number) : [...DEFAULT_DUNNING_RETRY_DAYS],
    exhaustedStatus: settings.dunning_exhausted_status === 'canceled' ? 'canceled' : 'unpaid',
  };
}

/**
 * How long after its period's end a subscription's renewal is tried, within a spread of `spreadSeconds`:
 * a fixed offset from its id (FNV-1a), so renewals due at one instant are spread evenly over the spread,
 * and each subscription is tried at the same offset every period, on every worker and every replay.
 */
export function renewalDelayMs(subscriptionId: string, spreadSeconds: number): number {
  if (spreadSeconds <= 0) return 0;
  let hash = 0x811c9dc5;
  for (let i = 0; i < subscriptionId.length; i++) hash = Math.imul(hash ^ subscriptionId.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % (spreadSeconds * 1000);
}

/** A schedule is days after the first refusal, each later than the one before. */
export const isDunningSchedule = (days: readonly number[]) => days.every((d, i) => i === 0 || d > days[i - 1]!);

/**
 * When try `tryNumber` (2, 3…; try 1 is the renewal itself) of a period is due, counted from the
 * first refusal; null when the schedule has no more tries.
 */
export function dunningRetryAt(firstFailure: Date, tryNumber: number, retryDays: readonly number[]): Date | null {
  const days = retryDays[tryNumber - 2];
  if (days === undefined) return null;
  return new Date(firstFailure.getTime() + days * 86_400_000);
}

/**
 * Until when a period left unpaid can still be paid (its renewal checkout stays open): the last
 * retry day of the schedule after the first refusal (or the period's end); null with no retry days.
 */
export const renewalDeadline = (firstFailure: Date, retryDays: readonly number[]) =>
  dunningRetryAt(firstFailure, deadlineTry(retryDays), retryDays);

/** The try that falls on the deadline: the last day of the schedule. */
export const deadlineTry = (retryDays: readonly number[]) => retryDays.length + 1;

/** A try past the schedule: dunning is over (the deadline passed, or a hard decline ended it). */
export const pastScheduleTry = (retryDays: readonly number[]) => retryDays.length + 2;

/** The try after a refused one: the next of the schedule, or past it after a hard decline. */
export function tryAfterRefusal(tryNumber: number, declineReason: string, retryDays: readonly number[]): number {
  return isHardDecline(declineReason) ? pastScheduleTry(retryDays) : tryNumber + 1;
}

/**
 * Until when a refused period's renewal checkout stays open: the renewal's deadline, or a day after
 * the refusal when the organization's schedule has no retry days.
 */
export function renewalCheckoutDeadline(refusedAt: Date, retryDays: readonly number[]): Date {
  return renewalDeadline(refusedAt, retryDays) ?? new Date(refusedAt.getTime() + 86_400_000);
}

/**
 * When a subscription's own workflow charges its saved card next: the period's end (spread by
 * `renewalDelayMs`, except on a test clock, which shows what falls due at the end itself), or the
 * next try of the dunning schedule; null past the schedule.
 */
export function nextRenewalChargeAt(s: {
  periodEnd: string;
  firstFailureAt: string | null;
  tryNumber: number;
  retryDays: readonly number[];
  renewalDelayMs: number;
  testClock: boolean;
}): number | null {
  if (!s.firstFailureAt) return Date.parse(s.periodEnd) + (s.testClock ? 0 : s.renewalDelayMs);
  return dunningRetryAt(new Date(s.firstFailureAt), s.tryNumber, s.retryDays)?.getTime() ?? null;
}

// ── Discounts at renewal ────────────────────────────────────────────────────────────────────────

export interface DiscountDuration {
  duration: 'once' | 'forever' | 'repeating';
  durationInMonths: number | null;
}

/**
 * Whether a subscription's discount still applies to a period starting at `periodStart`: `once`
 * only to the first paid period (which the checkout charged), `forever` always, `repeating` while
 * the period starts within its months of the first paid period's start (`anchor`).
 */
export function discountAppliesToPeriod(d: DiscountDuration, anchor: Date, periodStart: Date): boolean {
  if (d.duration === 'forever') return true;
  if (d.duration === 'once') return periodStart.getTime() <= anchor.getTime();
  const months = d.durationInMonths ?? 0;
  return periodStart.getTime() < addInterval(anchor, 'month', months).getTime();
}

/** What a period costs: the price before discounts, less the discount while it lasts. */
export function renewalAmount(
  subtotal: number,
  currency: string,
  discount: (DiscountDuration & { rule: DiscountRule }) | null,
  anchor: Date,
  periodStart: Date,
): number {
  if (!discount || !discountAppliesToPeriod(discount, anchor, periodStart)) return subtotal;
  return subtotal - discountAmount(subtotal, currency, discount.rule);
}
