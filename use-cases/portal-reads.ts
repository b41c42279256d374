import type { EntityManager } from '@mikro-orm/postgresql';
import { priceIntervals, productNames } from '../db/catalog/labels.ts';
import { payableRenewalCheckout } from '../db/checkout/own-checkouts.ts';
import { findCustomerByKey, type CustomerRow } from '../db/customer/customers.ts';
import { invoicesOfSubscriptions } from '../db/invoice/portal-reads.ts';
import type { InvoiceRow } from '../db/invoice/records.ts';
import { customerSales, subscriptionSales, type SaleRow } from '../db/sale/portal-reads.ts';
import { customerSubscriptions } from '../db/subscription/portal-reads.ts';
import type { SubscriptionRow } from '../db/subscription/record.ts';
import { subscriptionTimeline, type TimelineEntry } from './portal-timeline.ts';
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

export type CustomerEntity = CustomerRow;
export type SubscriptionEntity = SubscriptionRow;
export type ChargeEntity = TimelineEntry;
export type SaleEntity = SaleRow;
export type InvoiceEntity = InvoiceRow;

export interface SubscriptionView {
  subscription: SubscriptionEntity;
  productName: string;
  interval: string | null;
}

/**
 * The open checkout of the subscription's next period (a manual renewal), which the customer pays on
 * its page: with the card the subscription keeps, its security code typed again, where the gateway
 * asks it (decision 0078), or another card, pix or boleto.
 */
export interface RenewalToPay {
  clientSecret: string;
  amount: number;
  currency: string;
}

export interface OverviewData {
  subscriptions: SubscriptionView[];
  sales: { sale: SaleEntity; productName: string }[];
  invoices: { invoice: InvoiceEntity; productName: string }[];
}

export async function portalCustomer(em: EntityManager, scope: PortalCustomerScope): Promise<CustomerEntity | null> {
  return findCustomerByKey(em, scope.organizationId, { id: scope.customerId });
}

/** The customer's subscriptions (newest first), purchases and extra-charge invoices. */
export async function overviewData(em: EntityManager, scope: PortalCustomerScope): Promise<OverviewData> {
  const { organizationId, customerId } = scope;
  const [subscriptions, sales] = await Promise.all([
    customerSubscriptions(em, organizationId, customerId),
    customerSales(em, organizationId, customerId),
  ]);
  const invoices = await invoicesOfSubscriptions(
    em,
    organizationId,
    subscriptions.map((s) => s.id),
  );
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
      interval: intervals.get(subscription.priceId)?.interval ?? null,
    })),
    sales: sales.map((sale) => ({ sale, productName: names.get(sale.productId) ?? '' })),
    invoices: invoices.map((invoice) => ({ invoice, productName: productOf.get(invoice.subscriptionId) ?? '' })),
  };
}

/** One subscription of the customer with every charge of it (portal-timeline.ts), or null for any other id. */
export async function subscriptionData(
  em: EntityManager,
  scope: PortalCustomerScope,
  id: string,
): Promise<(SubscriptionView & { charges: ChargeEntity[]; renewal: RenewalToPay | null }) | null> {
  try {
    const { subscription, charges } = await subscriptionWithCharges(em, id, {
      organizationId: scope.organizationId,
      customerId: scope.customerId,
    });
    const [sales, names, intervals, renewal] = await Promise.all([
      subscriptionSales(em, scope.organizationId, subscription.id),
      productNames(em, [subscription.productId]),
      priceIntervals(em, [subscription.priceId]),
      payableRenewalCheckout(em, scope.organizationId, subscription.id, subscription.periodNumber + 1),
    ]);
    return {
      subscription,
      charges: subscriptionTimeline(subscription, charges, sales),
      renewal:
        renewal?.status === 'open'
          ? { clientSecret: renewal.clientSecret, amount: Number(renewal.amount), currency: renewal.currency }
          : null,
      productName: names.get(subscription.productId) ?? '',
      interval: intervals.get(subscription.priceId)?.interval ?? null,
    };
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode === 404) return null;
    throw err;
  }
}
