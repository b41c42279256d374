import type { GatewayPaymentData, PaymentSummary } from '../domain/checkout.ts';
import type { GatewayTransaction } from '../gateway/port.ts';

/** A gateway's transaction in the shape the workflows carry and the checkout shows. */

/** The gateway's transaction as the workflow carries it. */
export function summarize(t: GatewayTransaction): PaymentSummary {
  return {
    id: t.id,
    status: t.status,
    paymentType: t.paymentType,
    amount: t.amount,
    currency: t.currency,
    installments: t.installments,
    authorizationCode: t.authorizationCode,
    declineReason: t.declineReason,
    capturedAmount: t.capturedAmount,
    refundedAmount: t.refundedAmount,
    confirmedAt: t.confirmedAt,
    card: t.card,
    paymentData: paymentData(t),
  };
}

/** The checkout's gateway_payment_data: the spec's four fields, plus what a pix/boleto buyer needs to pay. */
function paymentData(t: GatewayTransaction): GatewayPaymentData {
  return {
    transaction_id: t.id,
    status: t.status,
    authorization_code: t.authorizationCode,
    installments: t.installments,
    ...(t.pix
      ? {
          pix: {
            qr_code: t.pix.qrCode,
            qr_code_image: t.pix.qrCodeImage,
            expires_at: t.pix.expiresAt,
            ...(t.pix.url ? { url: t.pix.url } : {}),
          },
        }
      : {}),
    ...(t.boleto
      ? {
          boleto: {
            barcode: t.boleto.barcode,
            digitable_line: t.boleto.digitableLine,
            due_date: t.boleto.dueDate,
            url: t.boleto.url,
          },
        }
      : {}),
    ...(t.threeDs ? { three_ds: { url: t.threeDs.url, creq: t.threeDs.creq } } : {}),
  };
}
