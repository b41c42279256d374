/**
 * The gateway seller of an organization and back: shared by the seller-config route (which answers
 * the id) and the direct transactions route (which reads it).
 */

/**
 * The seller of an organization at the gateway. The simulator has no seller onboarding, so the id is
 * derived from the organization: `sim_seller_<organization id without dashes>`.
 */
export function sellerIdOf(organizationId: string): string {
  return `sim_seller_${organizationId.replaceAll('-', '')}`;
}

/** The organization a seller id names, or null when it is not one of ours. */
export function organizationOfSeller(sellerId: string): string | null {
  const match = /^sim_seller_([0-9a-f]{8})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{12})$/.exec(sellerId);
  return match ? match.slice(1).join('-') : null;
}
