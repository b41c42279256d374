/**
 * The hosted checkout page of one checkout: the pages serve it (pages/checkout/routes.ts) and the API's
 * checkout answers carry its absolute address (`url`), so both take the path from here.
 */
export const CHECKOUT_PAGE = '/checkout/c';

/** A checkout's own page, by its client secret (`cs_` and base64url characters: nothing to escape). */
export const checkoutPagePath = (clientSecret: string) => `${CHECKOUT_PAGE}/${clientSecret}`;

/** The page's absolute address on this deployment (PUBLIC_BASE_URL), where an integration sends the buyer. */
export const checkoutPageUrl = (publicBaseUrl: string, clientSecret: string) =>
  `${publicBaseUrl.replace(/\/+$/, '')}${checkoutPagePath(clientSecret)}`;
