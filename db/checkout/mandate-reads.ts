import type { EntityManager } from '@mikro-orm/postgresql';
import { kyselyOf } from '../kysely.ts';

/**
 * The gateway's id of the mandate a Pix Automático checkout's pix offered (journey 3, decision 0096),
 * as its gateway_payment_data keeps it once paid; null for any other checkout.
 */
export async function checkoutMandateId(em: EntityManager, checkoutId: string): Promise<string | null> {
  const row = await kyselyOf(em)
    .selectFrom('checkouts')
    .select('gatewayPaymentData')
    .where('id', '=', checkoutId)
    .executeTakeFirst();
  const mandate = (row?.gatewayPaymentData as { pix_automatico?: { mandate_id?: unknown } } | null)?.pix_automatico;
  return typeof mandate?.mandate_id === 'string' ? mandate.mandate_id : null;
}

/**
 * The organization's checkout and the gateway's id of the mandate its pix offers while the buyer has not
 * paid it (confirmed, journey 3): the sandbox's payer answers it. Undefined for another organization's or
 * an unknown checkout; a null mandate for a checkout that waits on none.
 */
export async function pendingCheckoutMandate(
  em: EntityManager,
  organizationId: string,
  checkoutId: string,
): Promise<{ mandateId: string | null } | undefined> {
  const row = await kyselyOf(em)
    .selectFrom('checkouts')
    .select(['status', 'paymentMethod', 'gatewayPaymentData'])
    .where('id', '=', checkoutId)
    .where('organizationId', '=', organizationId)
    .executeTakeFirst();
  if (!row) return undefined;
  const mandate = (row.gatewayPaymentData as { pix_automatico?: { mandate_id?: unknown } } | null)?.pix_automatico;
  const pending = row.status === 'confirmed' && row.paymentMethod === 'pix' && typeof mandate?.mandate_id === 'string';
  return { mandateId: pending ? (mandate.mandate_id as string) : null };
}
