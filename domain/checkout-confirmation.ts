import { maxInstallments } from './checkout-pricing.ts';
import type { ConfirmPaymentMethod } from './checkout.ts';
import { pixAutomaticoOptInRefusal, type PixAutomaticoOptIn } from './checkout-eligibility.ts';

/**
 * The spec's rules of a confirmation (confirm-sdk, transactions/direct), in one function,
 * confirmationRefusal (decision 0062): the confirmation's activity applies it to the checkout as it is
 * under its row lock, with its gateway's needs; the API applies the same function to the request and the
 * checkout as read, only so that a refusal comes before the card is tokenized (a gateway call). The
 * workflow's Update validator applies none of it (it knows neither the price nor the buyer).
 */
export interface ConfirmationRefusal {
  /**
   * 400 for the request itself (a card with pix, no card for credit_card, installments past the price's:
   * the spec's 400); 422 for what the checkout lacks, that the buyer has not given yet, or a value sent
   * that is not valid (decision 0007): the same from the API's early answer and from the activity.
   */
  status: 400 | 422;
  /** The answer's stable code. */
  code: string;
  message: string;
  detail?: string;
}

/** The request's own fault: a 400. */
const requestRefusal = (message: string, detail?: string): ConfirmationRefusal => ({
  status: 400,
  code: 'invalid_request',
  message,
  ...(detail === undefined ? {} : { detail }),
});

/** A 422: a buyer field the checkout (or its customer) does not have yet, or one not valid as sent. */
const stateRefusal = (code: string, message: string, detail?: string): ConfirmationRefusal => ({
  status: 422,
  code,
  message,
  ...(detail === undefined ? {} : { detail }),
});

/** The codes of the 422 refusals, for the operations' documented responses. */
export const CONFIRMATION_REFUSAL_CODES = {
  customer_email_required: 'the checkout has no customer and no customer_email was sent',
  customer_name_required: "a boleto needs the buyer's name and none is known",
  customer_tax_id_required: "a boleto needs the buyer's tax id and none is known",
  customer_billing_address_required:
    'the checkout requires a billing address, or the gateway prints it on a boleto, and none is known',
  invalid_tax_id: 'customer_tax_id is no valid CPF or CNPJ',
  boleto_payer_incomplete: "the gateway's boleto needs a first and last name, or an address's postal code and state",
  payment_method_not_allowed: 'a Pix Automático checkout (recurrence_billing pix_automatico) is paid with pix only',
  pix_automatico_unavailable: 'pix_automatico was sent and the gateway offers no Pix Automático',
  pix_automatico_not_allowed:
    'pix_automatico was sent for a price that is not weekly to yearly, a checkout with a trial, or a renewal or upgrade',
} as const;

export interface ConfirmationRequest {
  paymentMethod: ConfirmPaymentMethod;
  /** A card (or its token) came with the request. */
  hasCard: boolean;
  installments: number;
  /** The buyer chose to pay with the mandate's QR code (pix_automatico: true, decision 0096's opt-in). */
  pixAutomatico?: boolean;
}

/** What the checkout's price allows; unknown (null) where only the request is at hand. */
export type ConfirmationPrice = { type: 'one_time' | 'recurring'; interval?: string | null } | null;

/** A card only for credit_card, and no more installments than the price allows. */
export function paymentRefusal(request: ConfirmationRequest, price: ConfirmationPrice): ConfirmationRefusal | null {
  if (request.pixAutomatico && request.paymentMethod !== 'pix') {
    return requestRefusal('pix_automatico is only accepted when payment_method is pix');
  }
  if (request.paymentMethod !== 'credit_card') {
    return request.hasCard
      ? requestRefusal('card and card_token are only accepted when payment_method is credit_card')
      : null;
  }
  if (!request.hasCard) return requestRefusal('card or card_token is required when payment_method is credit_card');
  const max = price ? maxInstallments(price) : null;
  if (max !== null && request.installments > max) {
    // The spec names 400 for it (a monthly price's installments).
    return requestRefusal(
      'Too many installments',
      `This price accepts at most ${max} installment${max === 1 ? '' : 's'}`,
    );
  }
  return null;
}

/** What is known of the buyer: from the request, the checkout or its customer. */
export interface ConfirmationBuyer {
  hasEmail: boolean;
  hasName: boolean;
  hasTaxId: boolean;
  /** The checkout requires a billing address (require_billing_address) and none is known. */
  lacksRequiredAddress?: boolean;
  /** A billing address is known (sent, or on the checkout). */
  hasAddress?: boolean;
  /** The gateway prints the buyer's address on a boleto, so it needs one, postal code and state included (Mercado Pago). */
  boletoNeedsAddress?: boolean;
  /** The gateway's boleto names the payer by first and last name (Mercado Pago). */
  boletoNeedsFullName?: boolean;
  /** The name known has a first and a last name (see hasFirstAndLastName). */
  hasFullName?: boolean;
  /** What the known address lacks of a full one (see addressGaps); empty or absent: nothing. */
  addressLacks?: readonly AddressPart[];
}

/** The parts of a billing address a country may go without (and so may be missing), but a boleto may not. */
export type AddressPart = 'postal_code' | 'state';

/** Whether a name splits into a first and a last name, as Mercado Pago's payer carries it. */
export const hasFirstAndLastName = (name: string | null | undefined): boolean =>
  (name ?? '').trim().split(/\s+/).length >= 2;

/** What an address lacks of a full one: its postal code, its state. */
export function addressGaps(address: { postal_code?: string | null; state?: string | null } | null): AddressPart[] {
  if (!address) return [];
  return (['postal_code', 'state'] as const).filter((part) => !address[part]?.trim());
}

/** The boleto's own needs where the gateway has them: a first and a last name, a full address. */
function boletoRefusal(buyer: ConfirmationBuyer): ConfirmationRefusal | null {
  if (buyer.boletoNeedsFullName && !buyer.hasFullName) {
    return stateRefusal(
      'boleto_payer_incomplete',
      'customer_name needs a first and a last name for boleto',
      "The gateway prints the payer's first and last name on the boleto",
    );
  }
  if (!buyer.boletoNeedsAddress) return null;
  if (!buyer.hasAddress) {
    return stateRefusal(
      'customer_billing_address_required',
      'customer_billing_address is required for boleto',
      "The gateway prints the buyer's address on the boleto",
    );
  }
  const lacks = buyer.addressLacks ?? [];
  if (lacks.length === 0) return null;
  return stateRefusal(
    'boleto_payer_incomplete',
    `customer_billing_address needs ${lacks.join(' and ')} for boleto`,
    "The gateway prints the buyer's full address on the boleto, postal code and state included",
  );
}

/**
 * Every payment needs the buyer's e-mail (the receipt, the customer); a boleto their name and tax id, and
 * their address where the gateway prints it.
 */
export function buyerRefusal(
  paymentMethod: ConfirmPaymentMethod,
  buyer: ConfirmationBuyer,
): ConfirmationRefusal | null {
  if (!buyer.hasEmail) {
    const detail = 'The checkout has no customer yet: send customer_email';
    return stateRefusal('customer_email_required', 'customer_email is required', detail);
  }
  if (buyer.lacksRequiredAddress) {
    const detail = 'This checkout requires a billing address';
    return stateRefusal('customer_billing_address_required', 'customer_billing_address is required', detail);
  }
  if (paymentMethod === 'boleto') {
    if (!buyer.hasName) return stateRefusal('customer_name_required', 'customer_name is required for boleto');
    if (!buyer.hasTaxId) return stateRefusal('customer_tax_id_required', 'customer_tax_id is required for boleto');
    return boletoRefusal(buyer);
  }
  return null;
}

/** What a confirmation is judged on: the request, the checkout's price and what is known of the buyer. */
export interface ConfirmationCase {
  request: ConfirmationRequest;
  /** The checkout bills its subscription by Pix Automático (decision 0096): pix, and a debtor with name and tax id. */
  pixAutomatico?: boolean;
  /** What the buyer's choice of Pix Automático (request.pixAutomatico) is judged on; unknown: refused. */
  optIn?: PixAutomaticoOptIn;
  price: NonNullable<ConfirmationPrice>;
  buyer: {
    hasEmail: boolean;
    hasName: boolean;
    hasTaxId: boolean;
    /** A customer_tax_id came with the request and is no valid CPF or CNPJ. */
    sentInvalidTaxId?: boolean;
    hasAddress: boolean;
    /** The checkout requires a billing address (require_billing_address). */
    addressRequired: boolean;
    /** The name has a first and a last name; what the address lacks of a full one (both for a boleto). */
    hasFullName?: boolean;
    addressLacks?: readonly AddressPart[];
  };
}

/** What the confirming gateway needs of a confirmation (its capabilities, gateway/capabilities.ts). */
export interface ConfirmationGateway {
  /** Its boleto prints the buyer's full address (Mercado Pago). */
  boletoNeedsAddress: boolean;
  /** Its boleto names the payer by first and last name (Mercado Pago). */
  boletoNeedsFullName?: boolean;
  /** It offers Pix Automático (offersPixAutomatico). */
  pixAutomatico?: boolean;
}

/** The first refusal of a confirmation, in the order the API has always answered them; null to go on. */
export function confirmationRefusal(c: ConfirmationCase, gateway: ConfirmationGateway): ConfirmationRefusal | null {
  const payment = paymentRefusal(c.request, c.price);
  if (payment) return payment;
  if (c.buyer.sentInvalidTaxId) {
    return stateRefusal('invalid_tax_id', 'Invalid customer_tax_id', 'customer_tax_id must be a valid CPF or CNPJ');
  }
  const optedIn = c.request.pixAutomatico === true && !c.pixAutomatico;
  if (optedIn) {
    const refused = c.optIn
      ? pixAutomaticoOptInRefusal(c.optIn, { pixAutomatico: gateway.pixAutomatico ?? false })
      : { code: 'pix_automatico_not_allowed', message: 'This checkout has no Pix Automático', detail: undefined };
    if (refused) return stateRefusal(refused.code, refused.message, refused.detail);
  }
  if (c.pixAutomatico || optedIn) {
    const mandate = mandateDebtorRefusal(c.request.paymentMethod, c.buyer);
    if (mandate) return mandate;
  }
  return buyerRefusal(c.request.paymentMethod, {
    ...c.buyer,
    lacksRequiredAddress: c.buyer.addressRequired && !c.buyer.hasAddress,
    boletoNeedsAddress: gateway.boletoNeedsAddress,
    boletoNeedsFullName: gateway.boletoNeedsFullName,
  });
}

/**
 * A Pix Automático checkout's first payment is the QR code that also authorizes the mandate (journey 3):
 * pix only, and the mandate's debtor needs a name and a CPF or CNPJ (the BCB's vinculo.devedor).
 */
function mandateDebtorRefusal(
  paymentMethod: ConfirmPaymentMethod,
  buyer: { hasName: boolean; hasTaxId: boolean },
): ConfirmationRefusal | null {
  if (paymentMethod !== 'pix') {
    // Only a checkout created as Pix Automático: a buyer's opt-in with another method is the request's 400.
    const detail = 'This checkout bills its subscription by Pix Automático: send payment_method pix';
    return stateRefusal('payment_method_not_allowed', 'payment_method must be pix', detail);
  }
  if (!buyer.hasName) return stateRefusal('customer_name_required', 'customer_name is required for Pix Automático');
  if (!buyer.hasTaxId) {
    return stateRefusal('customer_tax_id_required', 'customer_tax_id is required for Pix Automático');
  }
  return null;
}
