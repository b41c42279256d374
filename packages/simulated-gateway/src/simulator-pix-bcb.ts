import type { Sql } from './database.ts';
import { GatewayError, type GatewayMandate } from '../../../gateway/port.ts';
import {
  lockMandate,
  MANDATE_COLUMNS,
  newRequestId,
  simulatorToday,
  toMandate,
  withoutPersona,
} from './simulator-pix-rows.ts';

/**
 * What the BCB's API does in steps where the port's createMandate does it in one call
 * (server-pix-automatico.ts): journey 3's rec names a pix made before it (PUT /cob/{txid}), and journey
 * 1's request goes to the payer's bank after its rec (POST /solicrec).
 */

/** Journey 3's first charge named by its txid: a pix of the simulator's, not paid or lapsed yet. */
export async function pendingPix(sql: Sql, transactionId: string): Promise<string> {
  const [row] = await sql<{ status: string; payment_type: string }>(
    'select status, payment_type from gateway_sim.transactions where id = ?',
    [transactionId],
  );
  if (row?.payment_type !== 'pix' || row.status !== 'pending') {
    throw new GatewayError(`Journey 3's first charge ${transactionId} is not a pending pix`, false);
  }
  return transactionId;
}

/**
 * Journey 1's request to the payer's bank (POST /solicrec) for a mandate created without it; a mandate
 * that has its request answers as it is.
 */
export async function sendMandateRequest(
  sql: Sql,
  clock: () => Date,
  mandateId: string,
  expiresAt: string,
  idempotencyKey: string,
): Promise<GatewayMandate> {
  const mandate = await lockMandate(sql, mandateId);
  if (mandate.request) return withoutPersona(mandate);
  if (mandate.journey !== 'journey_1' || mandate.status !== 'created') {
    throw new GatewayError(`A request is sent only for a journey 1 mandate waiting for its payer`, false);
  }
  const request = { id: newRequestId(simulatorToday(clock), idempotencyKey), status: 'sent', expiresAt };
  const [row] = await sql(
    `update gateway_sim.mandates set request = ?::jsonb where id = ? returning ${MANDATE_COLUMNS}`,
    [JSON.stringify(request), mandateId],
  );
  return toMandate(row!);
}
