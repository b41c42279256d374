import type { MpPayment } from '../../gateway/mercadopago-payments.ts';

/**
 * The fake's release report (Mercado Pago's reports/released-money guide): `POST
 * /v1/account/release_report` asks for one (202, built later), `GET …/list` lists them (a report is
 * ready, with its `file_name`, from the first listing after it was asked for), `GET …/:file_name`
 * downloads its CSV in the columns of the guide's example. Each approved payment is released at its
 * `money_release_date` (GROSS_AMOUNT its transaction_amount, MP_FEE_AMOUNT the fake's fee below): its
 * approval plus `releaseDelayMs`, the account's release setting (0: at once; Mercado Pago's card default
 * is 14 or 30 days), each row dated by release as the report's DATE is; each refund at its date. A payment in `releasedByInstallment` releases only its first instalment's share then
 * (the account set to receive card sales by instalment; odd cents on the first), its fee with it, and
 * the row says, as Mercado Pago's does, how many instalments the payment has, not which one it is.
 * `extraLines` are raw CSV records a test adds (a dispute hold, a withholding, an account's payout).
 */

export const RELEASE_REPORT_COLUMNS =
  'DATE,SOURCE_ID,EXTERNAL_REFERENCE,RECORD_TYPE,DESCRIPTION,NET_CREDIT_AMOUNT,NET_DEBIT_AMOUNT,GROSS_AMOUNT,' +
  'MP_FEE_AMOUNT,FINANCING_FEE_AMOUNT,SHIPPING_FEE_AMOUNT,TAXES_AMOUNT,COUPON_AMOUNT,INSTALLMENTS,PAYMENT_METHOD';

/** The fake account's fee: 4.99 % of a card payment, 0.99 % of a pix or boleto, rounded to the cent. */
export function fakeReleaseFee(payment: MpPayment & Record<string, any>): number {
  const rate = payment.payment_type_id === 'credit_card' ? 4.99 : 0.99;
  return Math.round(payment.transaction_amount! * rate) / 100;
}

const money = (reais: number) => reais.toFixed(2);

interface Report {
  id: number;
  begin_date: string;
  end_date: string;
  file_name: string | null;
  created_from: 'manual';
  date_created: string;
}

type Reply = { statusCode: number; data: object | string };

export class FakeReleaseReports {
  readonly reports: Report[] = [];
  readonly extraLines: string[] = [];
  readonly releasedByInstallment = new Set<string>();
  /** How long after its approval a payment's money is released to the balance (the account's setting). */
  releaseDelayMs = 0;
  private nextId = 1;

  /** The payment's `money_release_date`, as `GET /v1/payments/:id` shows it; null until approved. */
  releaseDateOf(p: MpPayment): string | null {
    if (!p.date_approved) return null;
    return new Date(Date.parse(p.date_approved) + this.releaseDelayMs).toISOString();
  }

  private readonly payments: Map<string, MpPayment & Record<string, any>>;

  constructor(payments: Map<string, MpPayment & Record<string, any>>) {
    this.payments = payments;
  }

  route(method: string, path: string, body: Record<string, any>): Reply | null {
    if (method === 'POST' && path === '/v1/account/release_report') {
      const report: Report = {
        id: this.nextId++,
        begin_date: String(body.begin_date),
        end_date: String(body.end_date),
        file_name: null,
        created_from: 'manual',
        date_created: new Date().toISOString(),
      };
      this.reports.push(report);
      return { statusCode: 202, data: { ...report, status: 'pending' } };
    }
    if (method === 'GET' && path === '/v1/account/release_report/list') {
      for (const r of this.reports) r.file_name ??= `release-report-fake-${r.id}.csv`;
      return { statusCode: 200, data: this.reports };
    }
    const m = /^\/v1\/account\/release_report\/([^/]+\.csv)$/.exec(path);
    if (method === 'GET' && m) {
      const report = this.reports.find((r) => r.file_name === decodeURIComponent(m[1]!));
      if (!report) return { statusCode: 404, data: { message: 'report not found', error: 'not_found', status: 404 } };
      return { statusCode: 200, data: this.csv(report) };
    }
    return null;
  }

  private csv(report: Report): string {
    const from = Date.parse(report.begin_date);
    const to = Date.parse(report.end_date) + 1_000;
    const inRange = (at: string | null | undefined) => !!at && Date.parse(at) >= from && Date.parse(at) < to;
    const lines = [
      RELEASE_REPORT_COLUMNS,
      `${report.begin_date},,,initial_available_balance,,0.00,0.00,0.00,0.00,0.00,0.00,0.00,0.00,1,`,
    ];
    for (const p of this.payments.values()) {
      const released = p.captured !== false && ['approved', 'refunded'].includes(p.status ?? '');
      const releaseDate = this.releaseDateOf(p);
      if (released && inRange(releaseDate)) {
        const n = this.releasedByInstallment.has(String(p.id)) ? Number(p.installments ?? 1) : 1;
        const cents = Math.round(p.transaction_amount! * 100);
        const gross = (Math.floor(cents / n) + (cents % n > 0 ? 1 : 0)) / 100;
        const fee = fakeReleaseFee(p);
        lines.push(
          [
            releaseDate,
            p.id,
            p.external_reference ?? '',
            'release',
            'payment',
            money(gross - fee),
            '0.00',
            money(gross),
            money(-fee),
            '0.00',
            '0.00',
            '0.00',
            '0.00',
            p.installments ?? 1,
            p.payment_method_id,
          ].join(','),
        );
      }
      for (const refund of (p.refunds ?? []) as { amount: number; date_created: string }[]) {
        if (!inRange(refund.date_created)) continue;
        lines.push(
          [
            refund.date_created,
            p.id,
            p.external_reference ?? '',
            'release',
            'refund',
            '0.00',
            money(refund.amount),
            money(-refund.amount),
            '0.00',
            '0.00',
            '0.00',
            '0.00',
            '0.00',
            p.installments ?? 1,
            p.payment_method_id,
          ].join(','),
        );
      }
    }
    lines.push(...this.extraLines);
    lines.push(`${report.end_date},,,subtotal,,0.00,0.00,0.00,0.00,0.00,0.00,0.00,0.00,1,`);
    return `${lines.join('\n')}\n`;
  }
}
