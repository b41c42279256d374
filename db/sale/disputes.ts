import type { EntityManager } from '@mikro-orm/postgresql';
import { uuidv7 } from 'uuidv7';
import type { DisputeStatus } from '../../domain/disputes.ts';
import { kyselyOf } from '../kysely.ts';

/** The sale object's disputes (chargebacks of its payment, decision 0072). */

/** The dispute the gateway knows by this id, locked until the transaction ends; null when none is recorded. */
export async function lockDisputeOfGateway(em: EntityManager, gatewayDisputeId: string) {
  const row = await kyselyOf(em)
    .selectFrom('disputes')
    .selectAll()
    .where('gatewayDisputeId', '=', gatewayDisputeId)
    .forUpdate()
    .executeTakeFirst();
  return row ?? null;
}

export interface DisputeWrite {
  status: DisputeStatus;
  lostAmount: number;
  closedAt: Date | null;
}

/** A dispute first heard of: the row as written. */
export async function insertDispute(
  em: EntityManager,
  dispute: {
    organizationId: string;
    saleId: string;
    transactionId: string;
    gatewayDisputeId: string;
    amount: number;
    currency: string;
  } & DisputeWrite,
  now: Date,
) {
  return kyselyOf(em)
    .insertInto('disputes')
    .values({ id: uuidv7(), ...dispute, openedAt: now, createdAt: now, updatedAt: now })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** A dispute's new state (and amount, as the gateway now says). */
export async function updateDispute(
  em: EntityManager,
  id: string,
  change: DisputeWrite & { amount: number },
  now: Date,
): Promise<void> {
  await kyselyOf(em)
    .updateTable('disputes')
    .set({ ...change, updatedAt: now })
    .where('id', '=', id)
    .execute();
}

/** What the sale's lost disputes took back. */
export async function recordSaleChargedBack(
  em: EntityManager,
  saleId: string,
  chargedBackAmount: number,
  now: Date,
): Promise<void> {
  await kyselyOf(em).updateTable('sales').set({ chargedBackAmount, updatedAt: now }).where('id', '=', saleId).execute();
}

/** Whether a dispute of the sale is still open (neither won nor lost). */
export async function hasOpenDispute(em: EntityManager, saleId: string): Promise<boolean> {
  const open = await kyselyOf(em)
    .selectFrom('disputes')
    .select('id')
    .where('saleId', '=', saleId)
    .where('status', '=', 'opened')
    .executeTakeFirst();
  return open !== undefined;
}

/** The disputes of these sales, oldest first, by sale: what the sale's record lists. */
export async function disputesOfSales(em: EntityManager, saleIds: readonly string[]) {
  const bySale = new Map<string, DisputeRow[]>();
  if (saleIds.length === 0) return bySale;
  const rows = await kyselyOf(em)
    .selectFrom('disputes')
    .select(['id', 'saleId', 'gatewayDisputeId', 'status', 'amount', 'lostAmount', 'currency', 'openedAt', 'closedAt'])
    .where('saleId', 'in', [...saleIds])
    .orderBy('createdAt')
    .orderBy('id')
    .execute();
  for (const row of rows) bySale.set(row.saleId, [...(bySale.get(row.saleId) ?? []), row]);
  return bySale;
}

export interface DisputeRow {
  id: string;
  saleId: string;
  gatewayDisputeId: string;
  status: DisputeStatus;
  amount: number;
  lostAmount: number;
  currency: string;
  openedAt: Date;
  closedAt: Date | null;
}
