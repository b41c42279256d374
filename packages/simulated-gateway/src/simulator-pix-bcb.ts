import type { Sql } from './database.ts';
import { GatewayError, type GatewayMandate } from '../../../gateway/port.ts';
import {
  lockMandate,
  MANDATE_COLUMNS,
  mandateQrCode,
  newRequestId,
  simulatorToday,
  toMandate,
  withoutPersona,
} from './simulator-pix-rows.ts';

/**
 * What the BCB's API does in steps where the port's createMandate does it in one call
 * (server-pix-automatico.ts): journey 3's rec names a pix made before it (PUT /cob/{txid}), journey
 * 1's request goes to the payer's bank after its rec (POST /solicrec), and journey 4's composite QR code
 * is asked of a rec with its due-date charge (GET /rec/{idRec}?txid=, the cobv made by PUT /cobv/{txid}).
 */

/** Journey 3's first charge named by its txid: a pix of the simulator's, not paid or lapsed yet. */
export async function pendingPix(sql: Sql, transactionId: string): Promise<string> {
  const [row] = await sql<{ status: string; payment_type: string }>(
    'select status, payment_type from gateway_sim.transactions where id = ?',
    [transactionId],
  );
  if (row?.payment_type !== 'pix' || row.status !== 'pending') {
    throw new GatewayError(`The charge ${transactionId} a rec names is not a pending pix`, false);
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

/**
 * Journey 4 at the BCB: GET /rec/{idRec}?txid={cobv} composes the QR code that pays the cobv and offers
 * the rec. The simulator binds them then (the mandate becomes journey 4 on that pix, whose payment
 * answers it); asked again with the same txid, it answers as it is. Only a rec made with a location
 * (a QR code's) and still waiting for its payer takes a pending pix so.
 */
export async function composeDueChargeQr(sql: Sql, mandateId: string, txid: string): Promise<GatewayMandate> {
  const mandate = await lockMandate(sql, mandateId);
  if (mandate.firstPaymentId === txid) return withoutPersona(mandate);
  if (mandate.journey !== 'journey_2' || mandate.status !== 'created' || mandate.firstPaymentId !== null) {
    throw new GatewayError(`The rec ${mandateId} cannot be composed with the charge ${txid}`, false);
  }
  await pendingPix(sql, txid);
  const [pix] = await sql<{ base_amount: number }>('select base_amount from gateway_sim.transactions where id = ?', [
    txid,
  ]);
  const [row] = await sql(
    `update gateway_sim.mandates set journey = 'journey_4', first_payment_id = ?, qr_code = ? where id = ?
     returning ${MANDATE_COLUMNS}`,
    [txid, mandateQrCode(mandateId, mandate.reference, Number(pix!.base_amount)), mandateId],
  );
  return toMandate(row!);
}
