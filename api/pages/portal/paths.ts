/** The portal's addresses, in one place: the routes, the pages' links and forms, and the session's link. */
export const PORTAL = '/portal';
export const portalPaths = {
  overview: PORTAL,
  subscription: (id: string) => `${PORTAL}/subscriptions/${id}`,
  cancel: (id: string) => `${PORTAL}/subscriptions/${id}/cancel`,
  uncancel: (id: string) => `${PORTAL}/subscriptions/${id}/uncancel`,
  plan: (id: string) => `${PORTAL}/subscriptions/${id}/plan`,
  billing: `${PORTAL}/billing`,
};

/** The link a merchant sends its customer: the token is traded for a cookie on the first request. */
export const portalSignInUrl = (publicBaseUrl: string, token: string) =>
  `${publicBaseUrl}${PORTAL}?token=${encodeURIComponent(token)}`;
