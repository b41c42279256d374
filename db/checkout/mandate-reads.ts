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
