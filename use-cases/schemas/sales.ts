import type { InferEntity } from '@mikro-orm/core';
import { z } from 'zod';
import type { Sale } from '../../db/entities/index.ts';
import type { DisputeRow } from '../../db/sale/disputes.ts';
import { DISPUTE_STATUSES } from '../../domain/disputes.ts';
import { chargedPayment } from '../../domain/installments.ts';
import { iso } from './common.ts';

/**
 * A sale as GET /sales/{id} answers it, and as every sale event carries it (use-cases/sale-records.ts
 * reads it in the transaction that changes it).
 */
type SaleEntity = InferEntity<typeof Sale>;
/** What the presentation reads of a sale: its entity, or its row read with plain SQL. */
export type SaleFields = Pick<
  SaleEntity,
  | 'id'
  | 'organizationId'
  | 'checkoutId'
  | 'transactionId'
  | 'priceId'
  | 'subscriptionId'
  | 'discountId'
  | 'currency'
  | 'subtotalAmount'
  | 'discountAmount'
  | 'amount'
  | 'installments'
  | 'paymentMethod'
  | 'status'
  | 'refundedAmount'
  | 'chargedBackAmount'
  | 'createdAt'
  | 'updatedAt'
>;

const timestamp = z.string();

export const disputeSchema = z.object({
  id: z.string(),
  gateway_dispute_id: z.string().describe("The gateway's id of the chargeback"),
  status: z.enum(DISPUTE_STATUSES).describe('opened until the card network decides: won (kept) or lost (taken back)'),
  amount: z.number().int().describe('What the buyer disputes, in cents'),
  lost_amount: z.number().int().describe('What the dispute took back: its amount once lost, else 0'),
  currency: z.string(),
  opened_at: timestamp,
  closed_at: timestamp.nullable(),
});

export const saleSchema = z.object({
  id: z.string(),
  organization_id: z.string(),
  checkout_id: z.string().nullable(),
  transaction_id: z.string().nullable().describe('Our transaction record; null for a sale whose total was zero'),
  gateway_transaction_id: z
    .string()
    .nullable()
    .describe('The gateway identifier (GET /transactions/<it>); null for a sale whose total was zero'),
  customer: z.object({ id: z.string(), email: z.string(), name: z.string().nullable() }),
  product: z.object({ id: z.string(), name: z.string() }),
  price_id: z.string(),
  subscription_id: z.string().nullable(),
  discount_id: z.string().nullable(),
  currency: z.string().describe('Upper case, as on checkouts'),
  subtotal_amount: z.number().int(),
  discount_amount: z.number().int(),
  amount: z.number().int().describe('What the sale was for, after discount, in cents'),
  installments: z.number().int(),
  installment_amount: z.number().int().describe('What the buyer pays each month, interest included, in cents'),
  total_amount: z
    .number()
    .int()
    .describe('What the buyer paid in all, installment interest included (the amount charged), in cents'),
  payment_method: z.string(),
  status: z.enum(['paid', 'refunded', 'partially_refunded']),
  refunded_amount: z.number().int(),
  charged_back_amount: z
    .number()
    .int()
    .describe('What lost disputes (chargebacks) took back from this sale, in cents (decision 0072)'),
  disputes: z
    .array(disputeSchema)
    .describe("Disputes (chargebacks) of the sale's payment, oldest first, as the gateway reported them"),
  created_at: timestamp,
  updated_at: timestamp,
});
export type SaleBody = z.infer<typeof saleSchema>;

export interface SaleRelations {
  gatewayTransactionId: string | null;
  /** The charged total (interest included); null for a sale without a payment. */
  chargedAmount: number | null;
  customer: { id: string; email: string; name: string | null };
  product: { id: string; name: string };
  disputes: readonly DisputeRow[];
}

export function presentSale(sale: SaleFields, related: SaleRelations): SaleBody {
  return {
    id: sale.id,
    organization_id: sale.organizationId,
    checkout_id: sale.checkoutId ?? null,
    transaction_id: sale.transactionId ?? null,
    gateway_transaction_id: related.gatewayTransactionId,
    customer: related.customer,
    product: related.product,
    price_id: sale.priceId,
    subscription_id: sale.subscriptionId ?? null,
    discount_id: sale.discountId ?? null,
    currency: sale.currency.toUpperCase(),
    subtotal_amount: sale.subtotalAmount,
    discount_amount: sale.discountAmount,
    amount: sale.amount,
    ...chargedPayment(related.chargedAmount ?? sale.amount, sale.installments),
    payment_method: sale.paymentMethod,
    status: sale.status,
    refunded_amount: sale.refundedAmount,
    charged_back_amount: sale.chargedBackAmount,
    disputes: related.disputes.map((d) => ({
      id: d.id,
      gateway_dispute_id: d.gatewayDisputeId,
      status: d.status,
      amount: d.amount,
      lost_amount: d.lostAmount,
      currency: d.currency.toUpperCase(),
      opened_at: iso(d.openedAt)!,
      closed_at: iso(d.closedAt),
    })),
    created_at: iso(sale.createdAt)!,
    updated_at: iso(sale.updatedAt)!,
  };
}
