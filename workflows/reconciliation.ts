import {
  ApplicationFailure,
  getExternalWorkflowHandle,
  log,
  ParentClosePolicy,
  proxyActivities,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { paymentUpdatedSignal } from '../contracts/checkout.ts';
import { invoiceNoticeSignal } from '../contracts/invoice.ts';
import { paymentNoticeWorkflowId } from '../contracts/payment-notice.ts';
import { gatewayRefundsWorkflowId } from '../contracts/refund.ts';
import type {
  ReconciliationActivities,
  ReconciliationInput,
  OrganizationBooks,
  ReconciliationOutcome,
  ReconciliationReportSummary,
} from '../contracts/reconciliation.ts';
import {
  markReleasedLater,
  reconcile,
  repairOf,
  unreleasedPayments,
  type BookRow,
  type LedgerRow,
  type ReconciliationLine,
} from '../domain/reconciliation.ts';
import { asSystem } from './actor-interceptors.ts';
import { gatewayRefundsWorkflow } from './gateway-refunds.ts';
import { paymentNoticeWorkflow } from './payment-notice.ts';

const DAY_MS = 86_400_000;

const { readGatewayLedger } = proxyActivities<ReconciliationActivities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '1 minute',
  // Mercado Pago builds its release report in minutes: "not ready" is retried, backing off to 10 minutes.
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes' },
});

// One look-up per payment the day's ledger lacks, heartbeating: a busy day's may take minutes.
const { releaseDatesOf } = proxyActivities<ReconciliationActivities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '5 seconds', maximumInterval: '5 minutes' },
});

const { readOurBooks, recordReconciliation, waitingOwnerOf } = proxyActivities<ReconciliationActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '2 seconds', maximumInterval: '1 minute' },
});

/** The UTC day before `now`, as YYYY-MM-DD. */
const dayBefore = (now: number) => new Date(now - DAY_MS).toISOString().slice(0, 10);

/**
 * A day of our books against the gateway's ledger (decision 0073): the ledger read once, our books
 * per organization, each organization's report written with its `reconciliation.completed` event.
 * Money the gateway moved that our books lack repairs itself as its missed notice would have (a
 * refund: gateway-refunds, decision 0068; a payment: its owner's running workflow signalled, else
 * payment-notice, decision 0071), and is recorded (decision 0077). Run daily by the Schedule
 * `daily-reconciliation` (yesterday, every organization) and on demand (one organization).
 */
export async function reconciliationWorkflow(input: ReconciliationInput): Promise<ReconciliationOutcome> {
  return asSystem(async () => {
    const day = input.day ?? dayBefore(Date.now());
    const from = new Date(`${day}T00:00:00.000Z`);
    const window = { from: from.toISOString(), to: new Date(from.getTime() + DAY_MS).toISOString() };
    const ledger = await readGatewayLedger(window);
    const books = await readOurBooks({ window, organizationId: input.organizationId ?? null, ledger });
    const reports: ReconciliationReportSummary[] = [];
    for (const { organizationId, ours, theirs } of books) {
      const result = reconcile(await withReleaseDates(ours, theirs, window.to), theirs);
      const reportKey = `${workflowInfo().workflowId}:${workflowInfo().runId}:${organizationId}`;
      const summary = await recordReconciliation({ organizationId, day, reportKey, result });
      let repairsStarted = 0;
      for (const line of result.lines) if (await startRepair(line)) repairsStarted += 1;
      reports.push({ ...summary, repairsStarted });
    }
    return { day, reports, unattributed: input.organizationId ? null : unattributedOf(ledger, books) };
  });
}

/**
 * Our payments of the day its ledger lacks, with the gateway's word on when it releases them: a later
 * day's release is timing, not a payment missing at the gateway (Mercado Pago's report is by release).
 */
async function withReleaseDates(ours: BookRow[], theirs: LedgerRow[], dayEnd: string): Promise<BookRow[]> {
  const unreleased = unreleasedPayments(ours, theirs);
  if (unreleased.length === 0) return ours;
  return markReleasedLater(ours, await releaseDatesOf(unreleased), dayEnd);
}

/**
 * What a line's missed notice would have done, as its notice route does it: a refund starts the
 * gateway-refunds workflow (one per payment and refunded total); a payment (`succeeded`: the ledger
 * released its money) signals its owner's workflow while it runs, else starts the payment-notice
 * workflow (one per payment and status). One already under way is left to run; a child is abandoned
 * on close.
 */
async function startRepair(line: ReconciliationLine): Promise<boolean> {
  const repair = repairOf(line);
  if (repair === null) return false;
  const gatewayId = line.gatewayId!;
  const options = { args: [gatewayId] as [string], parentClosePolicy: ParentClosePolicy.ABANDON };
  if (repair === 'payment_notice' && (await signalWaitingOwner(gatewayId))) return true;
  try {
    if (repair === 'gateway_refunds') {
      const workflowId = gatewayRefundsWorkflowId(gatewayId, -line.theirs);
      await startChild(gatewayRefundsWorkflow, { ...options, workflowId });
    } else {
      const workflowId = paymentNoticeWorkflowId(gatewayId, 'succeeded');
      await startChild(paymentNoticeWorkflow, { ...options, workflowId });
    }
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
  return true;
}

/** The payment's checkout or invoice hears of it while its workflow runs; false when none runs. */
async function signalWaitingOwner(gatewayId: string): Promise<boolean> {
  const owner = await waitingOwnerOf(gatewayId);
  if (!owner) return false;
  const handle = getExternalWorkflowHandle(owner.workflowId);
  try {
    if (owner.kind === 'checkout')
      await handle.signal(paymentUpdatedSignal, { transactionId: gatewayId, status: 'succeeded' });
    else await handle.signal(invoiceNoticeSignal, { status: 'succeeded' });
    return true;
  } catch (err) {
    // Temporal fails the signal (an ApplicationFailure) when the workflow is not running.
    if (!(err instanceof ApplicationFailure)) throw err;
    return false;
  }
}

/**
 * The ledger's rows no organization's report took (payouts aside, which no report compares): the
 * account's own fees and taxes, or payments of no organization's. Not lost silently: counted on the
 * run's outcome and logged for the operator (decision 0077).
 */
function unattributedOf(ledger: LedgerRow[], books: OrganizationBooks[]): { rows: number; amount: number } {
  const compared = ledger.filter((row) => row.kind !== 'payout');
  const taken = books.flatMap((b) => b.theirs).filter((row) => row.kind !== 'payout');
  const amount = (rows: LedgerRow[]) => rows.reduce((total, row) => total + row.amount, 0);
  const unattributed = { rows: compared.length - taken.length, amount: amount(compared) - amount(taken) };
  if (unattributed.rows > 0) log.warn('ledger rows of no organization', unattributed);
  return unattributed;
}
