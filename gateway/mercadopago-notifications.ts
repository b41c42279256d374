import { InvalidWebhookSignatureError, WebhookSignatureValidator } from 'mercadopago';

/**
 * Mercado Pago's payment notifications (webhooks): `POST <notification_url>?data.id=<payment id>&type=payment`
 * with `x-signature: ts=<seconds>,v1=<hex HMAC-SHA256>` and `x-request-id`. The HMAC, keyed with the
 * account's webhook secret, signs the manifest `id:<data.id>;request-id:<x-request-id>;ts:<ts>;`
 * (https://www.mercadopago.com.br/developers/en/docs/your-integrations/notifications/webhooks).
 * A notification only says "payment N changed": the receiver then reads the payment itself
 * (getTransaction), so a forged body could at most cause a read.
 */

export interface MercadoPagoNotification {
  /** The `x-signature` and `x-request-id` headers, as the HTTP server parsed them. */
  signature: string | string[] | undefined;
  requestId: string | string[] | undefined;
  /** The `data.id` query parameter. */
  dataId: string | undefined;
  /** The `type` query parameter (`payment`, `chargebacks`, …). */
  type: string | undefined;
}

export class InvalidNotificationError extends Error {}

/** Five minutes either way: a replayed notification older than that is refused. */
export const NOTIFICATION_TOLERANCE_SECONDS = 300;

/**
 * The payment id a correctly signed payment notification names; null for another type (answered
 * 200 and ignored). An unsigned, wrongly signed or stale one is an InvalidNotificationError (401).
 */
export function verifyPaymentNotification(
  notification: MercadoPagoNotification,
  secret: string,
  now: () => number = Date.now,
): string | null {
  // The reference asks for an alphanumeric data.id in lower case in the manifest.
  const dataId = notification.dataId?.toLowerCase();
  try {
    WebhookSignatureValidator.validate({
      xSignature: notification.signature,
      xRequestId: notification.requestId,
      dataId,
      secret,
      toleranceSeconds: NOTIFICATION_TOLERANCE_SECONDS,
      now,
    });
  } catch (err) {
    if (err instanceof InvalidWebhookSignatureError) throw new InvalidNotificationError(err.message);
    throw err;
  }
  if (notification.type !== 'payment') return null;
  if (!dataId) throw new InvalidNotificationError('A payment notification without data.id');
  return dataId;
}
