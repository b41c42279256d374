import type { EntityManager } from '@mikro-orm/postgresql';
import { kyselyOf } from '../kysely.ts';

/** What the subscription and invoice objects read and take of their organization. */

/** The organization's subscription_settings as stored (null: no such organization). */
export async function subscriptionSettingsOf(
  em: EntityManager,
  organizationId: string,
): Promise<Record<string, unknown> | null> {
  const row = await kyselyOf(em)
    .selectFrom('organizations')
    .select('subscriptionSettings')
    .where('id', '=', organizationId)
    .executeTakeFirst();
  return row ? (row.subscriptionSettings ?? {}) : null;
}

/**
 * The organization's next customer invoice number, taken in the caller's transaction under the
 * organization's row lock: a number is never given twice, and one given is never lost (a rollback
 * gives it back).
 */
export async function takeInvoiceNumber(
  tx: EntityManager,
  organizationId: string,
): Promise<{ prefix: string; n: number }> {
  const row = await kyselyOf(tx)
    .updateTable('organizations')
    .set((eb) => ({ customerInvoiceNextNumber: eb('customerInvoiceNextNumber', '+', 1) }))
    .where('id', '=', organizationId)
    .returning(['customerInvoicePrefix', 'customerInvoiceNextNumber'])
    .executeTakeFirstOrThrow();
  return { prefix: row.customerInvoicePrefix, n: row.customerInvoiceNextNumber - 1 };
}
