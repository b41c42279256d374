import { describe, expect, it } from '@jest/globals';
import type { z } from 'zod';
import * as E from '../../db/entities/index.ts';
import { refundSchema } from '../../api/schemas/sales.ts';
import { saleSchema } from '../../use-cases/schemas/sales.ts';
import { transactionSchema } from '../../api/schemas/transactions.ts';
import { checkoutSchema } from '../../use-cases/schemas/checkouts.ts';
import { customerSchema } from '../../use-cases/schemas/customers.ts';
import { subscriptionRecordSchema, subscriptionChargeSchema } from '../../api/schemas/subscriptions.ts';
import { invoiceRecordSchema } from '../../api/schemas/invoices.ts';
import { priceSchema, productSchema } from '../../api/schemas/catalog.ts';
import { discountSchema } from '../../api/schemas/discounts.ts';
import { checkoutLinkSchema } from '../../api/schemas/checkout-links.ts';
import { organizationSchema } from '../../api/schemas/organizations.ts';
import { fileSchema } from '../../api/schemas/files.ts';
import { eventSchema } from '../../api/schemas/events.ts';
import { apiKeySchema, accessTokenSchema } from '../../api/schemas/credentials.ts';
import { customerSessionSchema } from '../../api/schemas/customer-portal.ts';
import { wireName, type AgreesWith } from '../../use-cases/schemas/entity-wire.ts';

/**
 * Each record is declared once, by its entity; the API's wire schemas are checked against it
 * (issue 32, §2). The type half runs in `npm run typecheck`: a schema field that the entity has with
 * another type, or that is neither the entity's nor listed as derived, does not compile. The runtime
 * half keeps the derived lists honest: a field listed as derived must not be one of the entity's.
 */
type Holds<T extends true> = T;

/** Wire fields that are not columns of the record: joined, computed, or the API's own. */
const DERIVED = {
  refund: ['currency'],
  sale: ['gateway_transaction_id', 'customer', 'product', 'installment_amount', 'total_amount', 'disputes'],
  // The transaction's wire shape is the gateway's view: `transaction_id` is its id, `id` ours or null.
  transaction: ['id', 'transaction_id', 'checkout', 'card', 'synced_from_gateway'],
  checkout: ['payment_processor'],
  product: ['prices', 'medias'],
  checkoutLink: ['url'],
  file: ['download_url', 'download_url_expires_at'],
  apiKey: ['revoked', 'status'],
  customerSession: ['token', 'customer_portal_url'],
} as const;
/**
 * Columns the wire carries in another shape: a transaction known only to the gateway has no id of
 * ours (null), and its card column's JSON is shown as the wire's card object.
 */
const RESHAPED: readonly string[] = ['transaction.id', 'transaction.card'];
type Derived<K extends keyof typeof DERIVED> = (typeof DERIVED)[K][number];

export type Checked = [
  Holds<AgreesWith<z.infer<typeof refundSchema>, typeof E.Refund, Derived<'refund'>>>,
  Holds<AgreesWith<z.infer<typeof saleSchema>, typeof E.Sale, Derived<'sale'>>>,
  Holds<AgreesWith<z.infer<typeof transactionSchema>, typeof E.Transaction, Derived<'transaction'>>>,
  Holds<AgreesWith<z.infer<typeof checkoutSchema>, typeof E.Checkout, Derived<'checkout'>>>,
  Holds<AgreesWith<z.infer<typeof customerSchema>, typeof E.Customer>>,
  Holds<AgreesWith<z.infer<typeof subscriptionRecordSchema>, typeof E.Subscription>>,
  Holds<AgreesWith<z.infer<typeof subscriptionChargeSchema>, typeof E.SubscriptionCharge>>,
  Holds<AgreesWith<z.infer<typeof invoiceRecordSchema>, typeof E.SubscriptionInvoice>>,
  Holds<AgreesWith<z.infer<typeof priceSchema>, typeof E.Price>>,
  Holds<AgreesWith<z.infer<typeof productSchema>, typeof E.Product, Derived<'product'>>>,
  Holds<AgreesWith<z.infer<typeof discountSchema>, typeof E.Discount>>,
  Holds<AgreesWith<z.infer<typeof checkoutLinkSchema>, typeof E.CheckoutLink, Derived<'checkoutLink'>>>,
  Holds<AgreesWith<z.infer<typeof organizationSchema>, typeof E.Organization>>,
  Holds<AgreesWith<z.infer<typeof fileSchema>, typeof E.File, Derived<'file'>>>,
  Holds<AgreesWith<z.infer<typeof eventSchema>, typeof E.Event>>,
  Holds<AgreesWith<z.infer<typeof apiKeySchema>, typeof E.ApiKey, Derived<'apiKey'>>>,
  Holds<AgreesWith<z.infer<typeof accessTokenSchema>, typeof E.OrganizationAccessToken>>,
  Holds<AgreesWith<z.infer<typeof customerSessionSchema>, typeof E.CustomerSession, Derived<'customerSession'>>>,
];

const ENTITY_OF = {
  refund: E.Refund,
  sale: E.Sale,
  transaction: E.Transaction,
  checkout: E.Checkout,
  product: E.Product,
  checkoutLink: E.CheckoutLink,
  file: E.File,
  apiKey: E.ApiKey,
  customerSession: E.CustomerSession,
} as const;

const SCHEMA_OF = {
  refund: refundSchema,
  sale: saleSchema,
  transaction: transactionSchema,
  checkout: checkoutSchema,
  product: productSchema,
  checkoutLink: checkoutLinkSchema,
  file: fileSchema,
  apiKey: apiKeySchema,
  customerSession: customerSessionSchema,
} as const;

describe('wire schemas checked against the entities', () => {
  it.each(Object.keys(DERIVED) as (keyof typeof DERIVED)[])(
    '%s: a derived field is no column of the record',
    (record) => {
      const columns = new Set(Object.keys(ENTITY_OF[record].meta.properties).map(wireName));
      const shadowing = DERIVED[record].filter(
        (field) => columns.has(field) && !RESHAPED.includes(`${record}.${field}`),
      );
      expect(shadowing).toEqual([]);
      // …and every derived field is still on the wire, so a stale entry cannot hide a future column.
      expect(DERIVED[record].filter((field) => !(field in SCHEMA_OF[record].shape))).toEqual([]);
    },
  );
});
