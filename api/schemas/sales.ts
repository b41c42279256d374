import { z } from 'zod';
import { listQuery, paginated, nonBlank } from '../../use-cases/schemas/common.ts';
import { saleSchema } from '../../use-cases/schemas/sales.ts';

/** The sale's schema and presentation are the events' too: in use-cases/schemas/sales.ts. */
export { saleSchema } from '../../use-cases/schemas/sales.ts';

const timestamp = z.string();

export const listSalesQuery = listQuery(['created_at', 'amount']).extend({
  customer_id: z.string().optional(),
  product_id: z.string().optional(),
  subscription_id: z.string().optional(),
  status: z.enum(['paid', 'refunded', 'partially_refunded']).optional(),
  query: z.string().max(256).optional().describe('Part of the customer’s e-mail or name, case-insensitive'),
});
export const salePage = paginated(saleSchema);
export const saleParams = z.object({ id: z.string().max(64) });

export const refundSchema = z.object({
  id: z.string(),
  organization_id: z.string(),
  sale_id: z
    .string()
    .nullable()
    .describe(
      'The sale refunded; null for a late payment of a checkout that ended without a sale (expired, failed), ' +
        'given back automatically: its transaction_id names the payment',
    ),
  transaction_id: z.string(),
  amount: z.number().int(),
  currency: z.string(),
  reason: z.string().nullable(),
  status: z.enum(['pending', 'succeeded', 'failed']).describe('pending while the gateway has not confirmed it'),
  created_at: timestamp,
  updated_at: timestamp,
});

export const createRefundBody = z.strictObject({
  sale_id: z.string(),
  amount: z.number().int().positive().optional().describe('Cents; the whole refundable amount when omitted'),
  reason: nonBlank(500).optional(),
});

export const listRefundsQuery = listQuery(['created_at', 'amount']).extend({ sale_id: z.string().optional() });
export const refundPage = paginated(refundSchema);

/** The refund's presentation is its events' too: in use-cases/schemas/refunds.ts. */
export { presentRefund } from '../../use-cases/schemas/refunds.ts';
