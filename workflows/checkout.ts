import { ActivityFailure, allHandlersFinished, ApplicationFailure, condition, setHandler } from '@temporalio/workflow';
import {
  CHECKOUT_NOT_OPEN,
  CONFIRMATION_IN_PROGRESS,
  type CheckoutStatus,
  type ConfirmPaymentMethod,
} from '../domain/checkout.ts';
import { confirmationAllowed } from '../domain/checkout.ts';
import {
  checkoutStateQuery,
  confirmCheckoutUpdate,
  paymentUpdatedSignal,
  type CheckoutWorkflowInput,
} from '../contracts/checkout.ts';
import { records } from './checkout-activity-proxies.ts';
import { refundAbandonedPayments, undoLateArrivals } from './checkout-aftermath.ts';
import { lostPayment } from './checkout-resume.ts';
import { asSystem } from './actor-interceptors.ts';
import { CheckoutRun } from './checkout-run.ts';

/**
 * A checkout's whole life: open until confirmed or expired. A confirmation (Workflow Update) fixes
 * the amount, charges the card or issues the pix/boleto, and records the sale; a payment call whose
 * answer was lost is resolved by asking the gateway before anything else is accepted; a pending
 * pix/boleto, or a card the gateway is reviewing (decision 0070), waits for the gateway's callback
 * (signal) or its deadline. The steps are CheckoutRun's
 * (workflows/checkout-run.ts).
 */
export async function checkoutWorkflow(input: CheckoutWorkflowInput): Promise<{ status: CheckoutStatus }> {
  // Its own steps (expiry, a pending payment's outcome) are the system's; a confirmation, the buyer's.
  return asSystem(() => checkoutLife(input));
}

async function checkoutLife(input: CheckoutWorkflowInput): Promise<{ status: CheckoutStatus }> {
  const run = new CheckoutRun(input);
  const { state } = run;
  listen(run);

  const checkout = input.openUntil
    ? { status: 'open' as const, expiresAt: input.openUntil, declineReason: null }
    : await records.loadCheckout(input.checkoutId);
  if (!checkout) throw ApplicationFailure.nonRetryable(`Checkout ${input.checkoutId} not found`, 'CheckoutNotFound');
  state.status = checkout.status;
  state.declineReason = checkout.declineReason;
  run.loaded = true;
  const expiresAt = Date.parse(checkout.expiresAt);
  run.expiresAt = expiresAt;
  // Started again on a confirmed checkout (the sweep, after its run was lost): a pix or boleto it
  // issued is waited for as before, a payment call whose answer it lost is asked about.
  const lost = state.status === 'confirmed' && !input.openUntil;
  if (lost) await run.resume(await lostPayment(input.checkoutId));

  for (;;) {
    if (state.confirming) {
      await condition(() => !state.confirming);
    } else if (state.status === 'open') {
      const woke = await condition(
        () => state.confirming || state.status !== 'open',
        Math.max(expiresAt - Date.now(), 1),
      );
      if (woke) continue;
      // Expiring: from here the validator refuses confirmations (the status is no longer open).
      state.status = 'expired';
      const expired = await records.expireCheckout(input.checkoutId);
      if (!expired) await takeUpUnseenConfirmation(run);
    } else if (state.status === 'confirmed' && run.unresolved) {
      await run.resolveUnanswered();
    } else if (state.status === 'confirmed' && run.pending) {
      await run.settlePendingPayment();
    } else {
      break;
    }
  }
  await condition(allHandlersFinished);
  // Only a run where the buyer left a pix or boleto for a card has any.
  if (run.abandoned.length > 0) await refundAbandonedPayments(input.checkoutId, run.abandoned, run.notices);
  if (run.doubtful.length > 0) await undoLateArrivals(input.checkoutId, run.doubtful, run.recordedPaymentId);
  return { status: state.status };
}

/**
 * The expiry found the checkout no longer open: a confirmation this run never saw finish (its Update
 * lost with the workflow task that prepared it, and perhaps paid it) left it confirmed. The run takes
 * it up as the sweep's new run would take up a lost run's: asks the gateway by the call's key, then
 * records the sale or declines. Nothing left behind: the checkout ends as the database has it.
 */
async function takeUpUnseenConfirmation(run: CheckoutRun): Promise<void> {
  const left = await lostPayment(run.checkoutId);
  if (!left) return;
  run.state.status = 'confirmed';
  await run.resume(left);
}

/**
 * An open checkout takes any confirmation; one waiting on a pix or boleto takes a card instead, one
 * waiting on a card under review any other try (domain rule). Validators only ever widened this, and refused Updates leave no history, so recorded
 * runs replay as before.
 */
function allowed(run: CheckoutRun, request: { paymentMethod: ConfirmPaymentMethod }): boolean {
  const { state, pending } = run;
  return confirmationAllowed(
    {
      status: state.status,
      paymentMethod: pending?.kind ?? null,
      pendingPayment: pending !== null && !state.processing,
    },
    request.paymentMethod,
  );
}

/** The checkout's query, the gateway's notices (signal) and the buyer's confirmation (Update). */
function listen(run: CheckoutRun): void {
  const { state, notices } = run;
  setHandler(checkoutStateQuery, () => ({ ...state }));
  setHandler(paymentUpdatedSignal, (notice) => {
    if (!notices.includes(notice.transactionId)) notices.push(notice.transactionId);
    if (notices.length > 20) notices.shift();
  });
  setHandler(
    confirmCheckoutUpdate,
    async (request) => {
      // Set before the first await: a second confirmation in the same activation is already rejected.
      state.confirming = true;
      try {
        await condition(() => run.loaded);
        if (!allowed(run, request)) {
          throw ApplicationFailure.nonRetryable(`Checkout is ${state.status}`, CHECKOUT_NOT_OPEN);
        }
        return state.status === 'open' ? await run.confirm(request) : await run.switchPayment(request);
      } catch (err) {
        // A refusal of the confirmation itself (not open, a bad discount code) reaches the API as is.
        if (err instanceof ActivityFailure && err.cause instanceof ApplicationFailure) throw err.cause;
        throw err;
      } finally {
        state.confirming = false;
      }
    },
    {
      validator: (request) => {
        if (state.confirming) {
          throw ApplicationFailure.nonRetryable(
            'A confirmation of this checkout is in progress',
            CONFIRMATION_IN_PROGRESS,
          );
        }
        if (run.settling) {
          throw ApplicationFailure.nonRetryable('The pending payment is being settled', CONFIRMATION_IN_PROGRESS);
        }
        if (run.loaded && !allowed(run, request)) {
          throw ApplicationFailure.nonRetryable(`Checkout is ${state.status}`, CHECKOUT_NOT_OPEN);
        }
        // The confirmation's own refusals (a card, installments, the buyer) are the activity's, under the
        // checkout's lock (decision 0062): here only whether a confirmation may start now.
      },
    },
  );
}
