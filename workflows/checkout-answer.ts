import type { ConfirmCheckoutResult, GatewayPaymentData } from '../domain/checkout.ts';
import { paidSubscriptionId, type CheckoutState } from '../contracts/checkout.ts';
import type { Attempt } from './checkout-activity-proxies.ts';

/**
 * The checkout a confirmation answers with (workflows/checkout-run.ts), from the run's own state: its
 * customer and subscription as the checkout's record shows them, the sale's once recorded (the sale
 * wrote them there), else those the checkout was opened with. Nothing is read again.
 */
export function confirmationView(
  checkoutId: string,
  state: CheckoutState,
  a: Attempt,
  paymentData: GatewayPaymentData | null,
): ConfirmCheckoutResult['checkout'] {
  return {
    id: checkoutId,
    status: state.status,
    payment_method: a.request.paymentMethod,
    amount: a.prepared.amount,
    currency: a.prepared.currency,
    gateway_payment_data: paymentData,
    decline_reason: state.declineReason,
    customer_id: state.customerId ?? a.prepared.customerId ?? null,
    subscription_id: state.subscriptionId ?? paidSubscriptionId(a.prepared),
  };
}
