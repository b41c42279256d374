import { Checkout } from '../db/entities/index.ts';
import type { Orm } from '../db/orm.ts';
import type { Row } from '../db/plain-sql.ts';
import { checkoutRecord, type CheckoutEntity, type CheckoutRecord } from '../use-cases/schemas/checkouts.ts';

/**
 * Records as their GET answers them, for the events of the plain-SQL paths: the row read in the
 * transaction that changed it, or returned by its update (so the event carries it as committed), mapped to its entity's
 * properties by the ORM and presented by the route's own presenter.
 */

/** The record of a checkout row as written (an `update … returning *` in its transaction). */
export function checkoutRecordOf(orm: Orm, row: Row): CheckoutRecord {
  return checkoutRecord(mapper(orm).mapResult(orm.getMetadata().get(Checkout), row as never) as CheckoutEntity);
}

/**
 * Rows as their entities' properties, by the ORM's own result mapper (column names and types as
 * `em.map` gives them), without an entity manager or a managed entity: a tenth of `em.fork().map`'s
 * CPU, on every paid checkout (docs/performance.md). The presenters only read the properties.
 */
const mapper = (orm: Orm) => orm.em.getComparator();
