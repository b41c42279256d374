import { InvalidWebhookSignatureError, WebhookSignatureValidator } from 'mercadopago';

/**
 * Mercado Pago's payment notifications (webhooks): `POST <notification_url>?data.id=<payment id>&type=payment`
 * with `x-signature: ts=<timestamp>,v1=<hex HMAC-SHA256>` and `x-request-id`. The HMAC, keyed with the
 * account's webhook secret, signs the manifest `id:<data.id>;request-id:<x-request-id>;ts:<ts>;`
 * (https://www.mercadopago.com.br/developers/en/docs/your-integrations/notifications/webhooks).
 * A notification only says "payment N changed": the receiver then reads the payment itself
 * (getTransaction), so a forged body could at most cause a read.
 *
 * No freshness window (decision 0066): the page's text calls `ts` milliseconds while its example
 * (`ts=1704908010`) and the SDK's validator read seconds, Mercado Pago retries an unanswered notice for
 * days under a schedule it does not say it re-signs, and a replayed notice changes nothing, since the
 * route re-reads the payment. The signature is checked as it is sent, whichever unit `ts` is in.
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

/**
 * The payment id a correctly signed payment notification names; null for another type (answered
 * 200 and ignored). An unsigned or wrongly signed one is an InvalidNotificationError (401).
 */
export function verifyPaymentNotification(notification: MercadoPagoNotification, secret: string): string | null {
  // The reference asks for an alphanumeric data.id in lower case in the manifest.
  const dataId = notification.dataId?.toLowerCase();
  try {
    // Without toleranceSeconds the SDK checks no age, whatever the unit of `ts`.
    WebhookSignatureValidator.validate({
      xSignature: notification.signature,
      xRequestId: notification.requestId,
      dataId,
      secret,
    });
  } catch (err) {
    if (err instanceof InvalidWebhookSignatureError) throw new InvalidNotificationError(err.message);
    throw err;
  }
  if (notification.type !== 'payment') return null;
  if (!dataId) throw new InvalidNotificationError('A payment notification without data.id');
  return dataId;
}

/**
 * Mercado Pago's older IPN notice, `?topic=<topic>&id=<id>`: unsigned (its x-signature cannot be
 * checked, says the IPN page), and sent alongside the webhook unless the notification_url carries
 * `source_news=webhooks`. It is acknowledged and ignored: the signed webhook of the same change is the
 * one acted on, and any other answer than 2xx is retried every 15 minutes without end.
 */
export function isIpnNotice(query: Record<string, unknown>): boolean {
  return query.topic !== undefined && query.type === undefined && query['data.id'] === undefined;
}

/** The notification URL as registered with each payment: webhooks only (no IPN), per the webhooks page. */
export function webhooksOnly(url: string): string {
  const registered = new URL(url);
  registered.searchParams.set('source_news', 'webhooks');
  return registered.toString();
}

/**
 * The chargeback a correctly signed notice names, for a notice of the `chargebacks` topic (decision
 * 0072): its `data.id` is the chargeback's. The chargebacks notifications page shows the topic as
 * `chargebacks` in the panel and `topic_chargebacks_wh` in its example body: both are read. Call it
 * once verifyPaymentNotification has checked the signature (it answered null: not a payment).
 */
export function chargebackOfNotification(notification: Pick<MercadoPagoNotification, 'dataId' | 'type'>) {
  if (notification.type !== 'chargebacks' && notification.type !== 'topic_chargebacks_wh') return null;
  return notification.dataId?.toLowerCase() || null;
}
