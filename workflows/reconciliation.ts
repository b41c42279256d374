import { ParentClosePolicy, proxyActivities, startChild, workflowInfo } from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { gatewayRefundsWorkflowId } from '../contracts/refund.ts';
import type {
  ReconciliationActivities,
  ReconciliationInput,
  ReconciliationOutcome,
  ReconciliationReportSummary,
} from '../contracts/reconciliation.ts';
import { reconcile, repairOf } from '../domain/reconciliation.ts';
import { asSystem } from './actor-interceptors.ts';
import { gatewayRefundsWorkflow } from './gateway-refunds.ts';

const DAY_MS = 86_400_000;

const { readGatewayLedger } = proxyActivities<ReconciliationActivities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '1 minute',
  // Mercado Pago builds its release report in minutes: "not ready" is retried, backing off to 10 minutes.
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes' },
});

const { readOurBooks, recordReconciliation } = proxyActivities<ReconciliationActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '2 seconds', maximumInterval: '1 minute' },
});

/** The UTC day before `now`, as YYYY-MM-DD. */
const dayBefore = (now: number) => new Date(now - DAY_MS).toISOString().slice(0, 10);

/**
 * A day of our books against the gateway's ledger (decision 0073): the ledger read once, our books
 * per organization, each organization's report written with its `reconciliation.completed` event.
 * A refund the gateway made that our books lack repairs itself: the gateway-refunds workflow its
 * missed notice would have started is started (decision 0068), and records it. Run daily by the
 * Schedule `daily-reconciliation` (yesterday, every organization) and on demand (one organization).
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
      const result = reconcile(ours, theirs);
      const reportKey = `${workflowInfo().workflowId}:${workflowInfo().runId}:${organizationId}`;
      const summary = await recordReconciliation({ organizationId, day, reportKey, result });
      let repairsStarted = 0;
      for (const line of result.lines) {
        if (repairOf(line) !== 'gateway_refunds') continue;
        await startRefundRepair(line.gatewayId!, -line.theirs);
        repairsStarted += 1;
      }
      reports.push({ ...summary, repairsStarted });
    }
    return { day, reports };
  });
}

/** The gateway-refunds workflow a missed notice would have started; one already under way is left to run. */
async function startRefundRepair(gatewayTransactionId: string, gatewayRefunded: number): Promise<void> {
  try {
    await startChild(gatewayRefundsWorkflow, {
      workflowId: gatewayRefundsWorkflowId(gatewayTransactionId, gatewayRefunded),
      args: [gatewayTransactionId],
      parentClosePolicy: ParentClosePolicy.ABANDON,
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}
