import { Checkout, Customer } from '../db/entities/index.ts';
import type { Orm } from '../db/orm.ts';
import type { Row, SqlExecutor } from '../db/plain-sql.ts';
import { checkoutRecord, type CheckoutRecord } from '../use-cases/schemas/checkouts.ts';
import { customerRecord, type CustomerRecord } from '../use-cases/schemas/customers.ts';

/**
 * Records as their GET answers them, for the events of the plain-SQL paths: the row read in the
 * transaction that changed it (so the event carries it as committed), mapped to its entity by the ORM
 * and presented by the route's own presenter.
 */

export async function checkoutRecordIn(orm: Orm, tx: SqlExecutor, id: string): Promise<CheckoutRecord> {
  const [row] = await tx.execute<Row[]>('select * from checkouts where id = ?', [id]);
  return checkoutRecord(orm.em.fork().map(Checkout, row!));
}

export async function customerRecordIn(orm: Orm, tx: SqlExecutor, id: string): Promise<CustomerRecord> {
  const [row] = await tx.execute<Row[]>('select * from customers where id = ?', [id]);
  return customerRecord(orm.em.fork().map(Customer, row!));
}
