import { defineSearchAttributeKey } from '@temporalio/common';
import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  condition,
  defineQuery,
  defineSignal,
  defineUpdate,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';

/** Workflow id of a checkout: one run per checkout, started when the checkout is created. */
export const checkoutWorkflowId = (checkoutId: string) => `checkout:${checkoutId}`;

export interface CheckoutWorkflowInput {
  checkoutId: string;
  organizationId: string;
}

export type CheckoutStatus = 'open' | 'confirmed' | 'succeeded' | 'failed' | 'expired';
export type ConfirmPaymentMethod = 'credit_card' | 'pix' | 'boleto';

/** A gateway card token: what the API got from tokenizing the buyer's card. Never the card itself. */
export interface ConfirmCardToken {
  id: string;
  brand: string;
  first4: string;
  last4: string;
}

export interface ConfirmBuyer {
  email: string | null;
  name: string | null;
  taxId: string | null;
}

export interface ConfirmCheckoutInput {
  paymentMethod: ConfirmPaymentMethod;
  /** Present for credit_card. */
  card: ConfirmCardToken | null;
  installments: number;
  buyer: ConfirmBuyer;
}

export interface ConfirmCheckoutResult {
  /** succeeded: paid; pending: pix/boleto issued, waiting for payment; declined: open again. */
  outcome: 'succeeded' | 'pending' | 'declined';
  status: CheckoutStatus;
  declineReason: string | null;
}

export interface PaymentUpdate {
  transactionId: string;
  status: string;
}

export interface CheckoutState {
  status: CheckoutStatus;
  attempts: number;
  /**
   * The charge slot whose gateway call never got an answer (retries exhausted). The next confirmation
   * reuses it, and so its idempotency key: if the gateway did take the money, it returns that charge.
   */
  unanswered: number | null;
  confirming: boolean;
  declineReason: string | null;
  pendingTransactionId: string | null;
  customerId: string | null;
  subscriptionId: string | null;
}

/** Rejection codes of the confirmation validator; the API answers them with 409. */
export const CHECKOUT_NOT_OPEN = 'checkout_not_open';
export const CONFIRMATION_IN_PROGRESS = 'confirmation_in_progress';

export const confirmCheckoutUpdate = defineUpdate<ConfirmCheckoutResult, [ConfirmCheckoutInput]>('confirmCheckout');
export const paymentUpdatedSignal = defineSignal<[PaymentUpdate]>('paymentUpdated');
export const checkoutStateQuery = defineQuery<CheckoutState>('checkoutState');

const CustomerIdKey = defineSearchAttributeKey('CustomerId', 'KEYWORD');
const SubscriptionIdKey = defineSearchAttributeKey('SubscriptionId', 'KEYWORD');

/** Database steps: retried until they succeed (they are idempotent). */
const db = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/**
 * Gateway steps that run while the buyer waits on the confirmation: a few quick retries of
 * retryable gateway errors (timeouts, 5xx), never of a definite refusal. The idempotency key is the
 * same on every retry, so a retried charge can never charge twice.
 */
const gateway = proxyActivities<Activities>({
  startToCloseTimeout: '20 seconds',
  retry: {
    initialInterval: '500 milliseconds',
    backoffCoefficient: 2,
    maximumInterval: '5 seconds',
    maximumAttempts: 5,
    nonRetryableErrorTypes: ['GatewayRefusal'],
  },
});

/** Grace after a pix/boleto deadline before we ask the gateway, so its clock has passed it too. */
const DEADLINE_SLACK_MS = 2_000;

/**
 * A checkout's whole life: open until confirmed or expired; a confirmation (Workflow Update)
 * charges the card or issues the pix/boleto; a pending pix/boleto waits for the gateway's callback
 * (signal) or its deadline; a paid checkout records customer, transaction, sale and subscription.
 */
export async function checkoutWorkflow(input: CheckoutWorkflowInput): Promise<{ status: CheckoutStatus }> {
  const { checkoutId } = input;
  const state: CheckoutState = {
    status: 'open',
    attempts: 0,
    unanswered: null,
    confirming: false,
    declineReason: null,
    pendingTransactionId: null,
    customerId: null,
    subscriptionId: null,
  };
  // Handlers are registered before the first await: an update may arrive in the first activation.
  let loaded = false;
  let pending: { transactionId: string; kind: 'pix' | 'boleto'; payBy: number } | null = null;
  let paymentNotice: PaymentUpdate | null = null;

  async function complete(gatewayTransactionId: string, cardTokenId: string | null): Promise<void> {
    const done = await db.completeCheckout({ checkoutId, gatewayTransactionId, cardTokenId });
    state.status = 'succeeded';
    state.customerId = done.customerId;
    state.subscriptionId = done.subscriptionId;
    upsertSearchAttributes([
      { key: CustomerIdKey, value: done.customerId },
      ...(done.subscriptionId ? [{ key: SubscriptionIdKey, value: done.subscriptionId }] : []),
    ]);
  }

  async function confirm(request: ConfirmCheckoutInput): Promise<ConfirmCheckoutResult> {
    const attempt = state.unanswered ?? ++state.attempts;
    state.unanswered = null;
    state.status = 'confirmed';
    if (request.paymentMethod === 'credit_card') {
      if (!request.card) throw ApplicationFailure.nonRetryable('A card token is required', 'InvalidConfirmation');
      let charged;
      try {
        charged = await gateway.chargeCard({
          checkoutId,
          attempt,
          cardTokenId: request.card.id,
          installments: request.installments,
          buyer: request.buyer,
        });
      } catch (err) {
        // The gateway kept failing (or refused outright): the buyer may try again.
        if (!isGatewayRefusal(err)) state.unanswered = attempt;
        await db.reopenCheckout(checkoutId, 'processing_error');
        return declined('processing_error');
      }
      if (charged.outcome === 'declined') {
        state.status = 'open';
        state.declineReason = charged.declineReason;
        return { outcome: 'declined', status: 'open', declineReason: charged.declineReason };
      }
      await complete(charged.gatewayTransactionId, request.card.id);
      return { outcome: 'succeeded', status: 'succeeded', declineReason: null };
    }
    let issued;
    try {
      issued = await gateway.issuePendingPayment({
        checkoutId,
        attempt,
        kind: request.paymentMethod,
        buyer: request.buyer,
      });
    } catch (err) {
      if (!isGatewayRefusal(err)) state.unanswered = attempt;
      await db.reopenCheckout(checkoutId, 'processing_error');
      return declined('processing_error');
    }
    pending = {
      transactionId: issued.gatewayTransactionId,
      kind: request.paymentMethod,
      payBy: Date.parse(issued.payBy),
    };
    state.pendingTransactionId = issued.gatewayTransactionId;
    state.declineReason = null;
    return { outcome: 'pending', status: 'confirmed', declineReason: null };
  }

  function declined(reason: string): ConfirmCheckoutResult {
    state.status = 'open';
    state.declineReason = reason;
    return { outcome: 'declined', status: 'open', declineReason: reason };
  }

  /** Waits for the pix/boleto to be paid or to pass its deadline; the gateway is the source of truth. */
  async function settlePendingPayment(p: { transactionId: string; kind: 'pix' | 'boleto'; payBy: number }) {
    const notified = await condition(
      () => paymentNotice !== null,
      Math.max(p.payBy + DEADLINE_SLACK_MS - Date.now(), 1),
    );
    paymentNotice = null;
    const payment = await db.syncPayment(p.transactionId);
    if (payment.status === 'succeeded') return complete(p.transactionId, null);
    if (payment.status === 'pending' && notified) return; // an early or repeated notice: keep waiting
    const settled = payment.status === 'pending' ? await db.cancelPendingPayment(checkoutId, p.transactionId) : payment;
    if (settled.status === 'succeeded') return complete(p.transactionId, null);
    const reason = p.kind === 'pix' ? 'expired' : 'overdue';
    await db.failCheckout(checkoutId, reason);
    state.status = 'failed';
    state.declineReason = reason;
    state.pendingTransactionId = null;
    pending = null;
  }

  setHandler(checkoutStateQuery, () => ({ ...state }));
  setHandler(paymentUpdatedSignal, (notice) => {
    if (pending && notice.transactionId === pending.transactionId) paymentNotice = notice;
  });
  setHandler(
    confirmCheckoutUpdate,
    async (request) => {
      // Set before the first await: a second confirmation in the same activation is already rejected.
      state.confirming = true;
      try {
        await condition(() => loaded);
        if (state.status !== 'open') {
          throw ApplicationFailure.nonRetryable(`Checkout is ${state.status}`, CHECKOUT_NOT_OPEN);
        }
        return await confirm(request);
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
        if (loaded && state.status !== 'open') {
          throw ApplicationFailure.nonRetryable(`Checkout is ${state.status}`, CHECKOUT_NOT_OPEN);
        }
        if (request.paymentMethod === 'credit_card' && !request.card) {
          throw ApplicationFailure.nonRetryable('A card token is required', 'invalid_confirmation');
        }
      },
    },
  );

  const checkout = await db.loadCheckout(checkoutId);
  if (!checkout) throw ApplicationFailure.nonRetryable(`Checkout ${checkoutId} not found`, 'CheckoutNotFound');
  state.status = checkout.status;
  state.declineReason = checkout.declineReason;
  loaded = true;
  const expiresAt = Date.parse(checkout.expiresAt);

  for (;;) {
    if (state.status === 'open') {
      const woke = await condition(
        () => state.confirming || state.status !== 'open',
        Math.max(expiresAt - Date.now(), 1),
      );
      if (!woke) {
        await db.expireCheckout(checkoutId);
        state.status = 'expired';
        break;
      }
      await condition(() => !state.confirming);
    } else if (state.status === 'confirmed' && pending) {
      await settlePendingPayment(pending);
    } else if (state.status === 'confirmed') {
      await condition(() => !state.confirming);
      if (state.status === 'confirmed' && !pending) break;
    } else {
      break;
    }
  }
  await condition(allHandlersFinished);
  return { status: state.status };
}

/** A definite refusal by the gateway (it took nothing), as opposed to a call that never got an answer. */
function isGatewayRefusal(err: unknown): boolean {
  return (
    err instanceof ActivityFailure && err.cause instanceof ApplicationFailure && err.cause.type === 'GatewayRefusal'
  );
}
