import { ApplicationFailure, condition, setHandler } from '@temporalio/workflow';
import { mandateApprovedSignal, NOT_PIX_AUTOMATICO, revokeMandateUpdate } from '../contracts/subscription.ts';
import { SUBSCRIPTION_ENDED, SUBSCRIPTION_ENDED_MESSAGE } from '../domain/subscriptions.ts';
import { records } from './subscription-activity-proxies.ts';
import type { SubscriptionRun } from './subscription-run.ts';

/**
 * The customer's revocation of its Pix Automático mandate (the portal, decision 0096): cancelled at the
 * gateway by the receiver, one step at a time with the period's charges, so a charge is never sent
 * through a mandate being cancelled. The Pix Automático half then finds the mandate ended and refuses
 * the next period (mandate_not_active).
 */
export function listenToMandate(run: SubscriptionRun): void {
  // A mandate the merchant asked the payer for was approved (workflows/mandate.ts): a manual subscription
  // adopts it between its periods (workflows/subscription-mandate-switch.ts).
  setHandler(mandateApprovedSignal, async () => {
    await condition(() => run.ready);
    if (run.state.billing === 'manual' && !run.ended()) run.state.mandateApproved = true;
  });
  setHandler(
    revokeMandateUpdate,
    async () => {
      run.flags.changing++;
      try {
        await condition(() => run.ready);
        refuseUnlessPixAutomatico(run);
        await run.oneAtATime(() => records.cancelMandate(run.subscriptionId));
        run.flags.woken = true;
        return { revoked: true as const };
      } finally {
        run.flags.changing--;
      }
    },
    { validator: () => refuseUnlessPixAutomatico(run) },
  );
}

function refuseUnlessPixAutomatico(run: SubscriptionRun): void {
  if (!run.ready) return;
  if (run.ended()) throw ApplicationFailure.nonRetryable(SUBSCRIPTION_ENDED_MESSAGE, SUBSCRIPTION_ENDED);
  if (run.state.billing !== 'pix_automatico') {
    throw ApplicationFailure.nonRetryable('The subscription is not billed by Pix Automático', NOT_PIX_AUTOMATICO);
  }
}
