import { Chargeback, Payment } from 'mercadopago';
import type { GatewayChargeback, GatewayDisputeStatus } from '../contracts/gateway-records.ts';
import { reaisToCents } from './mercadopago-money.ts';
import type { MercadoPagoCalls } from './mercadopago-cards.ts';
import type { MpPayment } from './mercadopago-payments.ts';
import { GatewayError } from './port.ts';

/**
 * `GET /v1/chargebacks/:id` (the chargebacks API reference; the SDK's `Chargeback` client), and the
 * payment it disputes (decision 0072). The reference and the SDK describe the chargeback two ways:
 * the reference's `payments` (ids), `currency`, `amount`, `coverage_applied` and `documentation_status`;
 * the SDK's `payment_id`, `currency_id` and `status` (`new`, `in_review`, `won`, `lost`). Both are read.
 * Its outcome is also on the payment (the payment status table): `charged_back` with `status_detail`
 * `in_process` (open), `settled` (the money went back to the buyer: lost) or `reimbursed` (it came back
 * to the seller: won).
 */
export interface MpChargeback {
  id?: string | number;
  /** The SDK's. */
  payment_id?: number | string;
  status?: string;
  currency_id?: string;
  /** The reference's. */
  payments?: (number | string)[];
  currency?: string;
  amount?: number;
  coverage_applied?: boolean;
  documentation_status?: string;
}

export async function readChargeback(mp: MercadoPagoCalls, chargebackId: string): Promise<GatewayChargeback | null> {
  const chargeback = await orNull(
    mp.sdk(`GET /v1/chargebacks/${chargebackId}`, () =>
      new Chargeback(mp.config(`get-chargeback-${chargebackId}`)).get({ id: chargebackId }),
    ),
  );
  if (!chargeback?.id) return null;
  const c = chargeback as MpChargeback;
  const paymentId = c.payment_id ?? c.payments?.[0];
  if (paymentId === undefined || paymentId === null) return null;
  const payment = await orNull(
    mp.sdk(`GET /v1/payments/${paymentId}`, () =>
      new Payment(mp.config(`get-${paymentId}`)).get({ id: String(paymentId) }),
    ),
  );
  return {
    id: String(c.id),
    transactionId: String(paymentId),
    amount: reaisToCents(c.amount ?? payment?.transaction_amount ?? 0),
    currency: (c.currency ?? c.currency_id ?? payment?.currency_id ?? 'BRL').toUpperCase(),
    status: disputeStatus(c, payment as MpPayment | null),
  };
}

/** Decided when the chargeback or its payment says so; open until then. */
export function disputeStatus(c: MpChargeback, payment: Pick<MpPayment, 'status' | 'status_detail'> | null) {
  const said: GatewayDisputeStatus | null = c.status === 'won' || c.status === 'lost' ? c.status : null;
  if (said) return said;
  if (payment?.status === 'charged_back' && payment.status_detail === 'settled') return 'lost';
  if (payment?.status === 'charged_back' && payment.status_detail === 'reimbursed') return 'won';
  if (c.coverage_applied === true) return 'won';
  if (c.documentation_status === 'invalid' || c.documentation_status === 'not_supplied') return 'lost';
  return 'opened';
}

const orNull = <T>(call: Promise<T>): Promise<T | null> =>
  call.catch((err: unknown) => {
    // The adapter's errors carry Mercado Pago's HTTP status (MercadoPagoGatewayError).
    if (err instanceof GatewayError && (err as GatewayError & { status?: number }).status === 404) return null;
    throw err;
  });
