import { recurrenceBillingOf, type RecurrenceRails } from './checkout-eligibility.ts';
import type { PeriodInterval } from './periods.ts';
import {
  brasiliaDate,
  chargeSendDate,
  cycleDueDate,
  periodDueDate,
  type MandatePeriodicity,
  type MandateStatus,
} from './pix-automatico.ts';

/**
 * A mandate asked of an existing subscription's payer (decision 0098): journey 1 (a request pushed to
 * the payer's bank, which expires) or 2 (a QR code that only authorizes), run by the mandate's own
 * workflow until the payer answers; approved, the subscription bills its next periods through it.
 * Which subscriptions may ask, the mandate's first due date, and when the subscription switches.
 */

/**
 * The API's names of the journeys a merchant may start (journey 3 is the hosted checkout's):
 * `with_renewal` is journey 4, the recurrence offered in the QR code of the next renewal's pix
 * (decision 0100).
 */
export const MANDATE_REQUEST_JOURNEYS = {
  request: 'journey_1',
  qr_code: 'journey_2',
  with_renewal: 'journey_4',
} as const;
export type MandateRequestJourney = keyof typeof MANDATE_REQUEST_JOURNEYS;

/** How long the payer has to answer unless the merchant says otherwise, and the most it may say. */
export const DEFAULT_MANDATE_ANSWER_DAYS = 7;
export const MAX_MANDATE_ANSWER_DAYS = 30;
/** The gateway is asked again this often while the payer has not answered (notices only hasten it). */
export const MANDATE_REREAD_MS = 3_600_000;
/**
 * After the answer's deadline the gateway has this long to report the request expired; a mandate it
 * still keeps waiting is then withdrawn by the receiver, so that no late answer can approve it unseen.
 */
export const MANDATE_EXPIRY_GRACE_MS = 3_600_000;

export const mandateWorkflowId = (mandateId: string) => `mandate:${mandateId}`;
/** The mandate's creation at the gateway, and its withdrawal: once each, however often retried. */
export const mandateRequestKey = (mandateId: string) => `mandate:${mandateId}:create`;
export const mandateWithdrawKey = (mandateId: string) => `mandate:${mandateId}:withdraw`;

export interface MandateRequestRefusal {
  status: 409 | 422;
  code: string;
  message: string;
  detail: string;
}

export interface MandateRequestFacts {
  subscription: { status: string; recurrenceBilling: string; cancelAtPeriodEnd: boolean; currency: string };
  price: { id: string; type: 'one_time' | 'recurring'; interval: PeriodInterval | null; intervalCount: number | null };
  customer: { name: string | null; taxId: string | null };
  rails: RecurrenceRails;
  /** The status of the subscription's live mandate (created or approved), if it has one. */
  liveMandate: MandateStatus | null;
  /** The journey asked; `with_renewal` rides on a renewal paid by pix, so it needs one without a kept card. */
  journey?: MandateRequestJourney;
  /** A card is kept: its renewals are charged to it, never paid through a renewal checkout's pix. */
  hasCard?: boolean;
}

/**
 * Why a subscription's payer cannot be asked for a mandate: it is not an active (or trialing)
 * subscription billed manually, its price has no BCB periodicity or the gateway no rail (the
 * checkout's own rules), its customer has no name or tax id, or a mandate is pending or approved.
 */
export function mandateRequestRefusal(f: MandateRequestFacts): MandateRequestRefusal | null {
  const s = f.subscription;
  if (s.recurrenceBilling !== 'manual' || !['active', 'trialing'].includes(s.status) || s.cancelAtPeriodEnd) {
    return {
      status: 409,
      code: 'subscription_not_eligible',
      message: 'Only an active or trialing subscription billed manually can switch to Pix Automático',
      detail: `status ${s.status}, recurrence_billing ${s.recurrenceBilling}${s.cancelAtPeriodEnd ? ', canceling at period end' : ''}`,
    };
  }
  const billing = recurrenceBillingOf('pix_automatico', f.price, f.rails);
  if (typeof billing !== 'string') return { status: 422, ...billing };
  if (s.currency.toUpperCase() !== 'BRL') {
    return {
      status: 422,
      code: 'pix_automatico_not_allowed',
      message: 'Pix Automático bills subscriptions in BRL only',
      detail: `currency ${s.currency.toUpperCase()}`,
    };
  }
  if (!f.customer.name?.trim()) {
    return {
      status: 422,
      code: 'customer_name_required',
      message: 'The mandate names its debtor: the customer has no name',
      detail: 'customer.name',
    };
  }
  if (!f.customer.taxId) {
    return {
      status: 422,
      code: 'customer_tax_id_required',
      message: 'The mandate names its debtor: the customer has no CPF or CNPJ',
      detail: 'customer.tax_id',
    };
  }
  if (f.journey === 'with_renewal' && f.hasCard) {
    return {
      status: 422,
      code: 'payment_method_not_allowed',
      message: "Journey 4 offers the mandate in the renewal's pix QR code: this subscription renews on its card",
      detail: 'with_renewal needs a subscription renewed by pix (no kept card); ask with qr_code or request',
    };
  }
  if (f.liveMandate !== null) {
    return {
      status: 409,
      code: 'mandate_exists',
      message: `The subscription has a mandate ${f.liveMandate === 'created' ? 'waiting for the payer' : 'approved'} already`,
      detail: 'A rejected, expired or cancelled mandate may be replaced; a live one is revoked first',
    };
  }
  return null;
}

/**
 * The first due date a new mandate bills (its start): the subscription's next period's, when its
 * charge can still be sent in the window before it; else the period's after.
 */
export function firstMandateDueDate(periodEnd: number, periodicity: MandatePeriodicity, now: number): string {
  const due = periodDueDate(periodEnd);
  return chargeSendDate(due, brasiliaDate(now)) !== null ? due : cycleDueDate(due, periodicity, 2);
}

/** The payer's bank account a journey 1 request is pushed to (the BCB's solicrec `destinatario`). */
export interface PayerBankAccount {
  /** Their bank's participant code (ISPB): 8 digits or capital letters. */
  ispb: string;
  /** 1–4 digits. */
  agency: string;
  /** 1–20 digits, its check digit included (no hyphen). */
  account: string;
}

const PAYER_ACCOUNT_RULES: { field: keyof PayerBankAccount; pattern: RegExp; says: string }[] = [
  { field: 'ispb', pattern: /^[0-9A-Z]{8}$/, says: "the payer's bank's ISPB: 8 digits or capital letters" },
  { field: 'agency', pattern: /^\d{1,4}$/, says: 'the agency: 1 to 4 digits' },
  { field: 'account', pattern: /^\d{1,20}$/, says: 'the account: 1 to 20 digits, its check digit included, no hyphen' },
];

/**
 * Why a mandate request's payer account cannot be taken: given for a QR code (only a request goes to an
 * account), missing where the gateway needs it to push the request (`required`: Efí), or not an ISPB,
 * agency and account in the BCB's shapes. Null: taken (or rightly absent).
 */
export function payerAccountRefusal(
  journey: MandateRequestJourney,
  account: PayerBankAccount | null,
  required: boolean,
): MandateRequestRefusal | null {
  if (account === null) {
    if (journey !== 'request' || !required) return null;
    return {
      status: 422,
      code: 'payer_account_required',
      message: "This gateway pushes the request to the payer's bank account: give payer_account",
      detail: 'payer_account (ispb, agency, account), or journey qr_code',
    };
  }
  if (journey !== 'request') {
    return {
      status: 422,
      code: 'invalid_payer_account',
      message: "Only a request (journey request) goes to the payer's account; a QR code takes none",
      detail: 'payer_account',
    };
  }
  for (const rule of PAYER_ACCOUNT_RULES) {
    if (!rule.pattern.test(account[rule.field])) {
      return {
        status: 422,
        code: 'invalid_payer_account',
        message: `Not a payer account the BCB takes: ${rule.says}`,
        detail: `payer_account.${rule.field}`,
      };
    }
  }
  return null;
}

/**
 * Journey 4 (decision 0100): the renewal's pix the QR code pays is due on the next period's due date
 * (its Brasília day) and payable until the payer's deadline, `answerBy` (the renewal checkout stays open
 * as long); the mandate it offers starts with the period after, the renewal paying the one before it.
 */
export function renewalMandateTerms(
  periodEnd: number,
  periodicity: MandatePeriodicity,
  answerBy: number,
): { dueDate: string; daysPayableAfterDue: number; startDate: string } {
  const dueDate = periodDueDate(periodEnd);
  const days = Math.round((Date.parse(brasiliaDate(answerBy)) - Date.parse(dueDate)) / 86_400_000);
  return { dueDate, daysPayableAfterDue: Math.max(0, days), startDate: cycleDueDate(dueDate, periodicity, 2) };
}

/** Journey 4's deadline: the end of the Brasília day `days` after the next period's due date. */
export function renewalAnswerBy(periodEnd: number, days: number): string {
  const due = Date.parse(`${periodDueDate(periodEnd)}T23:59:59.000-03:00`);
  return new Date(due + days * 86_400_000).toISOString();
}

/**
 * Whether a renewal checkout's pix is the journey 4 mandate's due-date charge: the subscription's live
 * mandate is a journey 4 one still waiting for its payer, and its charge is for the amount the
 * checkout asks (a renewal whose amount changed since is paid by a pix of its own; the offer expires).
 */
export function renewalPixRidesOnMandate(
  mandate: { status: MandateStatus; journey: string; firstPaymentId: string | null } | null,
  charge: { amount: number; status: string } | null,
  checkoutAmount: number,
): boolean {
  return (
    mandate?.status === 'created' &&
    mandate.journey === 'journey_4' &&
    mandate.firstPaymentId !== null &&
    charge?.status === 'pending' &&
    charge.amount === checkoutAmount
  );
}
