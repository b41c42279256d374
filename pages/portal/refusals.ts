import type { ApiError } from '../../use-cases/errors.ts';
import type { Messages } from './messages.ts';

/**
 * Every code a subscription change from the portal's pages can be refused with, below 500
 * (api/portal-subscription-changes.ts, api/portal-mandates.ts and the workflow's refusals, api/subscription-updates.ts): the
 * customer reads it in the page's language, never the API's own message or detail.
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
  'invalid_request',
];

/** A refused change in the customer's words. */
export const refusalText = (t: Messages, err: ApiError): string => t.refusals[err.code] ?? t.refusalFallback;
