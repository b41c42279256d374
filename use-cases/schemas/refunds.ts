import type { InferEntity } from '@mikro-orm/core';
import type { Refund } from '../../db/entities/index.ts';
import { iso } from './common.ts';

/** A refund as the API answers it and its events carry it (`refund.created`). */

type RefundEntity = InferEntity<typeof Refund>;

export function presentRefund(refund: RefundEntity, currency: string) {
  return {
    id: refund.id,
    organization_id: refund.organizationId,
    sale_id: refund.saleId ?? null,
    transaction_id: refund.transactionId,
    amount: refund.amount,
    currency: currency.toUpperCase(),
    reason: refund.reason ?? null,
    status: refund.status,
    created_at: iso(refund.createdAt)!,
    updated_at: iso(refund.updatedAt)!,
  };
}
