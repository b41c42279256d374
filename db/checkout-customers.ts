import { allowsMultipleSubscriptions, limitedToOneSubscription } from '../domain/checkout.ts';
import { isLive, SUBSCRIPTION_STATUSES } from '../domain/subscriptions.ts';
import type { CheckoutBuyerRef } from './customer/checkout-customers.ts';
import type { Row, SqlExecutor } from './plain-sql.ts';

/**
 * LEFT BEHIND for the plain-SQL transaction of activities/checkout-records.ts only: the customer
 * object's typed versions are in db/customer/checkout-customers.ts, which that activity calls once it
 * runs in an entity transaction; this file then goes.
 */

/**
 * The organization's customer a checkout's buyer is: its customer_id, else its external customer id,
 * else its email (case-insensitive). The sale records the buyer as this customer, and the checkout's
 * subscription rules look at this one; a deleted customer holds none of them.
 */
export async function findCheckoutCustomer<T extends Row = { id: string }>(
  tx: SqlExecutor,
  organizationId: string,
  ref: CheckoutBuyerRef,
  columns = 'id',
): Promise<T | undefined> {
  const first = async (where: string, value: string) =>
    (
      await tx.execute<T[]>(
        `select ${columns} from customers where organization_id = ? and deleted_at is null and ${where}`,
        [organizationId, value],
      )
    )[0];
  return (
    (ref.customerId ? await first('id = ?', ref.customerId) : undefined) ??
    (ref.externalCustomerId ? await first('external_id = ?', ref.externalCustomerId) : undefined) ??
    (ref.email ? await first('lower(email) = lower(?)', ref.email) : undefined)
  );
}

// Constants of the domain, not input: safe to write into the statement.
const LIVE_STATUSES = SUBSCRIPTION_STATUSES.filter(isLive)
  .map((s) => `'${s}'`)
  .join(', ');

/**
 * Whether a recurring checkout's buyer may not have it: the organization allows one live subscription
 * per customer (domain/checkout.ts) and the buyer, found as the sale finds it, already has one. A
 * renewal pays the same subscription and never is. `lock` holds the customer's row until the
 * transaction ends, so two sales of one customer cannot both pass.
 */
export async function secondSubscriptionRefused(
  tx: SqlExecutor,
  organizationId: string,
  buyer: CheckoutBuyerRef,
  options: { renewal: boolean; lock?: boolean },
): Promise<boolean> {
  const [org] = await tx.execute<{ settings: Record<string, unknown> | null }[]>(
    'select subscription_settings as settings from organizations where id = ?',
    [organizationId],
  );
  const allowMultiple = allowsMultipleSubscriptions(org?.settings);
  if (!limitedToOneSubscription({ allowMultiple, recurring: true, renewal: options.renewal })) return false;
  const customer = await findCheckoutCustomer(tx, organizationId, buyer, 'id');
  if (!customer) return false;
  if (options.lock) await tx.execute('select id from customers where id = ? for update', [customer.id]);
  return hasLiveSubscription(tx, organizationId, customer.id);
}

/** Whether the customer has a live subscription (neither canceled nor incomplete) of the organization. */
async function hasLiveSubscription(tx: SqlExecutor, organizationId: string, customerId: string) {
  const rows = await tx.execute<Row[]>(
    `select 1 from subscriptions where organization_id = ? and customer_id = ? and status in (${LIVE_STATUSES}) limit 1`,
    [organizationId, customerId],
  );
  return rows.length > 0;
}
