/**
 * The document's groups of operations (its `tags`), in the order the docs page shows them: the
 * resource groups of the interface specification (Core API, then the Customer Portal), then what the
 * service adds around them. Each route names its group in `schema.tags`; the document refuses a name
 * that is not listed here, or more than one (describeOperation).
 */
export const TAGS = [
  {
    name: 'checkouts',
    description: 'Checkout sessions: created by the merchant, read, changed, confirmed by the buyer.',
  },
  {
    name: 'checkouts (public)',
    description:
      "What the buyer's page reads without a credential: the checkout by its client secret, the seller's settings and a checkout link's page.",
  },
  { name: 'checkout-links', description: 'Shareable checkout links: each opening makes a checkout of its products.' },
  { name: 'products', description: 'Products and their prices (one-time and recurring).' },
  { name: 'customers', description: 'Customers, by id or by the merchant’s external id.' },
  {
    name: 'subscriptions',
    description:
      'Subscriptions, their changes (price, cancelation, revocation), extra charges (invoices) and test clocks.',
  },
  {
    name: 'mandates',
    description:
      "Pix Automático mandates: a subscription's standing authorization at the payer's bank, its cycles' charges and their attempts.",
  },
  { name: 'sales', description: 'Sales: what each paid checkout, renewal or extra charge sold.' },
  {
    name: 'refunds',
    description:
      'Refunds of a sale, whole or partial; and of a late payment of a checkout that ended without a sale (sale_id null).',
  },
  {
    name: 'discounts',
    description: 'Discounts a checkout can apply: a percentage or a fixed amount, once, repeating or forever.',
  },
  { name: 'files', description: 'Uploaded files (product images and downloads).' },
  {
    name: 'webhooks',
    description:
      'Webhook endpoints and their deliveries. Each event of the document’s `webhooks` is posted to the endpoints subscribed to its type, signed per Standard Webhooks.',
  },
  { name: 'metrics', description: 'Revenue and sales metrics over a period.' },
  {
    name: 'reconciliations',
    description:
      "Our books against the gateway's ledger, a UTC day at a time: reports, their lines with reasons, CSV, runs on demand.",
  },
  { name: 'events', description: 'The event log: every event a webhook receives, readable by type, record and time.' },
  { name: 'organizations', description: 'Organizations, their settings and their members.' },
  { name: 'dashboard', description: 'An organization’s credentials: API keys and organization access tokens.' },
  {
    name: 'customer-portal',
    description: 'The Customer Portal: customer sessions, the current customer and their subscriptions.',
  },
  { name: 'transactions', description: 'Gateway transactions: a direct payment and the read by its gateway id.' },
  { name: 'gateway', description: 'Callbacks from the payment gateway (signed by the gateway).' },
  {
    name: 'sandbox',
    description: 'Sandbox only: test cards, their browser tokenization, and paying, expiring or failing test payments.',
  },
  { name: 'health', description: 'The API index and the probes for the orchestrator.' },
] as const satisfies readonly { name: string; description: string }[];

const NAMES = new Set<string>(TAGS.map((t) => t.name));

/** The operation's one tag, checked against the list; the document cannot be built with a stray one. */
export function checkTags(where: string, tags: unknown): string[] {
  const list = [tags ?? []].flat() as string[];
  if (list.length !== 1 || !NAMES.has(list[0]!)) {
    throw new Error(`${where}: tags ${JSON.stringify(list)}: exactly one of TAGS (api/plugins/openapi-tags.ts)`);
  }
  return list;
}
