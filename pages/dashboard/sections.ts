/** The dashboard's sections, in the menu's order: each a path under the organization (its label in messages.ts). */
export const SECTIONS = [
  'metrics',
  'products',
  'checkout-links',
  'discounts',
  'customers',
  'subscriptions',
  'mandates',
  'sales',
  'refunds',
  'invoices',
  'reconciliations',
  'webhooks',
  'events',
  'api-keys',
  'access-tokens',
  'members',
] as const;
export type Section = (typeof SECTIONS)[number];
