import type { InferEntity } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  Customer,
  Price,
  Product,
  Sale,
  Subscription,
  SubscriptionCharge,
  SubscriptionInvoice,
} from '../db/entities/index.ts';
import { subscriptionWithCharges } from './subscription-reads.ts';

/**
 * What the customer portal's pages show (pages/portal/), read with the scope the portal API reads
 * with: the session's customer, in its organization. Another customer's subscription is "not found",
 * as in the API (the same subscriptionWithCharges its route reads with).
 */

/** Who reads or changes: the portal session's customer, in its organization. */
export interface PortalCustomerScope {
  organizationId: string;
  customerId: string;
}

export type CustomerEntity = InferEntity<typeof Customer>;
export type SubscriptionEntity = InferEntity<typeof Subscription>;
export type ChargeEntity = InferEntity<typeof SubscriptionCharge>;
export type SaleEntity = InferEntity<typeof Sale>;
export type InvoiceEntity = InferEntity<typeof SubscriptionInvoice>;

export interface SubscriptionView {
  subscription: SubscriptionEntity;
  productName: string;
  interval: string | null;
}

export interface OverviewData {
  subscriptions: SubscriptionView[];
  sales: { sale: SaleEntity; productName: string }[];
  invoices: { invoice: InvoiceEntity; productName: string }[];
}

export async function portalCustomer(em: EntityManager, scope: PortalCustomerScope): Promise<CustomerEntity | null> {
  return em.findOne(Customer, { id: scope.customerId, organizationId: scope.organizationId, deletedAt: null });
}

/** The customer's subscriptions (newest first), purchases and extra-charge invoices. */
export async function overviewData(em: EntityManager, scope: PortalCustomerScope): Promise<OverviewData> {
  const where = { organizationId: scope.organizationId, customerId: scope.customerId };
  const [subscriptions, sales] = await Promise.all([
    em.find(Subscription, where, { orderBy: { createdAt: 'desc', id: 'desc' } }),
    em.find(Sale, where, { orderBy: { createdAt: 'desc', id: 'desc' }, limit: 50 }),
  ]);
  const invoices = subscriptions.length
    ? await em.find(
        SubscriptionInvoice,
        { organizationId: scope.organizationId, subscriptionId: { $in: subscriptions.map((s) => s.id) } },
        { orderBy: { createdAt: 'desc', id: 'desc' }, limit: 50 },
      )
    : [];
  const names = await productNames(em, [...subscriptions.map((s) => s.productId), ...sales.map((s) => s.productId)]);
  const intervals = await priceIntervals(
    em,
    subscriptions.map((s) => s.priceId),
  );
  const productOf = new Map(subscriptions.map((s) => [s.id, names.get(s.productId) ?? '']));
  return {
    subscriptions: subscriptions.map((subscription) => ({
      subscription,
      productName: names.get(subscription.productId) ?? '',
      interval: intervals.get(subscription.priceId) ?? null,
    })),
    sales: sales.map((sale) => ({ sale, productName: names.get(sale.productId) ?? '' })),
    invoices: invoices.map((invoice) => ({ invoice, productName: productOf.get(invoice.subscriptionId) ?? '' })),
  };
}

/** One subscription of the customer with its renewal and dunning attempts, or null for any other id. */
export async function subscriptionData(
  em: EntityManager,
  scope: PortalCustomerScope,
  id: string,
): Promise<(SubscriptionView & { charges: ChargeEntity[] }) | null> {
  try {
    const { subscription, charges } = await subscriptionWithCharges(em, id, {
      organizationId: scope.organizationId,
      customerId: scope.customerId,
    });
    const [names, intervals] = await Promise.all([
      productNames(em, [subscription.productId]),
      priceIntervals(em, [subscription.priceId]),
    ]);
    return {
      subscription,
      charges,
      productName: names.get(subscription.productId) ?? '',
      interval: intervals.get(subscription.priceId) ?? null,
    };
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode === 404) return null;
    throw err;
  }
}

async function productNames(em: EntityManager, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const products = await em.find(Product, { id: { $in: [...new Set(ids)] } }, { fields: ['name'] });
  return new Map(products.map((p) => [p.id, p.name]));
}

async function priceIntervals(em: EntityManager, ids: string[]): Promise<Map<string, string | null>> {
  if (ids.length === 0) return new Map();
  const prices = await em.find(Price, { id: { $in: [...new Set(ids)] } }, { fields: ['interval'] });
  return new Map(prices.map((p) => [p.id, p.interval ?? null]));
}
