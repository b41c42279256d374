import type { EntityManager } from '@mikro-orm/postgresql';
import { kyselyOf, sql } from '../kysely.ts';

/**
 * What a checkout workflow started again by a sweep reads of the run it replaces. The predicates are
 * the sweep's (activities/sweeps.ts pages by them, on the partial indexes of migration 0016).
 */

/**
 * A confirmed checkout with a pix or boleto issued, or a card under review (its payment data stored),
 * and not yet settled (a confirmed card checkout shows payment data only while its card is reviewed).
 */
export const AWAITING_PAYMENT = `status = 'confirmed' and payment_method in ('pix', 'boleto', 'credit_card')
  and gateway_payment_data->>'transaction_id' is not null`;
/**
 * Confirmed checkouts whose payment call's answer was never recorded: the run was lost between the
 * confirmation and the call's answer (the call may or may not have reached the gateway). Rows confirmed
 * before the confirmation was kept cannot be asked about and are left out.
 */
export const PAYMENT_IN_FLIGHT = `status = 'confirmed' and gateway_payment_data is null and confirmation is not null`;

/** The confirmation whose payment call's answer no run recorded; undefined when there is none. */
export async function confirmationInFlight(em: EntityManager, checkoutId: string) {
  const row = await kyselyOf(em)
    .selectFrom('checkouts')
    .select('confirmation')
    .where('id', '=', checkoutId)
    .where(sql<boolean>`${sql.raw(PAYMENT_IN_FLIGHT)}`)
    .executeTakeFirst();
  return row?.confirmation ?? undefined;
}

/** The pix or boleto a confirmed checkout issued and still waits for; undefined when there is none. */
export async function awaitedPayment(em: EntityManager, checkoutId: string) {
  return kyselyOf(em)
    .selectFrom('checkouts')
    .select(['paymentMethod', 'gatewayPaymentData', 'expiresAt', 'confirmation'])
    .where('id', '=', checkoutId)
    .where(sql<boolean>`${sql.raw(AWAITING_PAYMENT)}`)
    .executeTakeFirst();
}
