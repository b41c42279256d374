import { allHandlersFinished, condition } from '@temporalio/workflow';
import type { SubscriptionStatus } from '../domain/subscriptions.ts';
import type { SubscriptionWorkflowInput } from '../contracts/subscription.ts';
import { gatewayBilledPeriods, stopGatewayRecurrence } from './subscription-gateway.ts';
import { listen, salesRefusal, SUBSCRIPTION_HAS_ENDED } from './subscription-handlers.ts';
import { manualPeriods } from './subscription-manual.ts';
import { pixAutomaticoPeriods } from './subscription-pix-automatico.ts';
import { voidPendingInvoices } from './subscription-invoices.ts';
import { asSystem } from './actor-interceptors.ts';
import { SubscriptionRun } from './subscription-run.ts';
import { records } from './subscription-activity-proxies.ts';

/**
 * A subscription's whole life, one period per run: it waits for the period's end, renews (charging
 * the saved card, or the gateway's recurrence does), retries a refused renewal on the organization's
 * dunning schedule, and ends when canceled at period end or revoked. Merchant changes arrive as
 * Updates; a revocation stops every pending charge at once, and a charge that raced it is refunded.
 * It is its subscription's only writer: a paid renewal or upgrade checkout puts its sale to it (the
 * checkoutPaid Update), and it records the sale's moves between its own steps, one at a time, the
 * Update returning its verdict. The steps are SubscriptionRun's (workflows/subscription-run.ts) and
 * each half's.
 */
export async function subscriptionWorkflow(input: SubscriptionWorkflowInput): Promise<SubscriptionStatus> {
  // Its own steps (renewals, dunning, the end) are the system's; a merchant's or customer's change, theirs.
  return asSystem(() => subscriptionLife(input));
}

async function subscriptionLife(input: SubscriptionWorkflowInput): Promise<SubscriptionStatus> {
  const run = new SubscriptionRun(input);
  listen(run);
  await run.load(input.state !== undefined);

  // A sale put before the state was read: only a manual subscription's periods are paid by checkouts.
  if (run.state.billing !== 'manual') run.refuseSales(salesRefusal(run));
  if (run.state.billing === 'gateway') {
    await gatewayBilledPeriods(run);
    if (run.state.status === 'canceled') await stopGatewayRecurrence(run);
  } else if (run.state.billing === 'pix_automatico') {
    // Its first run adopts the mandate its checkout's pix authorized (journey 3).
    if (input.state === undefined) await records.adoptCheckoutMandate(input.subscriptionId);
    await pixAutomaticoPeriods(run);
    // Ended: the payer's bank takes no more charges of it (the merchant's mandate is cancelled).
    if (run.state.status === 'canceled') await records.cancelMandate(input.subscriptionId);
  } else {
    await manualPeriods(run);
    // Ended before adopting the mandate its payer approved (decision 0098): the payer's bank takes none of it.
    if (run.state.mandateApproved && run.state.status === 'canceled') await records.cancelMandate(input.subscriptionId);
  }
  await condition(() => run.flags.changing === 0);
  // Its extra charges would charge the kept card on their due dates: voided with it.
  if (run.state.billing === 'manual' && run.state.status === 'canceled') {
    await voidPendingInvoices(input.subscriptionId);
  }
  run.closed = true;
  run.refuseSales(SUBSCRIPTION_HAS_ENDED);
  await condition(allHandlersFinished);
  return run.state.status;
}
