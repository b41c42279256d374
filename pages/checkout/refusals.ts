import { DISCOUNT_REFUSAL_CODES } from '../../api/checkout-confirmation.ts';
import { CONFIRMATION_REFUSAL_CODES } from '../../domain/checkout-confirmation.ts';
import {
  CHECKOUT_NOT_OPEN,
  CONFIRMATION_IN_PROGRESS,
  NO_KEPT_CARD,
  SUBSCRIPTION_EXISTS,
} from '../../domain/checkout.ts';
import type { ApiError } from '../../use-cases/errors.ts';
import type { Messages } from './messages.ts';

/**
 * The buyer reads a refusal in the page's language, chosen by the API error's stable code, never the
 * error's own (English) message or detail: those are written for the merchant's developer.
 */

/**
 * Every code a confirmation from the hosted page can be refused with, below 500, taken from where each is
 * defined: the confirmation's rules (domain/checkout-confirmation.ts), a discount code's refusals, the
 * checkout's state, the card's checks (api/card-tokenization.ts), and the request's own 400.
 */
export const CONFIRMATION_PAGE_CODES: readonly string[] = [
  'invalid_request',
  ...Object.keys(CONFIRMATION_REFUSAL_CODES),
  ...DISCOUNT_REFUSAL_CODES,
  CHECKOUT_NOT_OPEN,
  CONFIRMATION_IN_PROGRESS,
  NO_KEPT_CARD,
  SUBSCRIPTION_EXISTS,
  'invalid_card',
  'card_data_refused',
];

/** The codes of a link that cannot open a checkout that the page words; any other gets linkFallback. */
export const LINK_PAGE_CODES: readonly string[] = [
  'product_archived',
  'price_inactive',
  'no_default_price',
  'checkout_link_archived',
];

/** A refused confirmation in the buyer's words. */
export const refusalText = (t: Messages, err: ApiError): string => t.refusals[err.code] ?? t.refusalFallback;

/** Why the link opens no checkout, in the buyer's words. */
export const linkRefusalText = (t: Messages, err: ApiError): string => t.linkRefusals[err.code] ?? t.linkFallback;
