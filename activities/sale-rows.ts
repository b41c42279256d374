import type { RecurrenceBilling } from '../domain/subscriptions.ts';
import type { EventType } from '../db/events.ts';

/**
 * What the sale's statements (activities/checkout-sale.ts and subscription-sales.ts) share: the
 * checkout's row as they read it and the events they collect for one insert.
 */

/** The checkout's row as the recording reads it (snake_case, bigints as strings). */
export interface CheckoutRow {
  id: string;
  organization_id: string;
  status: string;
  product_id: string;
  product_price_id: string;
  currency: string;
  subtotal_amount: string;
  discount_amount: string;
  amount: string;
  discount_id: string | null;
  customer_id: string | null;
  external_customer_id: string | null;
  customer_email: string | null;
  customer_name: string | null;
  customer_tax_id: string | null;
  customer_billing_name: string | null;
  customer_billing_address: Record<string, unknown> | null;
  customer_metadata: Record<string, unknown> | null;
  subscription_id: string | null;
  renewal_period: number | null;
  balance_applied: string;
  recurrence_billing: RecurrenceBilling;
  payment_method: string | null;
}

export type Events = [EventType, Record<string, unknown>][];
