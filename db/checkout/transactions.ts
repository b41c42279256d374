import type { EntityManager } from '@mikro-orm/postgresql';
import { uuidv7 } from 'uuidv7';
import type { PaymentSummary } from '../../domain/checkout.ts';
import { storedCard } from '../../domain/card-data.ts';
import { sql, kyselyOf } from '../kysely.ts';

// The `excluded` row is SQL's own, named by its columns.
const REFRESH = {
  status: sql<string>`excluded.status`,
  authorizationCode: sql<string | null>`excluded.authorization_code`,
  declineReason: sql<string | null>`excluded.decline_reason`,
  capturedAmount: sql<number>`greatest(transactions.captured_amount, excluded.captured_amount)`,
  confirmedAt: sql<Date | null>`coalesce(transactions.confirmed_at, excluded.confirmed_at)`,
  updatedAt: sql<Date>`excluded.updated_at`,
};
const KEEP = { gatewayTransactionId: sql<string>`excluded.gateway_transaction_id` };

/**
 * Records (or refreshes) our copy of a gateway transaction: the one insert of the transactions table.
 * Keyed by the gateway's id, so repeating it changes only what the gateway changed; of a card, only
 * what DESIGN.md allows is kept. Returns our id.
 */
export async function upsertTransaction(
  em: EntityManager,
  owner: { organizationId: string; checkoutId: string | null; buyer?: Record<string, unknown> | null },
  t: Omit<PaymentSummary, 'paymentData'>,
  /** `keep`: a record already there is left as it is (a later callback may have moved it on). */
  onConflict: 'refresh' | 'keep' = 'refresh',
): Promise<string> {
  const now = new Date();
  const row = await kyselyOf(em)
    .insertInto('transactions')
    .values({
      id: uuidv7(),
      organizationId: owner.organizationId,
      checkoutId: owner.checkoutId,
      gatewayTransactionId: t.id,
      status: t.status,
      paymentType: t.paymentType,
      amount: t.amount,
      currency: t.currency.toUpperCase(),
      installments: t.installments,
      card: t.card ? storedCard(t.card) : null,
      authorizationCode: t.authorizationCode,
      declineReason: t.declineReason,
      buyer: owner.buyer ?? null,
      capturedAmount: t.capturedAmount,
      confirmedAt: t.confirmedAt === null ? null : new Date(t.confirmedAt),
      createdAt: now,
      updatedAt: now,
    })
    .onConflict((oc) => oc.column('gatewayTransactionId').doUpdateSet(onConflict === 'keep' ? KEEP : REFRESH))
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** The gateway's word on a transaction, copied onto ours. */
export async function syncTransaction(
  em: EntityManager,
  t: { id: string; status: string; capturedAmount: number; confirmedAt: string | null },
): Promise<void> {
  await kyselyOf(em)
    .updateTable('transactions')
    .set((eb) => ({
      status: t.status,
      capturedAmount: t.capturedAmount,
      confirmedAt: eb.fn.coalesce('confirmedAt', eb.val(t.confirmedAt === null ? null : new Date(t.confirmedAt))),
      updatedAt: new Date(),
    }))
    .where('gatewayTransactionId', '=', t.id)
    .execute();
}

/** Our transaction, locked until the transaction ends (its row lock serializes the refunds of one payment). */
export async function lockTransaction(em: EntityManager, id: string) {
  return kyselyOf(em).selectFrom('transactions').selectAll().where('id', '=', id).forUpdate().executeTakeFirstOrThrow();
}

/** What the payment's refunds add up to, and the status they give it. */
export async function recordTransactionRefunds(
  em: EntityManager,
  id: string,
  refunds: { refundedAmount: number; status: string },
  now: Date,
): Promise<void> {
  await kyselyOf(em)
    .updateTable('transactions')
    .set({ ...refunds, updatedAt: now })
    .where('id', '=', id)
    .execute();
}

/**
 * The gateway's word on a payment after its owner's workflow ended (decision 0071): its status, and
 * for a payment with no sale its captured and refunded amounts too. True when anything changed, so a
 * repeated notice is told apart from a new one.
 */
export async function writeNoticedTransaction(
  em: EntityManager,
  id: string,
  t: { status: string; confirmedAt: string | null; capturedAmount?: number; refundedAmount?: number },
): Promise<boolean> {
  const amounts = {
    ...(t.capturedAmount === undefined ? {} : { capturedAmount: t.capturedAmount }),
    ...(t.refundedAmount === undefined ? {} : { refundedAmount: t.refundedAmount }),
  };
  const row = await kyselyOf(em)
    .updateTable('transactions')
    .set((eb) => ({
      status: t.status,
      ...amounts,
      confirmedAt: eb.fn.coalesce('confirmedAt', eb.val(t.confirmedAt === null ? null : new Date(t.confirmedAt))),
      updatedAt: new Date(),
    }))
    .where('id', '=', id)
    .where((eb) =>
      eb.or([
        eb('status', '!=', t.status),
        ...(t.capturedAmount === undefined ? [] : [eb('capturedAmount', '!=', t.capturedAmount)]),
        ...(t.refundedAmount === undefined ? [] : [eb('refundedAmount', '!=', t.refundedAmount)]),
      ]),
    )
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** A payment's status as its dispute leaves it (`dispute`, `charged_back`, or back as its refunds say). */
export async function recordTransactionDisputeStatus(
  em: EntityManager,
  id: string,
  status: string,
  now: Date,
): Promise<void> {
  await kyselyOf(em).updateTable('transactions').set({ status, updatedAt: now }).where('id', '=', id).execute();
}
