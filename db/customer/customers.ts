import { LockMode, type FilterQuery, type InferEntity, type RequiredEntityData } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Customer } from '../entities/customer.ts';
import { kyselyOf } from '../kysely.ts';

/** The customer object's `customers` rows; a deleted customer (soft delete) is found by none of these. */

export type CustomerRow = InferEntity<typeof Customer>;
/** A customer is addressed by our id or by the merchant's external_id. */
export type CustomerKey = { id: string } | { externalId: string };

/** A new customer, flushed with the caller's transaction. */
export function createCustomer(tx: EntityManager, customer: RequiredEntityData<CustomerRow>): CustomerRow {
  return tx.create(Customer, customer);
}

/** The organization's customer by key, `lock`ed for an update when asked. */
export async function findCustomerByKey(
  em: EntityManager,
  organizationId: string,
  key: CustomerKey,
  lock = false,
): Promise<CustomerRow | null> {
  const where: FilterQuery<CustomerRow> =
    'id' in key
      ? { id: key.id, organizationId, deletedAt: null }
      : { externalId: key.externalId, organizationId, deletedAt: null };
  return em.findOne(Customer, where, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
}

/** One page of the customers `where` selects, and how many there are. */
export async function customerPage(
  em: EntityManager,
  where: FilterQuery<CustomerRow>,
  page: { orderBy: Record<string, 'asc' | 'desc'>; limit: number; offset: number },
): Promise<[CustomerRow[], number]> {
  return em.findAndCount(Customer, where, { orderBy: page.orderBy, limit: page.limit, offset: page.offset });
}

/** Writes a customer at once (the fuzz run's seed). */
export async function insertCustomer(
  em: EntityManager,
  customer: { id: string; organizationId: string; email: string; name: string | null },
): Promise<void> {
  const now = new Date();
  await kyselyOf(em)
    .insertInto('customers')
    .values({
      ...customer,
      externalId: null,
      billingName: null,
      billingAddress: null,
      taxId: null,
      userMetadata: {},
      emailVerified: false,
      avatarUrl: null,
      createdAt: now,
      updatedAt: now,
      deletedAt: null,
    })
    .execute();
}
