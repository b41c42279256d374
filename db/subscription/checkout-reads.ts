import type { EntityManager } from '@mikro-orm/postgresql';
import { kyselyOf } from '../kysely.ts';
import type { SubscriptionRow } from './record.ts';

/**
 * The organization's subscription a succeeded checkout made or pays (POST /checkouts/:id/renewals):
 * the one made by `checkoutId`, or `subscriptionId`, the one it names.
 */
export async function subscriptionOfCheckout(
  em: EntityManager,
  organizationId: string,
  checkout: { id: string; subscriptionId?: string | null },
): Promise<SubscriptionRow | null> {
  const row = await kyselyOf(em)
    .selectFrom('subscriptions')
    .selectAll()
    .where('organizationId', '=', organizationId)
    .where((eb) =>
      eb.or([
        eb('checkoutId', '=', checkout.id),
        ...(checkout.subscriptionId ? [eb('id', '=', checkout.subscriptionId)] : []),
      ]),
    )
    .limit(1)
    .executeTakeFirst();
  return row ?? null;
}

/**
 * The card the organization's subscription keeps (our gateway card token id), which a present buyer
 * may pay its renewal checkout with (decision 0078); null when it keeps none.
 */
export async function subscriptionCardTokenId(
  em: EntityManager,
  organizationId: string,
  subscriptionId: string,
): Promise<string | null> {
  const row = await kyselyOf(em)
    .selectFrom('subscriptions')
    .select('cardTokenId')
    .where('organizationId', '=', organizationId)
    .where('id', '=', subscriptionId)
    .executeTakeFirst();
  return row?.cardTokenId ?? null;
}
