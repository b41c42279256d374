import type { BookRow, LedgerRow, ReconciliationResult } from '../domain/reconciliation.ts';

/**
 * What the reconciliation workflow (workflows/reconciliation.ts) is started with, answers and calls
 * (decision 0073): a day of our books against the gateway's ledger, one report per organization.
 */

/**
 * The job that reconciles yesterday every day: its Schedule, registered by the worker, is
 * `scheduleIdFor(RECONCILIATION_JOB, queue)` (worker/schedules.ts).
 */
export const RECONCILIATION_JOB = 'daily-reconciliation';

export interface ReconciliationInput {
  /** YYYY-MM-DD (UTC); absent: the day before the run's (the daily Schedule's). */
  day?: string;
  /** One organization (on demand); absent: every organization with money in the day's books or ledger. */
  organizationId?: string;
}

export interface ReconciliationReportSummary {
  id: string;
  organizationId: string;
  day: string;
  status: 'balanced' | 'drift';
  unmatchedTotal: number;
  unmatchedCount: number;
  /** `missing_in_books` lines whose notice's path was started again (self-repair). */
  repairsStarted: number;
}

export interface ReconciliationOutcome {
  day: string;
  reports: ReconciliationReportSummary[];
  /**
   * A run of every organization: the ledger's rows (payouts aside) no organization's report took, the
   * account's own (a fee or tax of no payment) or a payment of no organization's, with their signed
   * cents (decision 0077). Null for a run of one organization, which leaves the others' rows out.
   */
  unattributed: { rows: number; amount: number } | null;
}

export type ReconciliationWorkflow = (input: ReconciliationInput) => Promise<ReconciliationOutcome>;

/** An on-demand run's workflow id; the Schedule's runs are named by Temporal from the schedule's id. */
export const reconciliationWorkflowId = (organizationId: string, day: string, requestId: string) =>
  `reconciliation:${organizationId}:${day}:${requestId}`;

export interface DayWindow {
  from: string;
  to: string;
}

export interface OrganizationBooks {
  organizationId: string;
  ours: BookRow[];
  /** The ledger's rows that are this organization's (by payment id or reference). */
  theirs: LedgerRow[];
}

export interface RecordReconciliationInput {
  organizationId: string;
  day: string;
  reportKey: string;
  result: ReconciliationResult;
}

/**
 * The owner's workflow a notice of a payment our books lack would signal while it runs (decision
 * 0077, as api/transaction-notices.ts signals it): a checkout's or an extra-charge invoice's.
 */
export type WaitingOwner = { kind: 'checkout' | 'invoice'; workflowId: string };

/** The reconciliation's activities (activities/reconciliations.ts). */
export interface ReconciliationActivities {
  /** The gateway's ledger of the window; retried while the gateway prepares it. */
  readGatewayLedger(window: DayWindow): Promise<LedgerRow[]>;
  /** Our books of the window, per organization, with the ledger's rows each organization's payments own. */
  readOurBooks(input: {
    window: DayWindow;
    organizationId: string | null;
    ledger: LedgerRow[];
  }): Promise<OrganizationBooks[]>;
  /**
   * When the gateway releases each payment's money to the merchant's balance (id → ISO date; null where
   * it does not say, or does not know the payment): asked of the payments a day's ledger lacks.
   */
  releaseDatesOf(gatewayTransactionIds: string[]): Promise<Record<string, string | null>>;
  /** The report, its lines and its `reconciliation.completed` event, in one transaction; once per key. */
  recordReconciliation(input: RecordReconciliationInput): Promise<ReconciliationReportSummary>;
  /** Whose workflow waits on notices of the payment, found as a notice finds it; null: none that waits. */
  waitingOwnerOf(gatewayTransactionId: string): Promise<WaitingOwner | null>;
}
