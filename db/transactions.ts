import { uuidv7 } from 'uuidv7';
import type { PaymentSummary } from '../domain/checkout.ts';
import { storedCard } from './entities/index.ts';
import type { SqlExecutor } from './plain-sql.ts';

const REFRESH = `status = excluded.status, authorization_code = excluded.authorization_code,
  decline_reason = excluded.decline_reason,
  captured_amount = greatest(transactions.captured_amount, excluded.captured_amount),
  confirmed_at = coalesce(transactions.confirmed_at, excluded.confirmed_at), updated_at = excluded.updated_at`;
const KEEP = 'gateway_transaction_id = excluded.gateway_transaction_id';

/**
 * Records (or refreshes) our copy of a gateway transaction: the one insert of the transactions table.
 * Keyed by the gateway's id, so repeating it changes only what the gateway changed; of a card, only
 * what DESIGN.md allows is kept. Returns our id.
 */
export async function upsertTransaction(
  em: SqlExecutor,
  owner: { organizationId: string; checkoutId: string | null; buyer?: Record<string, unknown> | null },
  t: Omit<PaymentSummary, 'paymentData'>,
  /** `keep`: a record already there is left as it is (a later callback may have moved it on). */
  onConflict: 'refresh' | 'keep' = 'refresh',
): Promise<string> {
  const now = new Date();
  const rows = await em.execute<{ id: string }[]>(
    `insert into transactions (id, organization_id, checkout_id, gateway_transaction_id, status, payment_type, amount,
       currency, installments, card, authorization_code, decline_reason, buyer, captured_amount, confirmed_at,
       created_at, updated_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     on conflict (gateway_transaction_id) do update set ${onConflict === 'keep' ? KEEP : REFRESH}
     returning id`,
    [
      uuidv7(),
      owner.organizationId,
      owner.checkoutId,
      t.id,
      t.status,
      t.paymentType,
      t.amount,
      t.currency.toUpperCase(),
      t.installments,
      t.card ? JSON.stringify(storedCard(t.card)) : null,
      t.authorizationCode,
      t.declineReason,
      owner.buyer ? JSON.stringify(owner.buyer) : null,
      t.capturedAmount,
      t.confirmedAt,
      now,
      now,
    ],
  );
  return rows[0]!.id;
}
