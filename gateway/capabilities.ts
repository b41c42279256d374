/**
 * What the engine asks a gateway it holds: which optional capabilities its adapter implements. The
 * answer comes from the adapter itself (the methods it has), never from the configured vendor's
 * name, so a new adapter is described by what it implements and nothing else.
 */
import {
  GatewayError,
  type BoletoPayerField,
  type KeptCardBrowserTokens,
  type KeptCardLookup,
  type Chargebacks,
  type PaymentGateway,
  type PixAutomatico,
  type SandboxPixAutomatico,
  type RecurringBilling,
  type SandboxControls,
  type SandboxRecurringBilling,
} from './port.ts';

const RECURRING_BILLING_METHODS = [
  'createBuyer',
  'createRecurrencePlan',
  'createSubscription',
  'cancelSubscription',
  'changeSubscriptionPlan',
  'createInvoice',
  'cancelInvoice',
  'getInvoice',
  'listSubscriptionInvoices',
] as const satisfies readonly (keyof RecurringBilling)[];

const hasMethods = (gateway: object, names: readonly string[]) =>
  names.every((name) => typeof (gateway as Record<string, unknown>)[name] === 'function');

/** Whether the gateway bills recurrences itself (the simulator does; Mercado Pago's is not used). */
export function offersRecurringBilling<G extends PaymentGateway>(gateway: G): gateway is G & RecurringBilling {
  return hasMethods(gateway, RECURRING_BILLING_METHODS);
}

/** Whether the gateway's recurrence also bills when a subscription's test clock says so (a sandbox). */
export function offersSandboxRecurringBilling<G extends PaymentGateway>(
  gateway: G,
): gateway is G & SandboxRecurringBilling {
  return offersRecurringBilling(gateway) && hasMethods(gateway, ['billSandboxCycle']);
}

const SANDBOX_CONTROL_METHODS = [
  'pay',
  'expire',
  'endReview',
  'payInvoice',
  'failInvoice',
  'billSubscription',
  'billSandboxCycle',
  'openChargeback',
  'decideChargeback',
  'updateCard',
] as const satisfies readonly (keyof SandboxControls)[];

/**
 * Whether the gateway takes the sandbox's controls (pay or expire a pix or boleto, pay or fail an
 * invoice, bill a subscription now): the embedded simulator does, a gateway reached over HTTP does not.
 */
export function offersSandboxControls<G extends PaymentGateway>(gateway: G): gateway is G & SandboxControls {
  return hasMethods(gateway, SANDBOX_CONTROL_METHODS);
}

/** Whether the gateway's card updater replaces kept cards, which it then answers by id (decision 0071). */
export function offersKeptCardLookup<G extends PaymentGateway>(gateway: G): gateway is G & KeptCardLookup {
  return hasMethods(gateway, ['keptCard']);
}

/**
 * Whether a present buyer pays with a kept card by typing its security code again, the browser minting
 * the token from the card (Mercado Pago, decision 0078); the others charge the kept card as it is.
 */
export function offersKeptCardWithCode<G extends PaymentGateway>(
  gateway: G,
): gateway is G & KeptCardLookup & KeptCardBrowserTokens {
  return hasMethods(gateway, ['keptCardBrowserId', 'keptCard']);
}

/** Whether the gateway reports chargebacks that the engine can read (Mercado Pago, the simulator). */
export function offersChargebacks<G extends PaymentGateway>(gateway: G): gateway is G & Chargebacks {
  return hasMethods(gateway, ['getChargeback']);
}

/**
 * The gateway's recurring billing, for the activities that run a gateway-billed subscription. Such a
 * subscription exists only where the gateway offered recurring billing when it was sold (checkout
 * creation refuses `gateway_recurrence_unavailable` otherwise); a gateway swapped since for one
 * without it is a definite refusal, not something a retry mends.
 */
export function recurringBillingOf(gateway: PaymentGateway): RecurringBilling {
  if (offersRecurringBilling(gateway)) return gateway;
  throw new GatewayError(
    'This payment gateway bills no recurrence: recurring prices use recurrence_billing manual, whose ' +
      "renewals and extra charges charge the buyer's kept card with a new payment",
    false,
  );
}

/** Whether this gateway's boleto needs the payer's `field` (see PaymentDocuments.boletoPayerRequires). */
export const boletoRequires = (gateway: PaymentGateway, field: BoletoPayerField): boolean =>
  gateway.boletoPayerRequires.includes(field);

/** The calls of Pix Automático's port (PixAutomatico), which offersPixAutomatico checks for. */
export const PIX_AUTOMATICO_METHODS = [
  'createMandate',
  'getMandate',
  'cancelMandate',
  'createMandateCharge',
  'getMandateCharge',
  'retryMandateCharge',
  'cancelMandateCharge',
  'refundMandateCharge',
] as const satisfies readonly (keyof PixAutomatico)[];

/** Whether the gateway offers Pix Automático: mandates and their cycles' charges (the simulator, Efí). */
export function offersPixAutomatico<G extends PaymentGateway>(gateway: G): gateway is G & PixAutomatico {
  return hasMethods(gateway, PIX_AUTOMATICO_METHODS);
}

/** Whether the gateway plays the sandbox's payer and bank for Pix Automático (the embedded simulator). */
export function offersSandboxPixAutomatico<G extends PaymentGateway>(
  gateway: G,
): gateway is G & PixAutomatico & SandboxPixAutomatico {
  return (
    offersPixAutomatico(gateway) &&
    hasMethods(gateway, ['authorizeMandate', 'settleMandateCharges', 'revokeMandate', 'setPayerMaximum'])
  );
}

/**
 * Whether the gateway takes card payments (the simulator, Mercado Pago): Efí's adapter has none
 * (decision 0097), and a card sent to it is refused before any call.
 */
export function offersCardPayments(gateway: object): boolean {
  return hasMethods(gateway, ['chargeCard', 'tokenizeCard', 'keepBrowserCard']);
}
