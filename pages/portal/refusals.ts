import type { ApiError } from '../../use-cases/errors.ts';
import type { Messages } from './messages.ts';

/**
 * Every code a subscription change from the portal's pages can be refused with, below 500
 * (api/portal-subscription-changes.ts, api/portal-mandates.ts, api/subscription-mandate-requests.ts and
 * the workflow's refusals, api/subscription-updates.ts): the customer reads it in the page's language,
 * never the API's own message or detail.
 */
export const PORTAL_CHANGE_CODES: readonly string[] = [
  'customer_updates_disabled',
  'plan_change_refused',
  'payment_declined',
  'card_refused',
  'conflict',
  'not_found',
  'mandate_ended',
  'no_mandate',
  // The activation of Pix Automático (api/subscription-mandate-requests.ts, domain/mandate-requests.ts).
  'subscription_not_eligible',
  'mandate_exists',
  'pix_automatico_unavailable',
  'pix_automatico_not_allowed',
  'customer_name_required',
  'customer_tax_id_required',
  'gateway_refused',
  'invalid_request',
];

/** A refused change in the customer's words. */
export const refusalText = (t: Messages, err: ApiError): string => t.refusals[err.code] ?? t.refusalFallback;
