import type { EntityManager } from '@mikro-orm/postgresql';
import { kyselyOf } from '../kysely.ts';

/** What the daily reconciliation (decision 0073) reads of our payments. */

export interface Window {
  from: Date;
  to: Date;
}

/** Payments captured in the window (by their confirmation, else creation), of one organization or all. */
export async function capturedPaymentsIn(em: EntityManager, window: Window, organizationId: string | null) {
  return kyselyOf(em)
    .selectFrom('transactions')
    .select(['organizationId', 'gatewayTransactionId', 'checkoutId', 'capturedAmount', 'status'])
    .where('capturedAmount', '>', 0)
    .where((eb) => eb(eb.fn.coalesce('confirmedAt', 'createdAt'), '>=', window.from))
    .where((eb) => eb(eb.fn.coalesce('confirmedAt', 'createdAt'), '<', window.to))
    .$if(organizationId !== null, (q) => q.where('organizationId', '=', organizationId!))
    .orderBy('id')
    .execute();
}

/**
 * Our payments among the gateway's ids that were captured outside the window: those a day's ledger
 * releases after (or, by its clock, before) the day our books captured them (decision 0073).
 */
export async function paymentsCapturedOutside(em: EntityManager, gatewayIds: string[], window: Window) {
  if (gatewayIds.length === 0) return [];
  return kyselyOf(em)
    .selectFrom('transactions')
    .select(['organizationId', 'gatewayTransactionId', 'checkoutId', 'capturedAmount'])
    .where('gatewayTransactionId', 'in', gatewayIds)
    .where('capturedAmount', '>', 0)
    .where((eb) =>
      eb.or([
        eb(eb.fn.coalesce('confirmedAt', 'createdAt'), '<', window.from),
        eb(eb.fn.coalesce('confirmedAt', 'createdAt'), '>=', window.to),
      ]),
    )
    .orderBy('id')
    .execute();
}

/** Our payments by id, for the gateway's ids of a refund's payment. */
export async function gatewayIdsOfPayments(em: EntityManager, transactionIds: string[]) {
  if (transactionIds.length === 0) return new Map<string, { gatewayId: string; checkoutId: string | null }>();
  const rows = await kyselyOf(em)
    .selectFrom('transactions')
    .select(['id', 'gatewayTransactionId', 'checkoutId'])
    .where('id', 'in', transactionIds)
    .execute();
  return new Map(rows.map((r) => [r.id, { gatewayId: r.gatewayTransactionId, checkoutId: r.checkoutId }]));
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whose a gateway's payment is: by our record of it, else by its reference when that is one of our
 * checkouts (the payment a lost answer left out of our books). Gateway id → organization id.
 */
export async function ownersOfGatewayPayments(
  em: EntityManager,
  payments: { gatewayId: string | null; reference: string | null }[],
): Promise<{ byGatewayId: Map<string, string>; byReference: Map<string, string> }> {
  const ids = [...new Set(payments.map((p) => p.gatewayId).filter((id): id is string => !!id))];
  const references = [...new Set(payments.map((p) => p.reference).filter((r): r is string => !!r && UUID.test(r)))];
  const known = ids.length
    ? await kyselyOf(em)
        .selectFrom('transactions')
        .select(['gatewayTransactionId', 'organizationId'])
        .where('gatewayTransactionId', 'in', ids)
        .execute()
    : [];
  const checkouts = references.length
    ? await kyselyOf(em)
        .selectFrom('checkouts')
        .select(['id', 'organizationId'])
        .where('id', 'in', references)
        .execute()
    : [];
  return {
    byGatewayId: new Map(known.map((r) => [r.gatewayTransactionId, r.organizationId])),
    byReference: new Map(checkouts.map((r) => [r.id, r.organizationId])),
  };
}
