import type { Sql } from './database.ts';
import { bcbDevolucaoIdOf, bcbReturnIdOf } from '../../../gateway/bcb-pix-automatico-words.ts';
import { paidEndToEndId } from '../../../gateway/bcb-pix-devolucao.ts';
import { GatewayError, type GatewayMandateRefund } from '../../../gateway/port.ts';
import { assertAmount } from './simulator-input-checks.ts';
import { lockCharge } from './simulator-pix-rows.ts';

/**
 * Refunds of paid Pix Automático charges at the simulator (decision 0099): the BCB's pix devolução,
 * kept in gateway_sim.mandate_refunds by the paid attempt's end-to-end id and the receiver's id for
 * the refund. The sandbox's payer's bank takes every refund at once (DEVOLVIDO). Partial refunds add
 * up to at most the paid amount; a repeated id answers the first refund. Each runs under the charge's
 * row lock, so two refunds of one charge are counted one after the other.
 */

/** The simulated receiver PSP's ISPB, in the rtrIds it forms. */
const SANDBOX_RECEIVER_ISPB = '88888888';

const REFUND_COLUMNS = `end_to_end_id, id, charge_id, return_id, amount, status, reason, requested_at, refunded_at`;

function toRefund(row: Record<string, unknown>): GatewayMandateRefund {
  return {
    id: row.id as string,
    chargeId: row.charge_id as string,
    endToEndId: row.end_to_end_id as string,
    returnId: row.return_id as string,
    amount: Number(row.amount),
    status: row.status as GatewayMandateRefund['status'],
    requestedAt: new Date(row.requested_at as string).toISOString(),
    refundedAt: row.refunded_at == null ? null : new Date(row.refunded_at as string).toISOString(),
    reason: (row.reason as string | null) ?? null,
  };
}

/** The port's refund of a charge: its paid attempt's devolução with the id formed from the key. */
export async function refundCharge(
  sql: Sql,
  clock: () => Date,
  chargeId: string,
  amount: number,
  idempotencyKey: string,
): Promise<GatewayMandateRefund> {
  const charge = await lockCharge(sql, chargeId);
  const id = bcbDevolucaoIdOf(idempotencyKey);
  // A repeated key answers its refund, whatever has happened to the charge since.
  const first = await readRefund(sql, charge.attempts.find((a) => a.status === 'paid')?.endToEndId ?? '', id);
  if (first) return first;
  return refundPaidAttempt(sql, clock, paidEndToEndId(charge), id, amount);
}

/**
 * PUT /pix/{e2eid}/devolucao/{id}: the refund `id` of the pix `endToEndId`, made once. Refused (not
 * retryable) for an unknown pix, one not paid, or an amount above what is left of it.
 */
export async function refundPaidAttempt(
  sql: Sql,
  clock: () => Date,
  endToEndId: string,
  id: string,
  amount: number,
): Promise<GatewayMandateRefund> {
  const [attempt] = await sql<{ charge_id: string }>(
    `select charge_id from gateway_sim.mandate_attempts where end_to_end_id = ?`,
    [endToEndId],
  );
  if (!attempt) throw new GatewayError(`No pix ${endToEndId}`, false);
  const charge = await lockCharge(sql, attempt.charge_id);
  const first = await readRefund(sql, endToEndId, id);
  if (first) return first;
  if (!/^[A-Za-z0-9]{1,35}$/.test(id)) throw new GatewayError('A devolução id has 1 to 35 letters and digits', false);
  assertAmount(amount);
  if (paidEndToEndId(charge) !== endToEndId) throw new GatewayError(`The pix ${endToEndId} was not paid`, false);
  const [{ refunded }] = (await sql<{ refunded: string }>(
    `select coalesce(sum(amount), 0)::text as refunded from gateway_sim.mandate_refunds
     where end_to_end_id = ? and status <> 'failed'`,
    [endToEndId],
  )) as [{ refunded: string }];
  const left = charge.amount - Number(refunded);
  if (amount > left) {
    throw new GatewayError(`Cannot refund ${amount} cents of the pix ${endToEndId}: ${left} cents are left`, false);
  }
  const now = clock();
  const [row] = await sql(
    `insert into gateway_sim.mandate_refunds (${REFUND_COLUMNS})
     values (?, ?, ?, ?, ?, 'refunded', null, ?, ?) returning ${REFUND_COLUMNS}`,
    [
      endToEndId,
      id,
      charge.id,
      bcbReturnIdOf(SANDBOX_RECEIVER_ISPB, now.toISOString(), endToEndId, id),
      amount,
      now,
      now,
    ],
  );
  return toRefund(row!);
}

/** GET /pix/{e2eid}/devolucao/{id}: null when there is no such refund. */
export async function readRefund(sql: Sql, endToEndId: string, id: string): Promise<GatewayMandateRefund | null> {
  const [row] = await sql(
    `select ${REFUND_COLUMNS} from gateway_sim.mandate_refunds where end_to_end_id = ? and id = ?`,
    [endToEndId, id],
  );
  return row ? toRefund(row) : null;
}

/** Every refund of a charge, oldest first (the sandbox's and the tests' view of the money given back). */
export async function refundsOfCharge(sql: Sql, chargeId: string): Promise<GatewayMandateRefund[]> {
  const rows = await sql(
    `select ${REFUND_COLUMNS} from gateway_sim.mandate_refunds where charge_id = ? order by requested_at, id`,
    [chargeId],
  );
  return rows.map(toRefund);
}
