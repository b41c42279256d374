import type { EntityManager } from '@mikro-orm/postgresql';
import { allowsMultipleSubscriptions, limitedToOneSubscription } from '../../domain/checkout.ts';
import { kyselyOf } from '../kysely.ts';
import { subscriptionSettingsOf } from '../organization/subscription-reads.ts';
import { hasLiveSubscription } from '../subscription/lists.ts';
import type { CustomerRow } from './customers.ts';

/** Who a checkout names as its buyer, strongest first. */
export interface CheckoutBuyerRef {
  customerId: string | null;
  externalCustomerId: string | null;
  email: string | null;
}

/**
 * The organization's customer a checkout's buyer is: its customer_id, else its external customer id,
 * else its email (case-insensitive). The sale records the buyer as this customer, and the checkout's
 * subscription rules look at this one; a deleted customer holds none of them.
 */
export async function findCheckoutCustomer(
  em: EntityManager,
  organizationId: string,
  ref: CheckoutBuyerRef,
): Promise<CustomerRow | undefined> {
  const live = () =>
    kyselyOf(em)
      .selectFrom('customers')
      .selectAll()
      .where('organizationId', '=', organizationId)
      .where('deletedAt', 'is', null);
  return (
    (ref.customerId ? await live().where('id', '=', ref.customerId).executeTakeFirst() : undefined) ??
    (ref.externalCustomerId
      ? await live().where('externalId', '=', ref.externalCustomerId).executeTakeFirst()
      : undefined) ??
    (ref.email
      ? await live()
          .where((eb) => eb(eb.fn('lower', ['email']), '=', eb.fn('lower', [eb.val(ref.email)])))
          .executeTakeFirst()
      : undefined)
  );
}

/** Holds the customer's row until the transaction ends. */
export async function lockCustomer(tx: EntityManager, customerId: string): Promise<void> {
  await kyselyOf(tx).selectFrom('customers').select('id').where('id', '=', customerId).forUpdate().execute();
}

/**
 * Whether a recurring checkout's buyer may not have it: the organization allows one live subscription
 * per customer (domain/checkout.ts) and the buyer, found as the sale finds it, already has one. A
 * renewal pays the same subscription and never is. `lock` holds the customer's row until the
 * transaction ends, so two sales of one customer cannot both pass.
 */
export async function secondSubscriptionRefused(
  tx: EntityManager,
  organizationId: string,
  buyer: CheckoutBuyerRef,
  options: { renewal: boolean; lock?: boolean },
): Promise<boolean> {
  const allowMultiple = allowsMultipleSubscriptions(await subscriptionSettingsOf(tx, organizationId));
  if (!limitedToOneSubscription({ allowMultiple, recurring: true, renewal: options.renewal })) return false;
  const customer = await findCheckoutCustomer(tx, organizationId, buyer);
  if (!customer) return false;
  if (options.lock) await lockCustomer(tx, customer.id);
  return hasLiveSubscription(tx, organizationId, customer.id);
}
