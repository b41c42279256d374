/**
 * What the periodic sweep (workflows/sweep.ts) is called by and calls: its Schedule, input and counts,
 * and the activities it runs (SweepActivities).
 */

/**
 * The sweep's job name: its Schedule, registered by the worker at start, is
 * `scheduleIdFor(SWEEP_JOB, queue)` (worker/schedules.ts).
 */
export const SWEEP_JOB = 'billing-sweep';

/** What the sweep walks, in this order, each page by page. */
export const SWEEP_KINDS = ['subscriptions', 'invoices', 'checkouts'] as const;
export type SweepKind = (typeof SWEEP_KINDS)[number];
/** How many records of each kind a sweep looked at. */
export type SweepCounts = Record<SweepKind, number>;

export interface SweepInput {
  /** Where a run continued as new: the kind being walked and the last id seen. */
  kind?: SweepKind;
  after?: string | null;
  /** The counts so far (a number: a run continued before the sweep walked more than subscriptions). */
  checked?: Partial<SweepCounts> | number;
}

/**
 * The periodic sweep's steps (workflows/sweep.ts). Whatever still waits on the gateway must have a
 * running workflow, or nothing settles it: a subscription that is not canceled (its renewals), an
 * extra-charge invoice still pending (its deadline), a checkout still open or waiting for its pix or
 * boleto (its expiry). One recorded before it had a workflow, or whose run an operator terminated,
 * gets one started again. Starting is idempotent (a running run is kept), so a sweep that overlaps
 * the API starting the same workflow changes nothing.
 */
export interface SweepPage {
  /** How many records this page looked at. */
  checked: number;
  /** The last id of the page; null when there is nothing after it. */
  next: string | null;
}

export interface SweepPageInput {
  after: string | null;
  limit: number;
}

/** The activities the sweep runs, one per kind it walks (activities/sweeps.ts). */
export interface SweepActivities {
  ensureSubscriptionWorkflows(input: SweepPageInput): Promise<SweepPage>;
  ensureInvoiceWorkflows(input: SweepPageInput): Promise<SweepPage>;
  ensureCheckoutWorkflows(input: SweepPageInput): Promise<SweepPage>;
}
