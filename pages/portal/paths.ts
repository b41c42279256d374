import { PORTAL } from '../../use-cases/portal-links.ts';

export { PORTAL };

/** The portal's addresses, in one place: the routes, the pages' links and forms (the session's link: use-cases/portal-links.ts). */
export const portalPaths = {
  overview: PORTAL,
  subscription: (id: string) => `${PORTAL}/subscriptions/${id}`,
  cancel: (id: string) => `${PORTAL}/subscriptions/${id}/cancel`,
  uncancel: (id: string) => `${PORTAL}/subscriptions/${id}/uncancel`,
  plan: (id: string) => `${PORTAL}/subscriptions/${id}/plan`,
  card: (id: string) => `${PORTAL}/subscriptions/${id}/card`,
  revokeMandate: (id: string) => `${PORTAL}/subscriptions/${id}/mandate/revoke`,
  activateMandate: (id: string) => `${PORTAL}/subscriptions/${id}/mandate`,
  mandateStatus: (id: string) => `${PORTAL}/subscriptions/${id}/mandate/status`,
  billing: `${PORTAL}/billing`,
};
