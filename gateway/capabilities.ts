/**
 * What the engine asks a gateway it holds: which optional capabilities its adapter implements. The
 * answer comes from the adapter itself (the methods it has), never from the configured vendor's
 * name, so a new adapter is described by what it implements and nothing else.
 */
import {
  GatewayError,
  type BoletoPayerField,
  type CardPayments,
  type CardVault,
  type KeptCardBrowserTokens,
  type KeptCardLookup,
  type MandateRequestField,
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

/** Whether this gateway's journey 1 request needs `field` (see PixAutomatico.mandateRequestRequires). */
export const mandateRequestRequires = (gateway: PaymentGateway, field: MandateRequestField): boolean =>
  offersPixAutomatico(gateway) && (gateway.mandateRequestRequires ?? []).includes(field);

/** Whether the gateway plays the sandbox's payer and bank for Pix Automático (the embedded simulator). */
export function offersSandboxPixAutomatico<G extends PaymentGateway>(
  gateway: G,
): gateway is G & PixAutomatico & SandboxPixAutomatico {
  return (
    offersPixAutomatico(gateway) &&
    hasMethods(gateway, ['authorizeMandate', 'settleMandateCharges', 'revokeMandate', 'setPayerMaximum'])
  );
}

const CARD_METHODS = [
  'chargeCard',
  'capture',
  'tokenizeCard',
  'keepBrowserCard',
] as const satisfies readonly (keyof (CardPayments & CardVault))[];

/**
 * Whether the gateway takes card payments and keeps cards (the simulator, Mercado Pago): Efí's adapter
 * has neither (decision 0097), and a card sent to it is refused before any call.
 */
export function offersCardPayments<G extends PaymentGateway>(gateway: G): gateway is G & CardPayments & CardVault {
  return hasMethods(gateway, CARD_METHODS);
}

/**
 * The gateway's card payments and vault, for the activities and routes that charge or keep a card. A
 * card reaches them only where the gateway takes cards (the API refuses one with 422
 * payment_method_not_allowed otherwise, domain/card-data.ts); a subscription sold with a card on a
 * gateway swapped since for one without cards is a definite refusal, not something a retry mends.
 */
export function cardPaymentsOf(gateway: PaymentGateway): CardPayments & CardVault {
  if (offersCardPayments(gateway)) return gateway;
  throw new GatewayError(
    'This payment gateway takes no cards (its card payments need its own browser script and keep no card for a ' +
      'later charge): sell by pix, boleto or Pix Automático, or configure a gateway that takes cards',
    false,
  );
}
