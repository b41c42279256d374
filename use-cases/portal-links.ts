/**
 * The customer portal's mount point and sign-in link: the REST route that opens a portal session hands the
 * link out, and the portal's pages are served under it, so both take it from here.
 */
export const PORTAL = '/portal';

/** The link a merchant sends its customer: the token is traded for a cookie on the first request. */
export const portalSignInUrl = (publicBaseUrl: string, token: string) =>
  `${publicBaseUrl}${PORTAL}?token=${encodeURIComponent(token)}`;
