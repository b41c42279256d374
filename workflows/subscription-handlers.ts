import { ApplicationFailure, condition, setHandler } from '@temporalio/workflow';
import {
  CARD_CHANGE_REFUSED,
  SUBSCRIPTION_ACTIONS,
  SUBSCRIPTION_ENDED,
  SUBSCRIPTION_ENDED_MESSAGE,
} from '../domain/subscriptions.ts';
import {
  advanceClockUpdate,
  changeMetadataUpdate,
  changePriceUpdate,
  changeSubscriptionUpdate,
  chargedBackSignal,
  checkoutPaidUpdate,
  gatewayInvoiceSignal,
  mandateNoticeSignal,
  INVALID_CLOCK,
  replaceCardUpdate,
  subscriptionStateQuery,
  type SubscriptionRecord,
} from '../contracts/subscription.ts';
import { payments, records } from './subscription-activity-proxies.ts';
import { listenToMandate } from './subscription-mandate-handlers.ts';
import type { SaleInTurn, SubscriptionRun } from './subscription-run.ts';

export const GATEWAY_BILLED = 'the gateway bills this subscription';
export const MANDATE_BILLED = "the subscription's Pix Automático mandate bills its periods";
export const SUBSCRIPTION_HAS_ENDED = 'the subscription has ended';

/**
 * What a subscription's workflow hears: its state query, the gateway's notice (signal), a paid
 * checkout's sale and the merchant's changes (Updates). Set before the run reads its state, so an
 * Update that comes with the start is not refused; each merchant's Update counts in `changing` (no
 * continue-as-new meanwhile) and runs its step one at a time with the renewals.
 */
export function listen(run: SubscriptionRun): void {
  const { flags } = run;
  setHandler(subscriptionStateQuery, () => ({ ...run.state }));
  setHandler(checkoutPaidUpdate, async (notice) => {
    // The gateway's recurrence pays a gateway-billed subscription's periods, the mandate a Pix
    // Automático one's (its charge may be on its way already): no checkout does.
    if (run.ready && run.state.billing !== 'manual') return { accepted: false, reason: salesRefusal(run) };
    if (run.closed) return { accepted: false, reason: SUBSCRIPTION_HAS_ENDED };
    const sale: SaleInTurn = { notice, verdict: null };
    run.sales.push(sale); // synchronously: a run never moves on with a sale it has not seen
    // Answered by the run's loop once recorded between its own steps (or refused when it ends).
    await condition(() => sale.verdict !== null);
    return sale.verdict!;
  });
  setHandler(gatewayInvoiceSignal, () => {
    flags.noticed = flags.woken = true;
  });
  // The gateway's word on the mandate or a period's charge through it: the Pix Automático half reads it.
  setHandler(mandateNoticeSignal, () => {
    flags.noticed = flags.woken = true;
  });
  listenToChanges(run);
  listenToCard(run);
  listenToChargebacks(run);
  listenToMetadata(run);
  listenToClock(run);
  listenToMandate(run);
}

/** Why a subscription not billed manually takes no checkout's sale (decision 0096 for Pix Automático). */
export function salesRefusal(run: SubscriptionRun): string {
  return run.state.billing === 'pix_automatico' ? MANDATE_BILLED : GATEWAY_BILLED;
}

/** An Update's validator: nothing changes a subscription that has ended (once its state is known). */
function refuseIfEnded(run: SubscriptionRun): void {
  if (run.ready && run.ended()) throw ApplicationFailure.nonRetryable(SUBSCRIPTION_ENDED_MESSAGE, SUBSCRIPTION_ENDED);
}

/**
 * Runs an Update's step once the state is known, one at a time with the run's other writing steps;
 * `atOnce` is what it changes before waiting its turn.
 */
async function changing(
  run: SubscriptionRun,
  step: () => Promise<SubscriptionRecord>,
  atOnce?: () => void,
): Promise<SubscriptionRecord> {
  run.flags.changing++;
  try {
    await condition(() => run.ready);
    atOnce?.();
    return await run.oneAtATime(step);
  } finally {
    run.flags.changing--;
  }
}

/** The merchant's changes: cancel at period end (or undo it), revoke, another price. */
function listenToChanges(run: SubscriptionRun): void {
  const { subscriptionId } = run;
  setHandler(
    changeSubscriptionUpdate,
    async (action) => {
      if (action === 'revoke') return revoking(run);
      const cancel = action === 'cancel_at_period_end';
      return changing(run, async () => {
        const record = await records.setCancelAtPeriodEnd({ subscriptionId, cancel, at: run.clock.nowIso() });
        run.state.cancelAtPeriodEnd = cancel;
        run.flags.woken = true;
        return record;
      });
    },
    {
      validator: (action) => {
        if (!SUBSCRIPTION_ACTIONS.includes(action)) {
          throw ApplicationFailure.nonRetryable(`Unknown action ${String(action)}`, 'InvalidAction');
        }
        refuseIfEnded(run);
      },
    },
  );
  setHandler(
    changePriceUpdate,
    // Never under a renewal's charge: one step at a time.
    ({ priceId }) => changing(run, () => payments.changePrice({ subscriptionId, priceId, at: run.clock.nowIso() })),
    {
      validator: (change) => {
        if (typeof change?.priceId !== 'string') {
          throw ApplicationFailure.nonRetryable('A price id is required', 'InvalidAction');
        }
        refuseIfEnded(run);
      },
    },
  );
}

/**
 * The customer's new card (the portal), one step at a time with the renewals: a renewal charges the
 * card kept before or after it, never a half-written one. The gateway's own recurrence keeps its card.
 */
function listenToCard(run: SubscriptionRun): void {
  const { subscriptionId } = run;
  setHandler(
    replaceCardUpdate,
    ({ browserToken }) =>
      changing(run, () => payments.replaceCard({ subscriptionId, browserToken, at: run.clock.nowIso() })),
    {
      validator: (change) => {
        if (typeof change?.browserToken !== 'string' || change.browserToken === '') {
          throw ApplicationFailure.nonRetryable('A card token is required', 'InvalidAction');
        }
        refuseIfEnded(run);
        if (run.ready && run.state.billing === 'gateway') {
          throw ApplicationFailure.nonRetryable(GATEWAY_BILLED, CARD_CHANGE_REFUSED);
        }
      },
    },
  );
}

/** Revoked at once: a renewal charge on its way is given back when it lands. */
function revoking(run: SubscriptionRun): Promise<SubscriptionRecord> {
  const revoke = async () => {
    const record = await records.changeSubscription({
      subscriptionId: run.subscriptionId,
      change: 'revoked',
      at: run.clock.nowIso(),
    });
    run.state.status = record.status;
    return record;
  };
  return changing(run, revoke, () => (run.revoked = true));
}

/**
 * A lost dispute took a payment back (decision 0072, the chargeback workflow's signal): past due
 * until a later charge pays (the next renewal), or ended now, as the merchant's setting chose.
 */
function listenToChargebacks(run: SubscriptionRun): void {
  setHandler(chargedBackSignal, async ({ action }) => {
    if (run.ready && run.ended()) return;
    if (action === 'cancel') {
      await revoking(run);
      return;
    }
    await changing(run, async () => {
      const record = await records.changeSubscription({
        subscriptionId: run.subscriptionId,
        change: 'charged_back',
        at: run.clock.nowIso(),
      });
      run.state.status = record.status;
      return record;
    });
  });
}

/** The merchant's metadata, replaced whole. */
function listenToMetadata(run: SubscriptionRun): void {
  const { subscriptionId } = run;
  setHandler(
    changeMetadataUpdate,
    ({ metadata }) =>
      changing(run, () => records.replaceSubscriptionMetadata({ subscriptionId, metadata, at: run.clock.nowIso() })),
    {
      validator: (change) => {
        if (typeof change?.metadata !== 'object' || change.metadata === null) {
          throw ApplicationFailure.nonRetryable('A metadata object is required', 'InvalidAction');
        }
        refuseIfEnded(run);
      },
    },
  );
}

/** Sandbox test clock: moves the subscription's time forward; what falls due by then happens in turn. */
function listenToClock(run: SubscriptionRun): void {
  const backwards = () =>
    ApplicationFailure.nonRetryable("A test clock only moves forward, past the subscription's now", INVALID_CLOCK);
  setHandler(
    advanceClockUpdate,
    async ({ to }) => {
      await condition(() => run.ready);
      if (!run.clock.canMoveTo(to)) throw backwards();
      run.flags.woken = true;
      return { clock: run.clock.moveTo(to) };
    },
    {
      validator: ({ to }) => {
        if (typeof to !== 'string' || Number.isNaN(Date.parse(to))) {
          throw ApplicationFailure.nonRetryable('The time is not a valid timestamp', INVALID_CLOCK);
        }
        if (run.ready && !run.clock.canMoveTo(to)) throw backwards();
        refuseIfEnded(run);
      },
    },
  );
}
