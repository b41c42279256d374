import type { GatewayMandateAttempt } from '../../contracts/pix-automatico.ts';
import type { MandateChargeRow } from '../../db/mandate/charges.ts';
import type { MandateRow } from '../../db/mandate/mandates.ts';
import { attemptFailureReason } from '../../domain/pix-automatico.ts';
import { describePixReason } from '../../domain/pix-reason-codes.ts';
import { iso } from './common.ts';

/**
 * A Pix Automático mandate and its charges as the API answers them and their events carry them
 * (`mandate.*`, decision 0096): the activities that write the rows build their events' data here.
 */

const failed = (attempt: GatewayMandateAttempt) => attempt.status === 'rejected' || attempt.status === 'expired';

/** One settlement try, its failure's code and its words. */
export function presentMandateAttempt(attempt: GatewayMandateAttempt) {
  const reason = failed(attempt) ? attemptFailureReason(attempt) : null;
  return {
    settlement_date: attempt.settlementDate,
    kind: attempt.kind,
    status: attempt.status,
    end_to_end_id: attempt.endToEndId,
    rejection_code: attempt.rejection?.code ?? null,
    failure_reason: reason,
    failure_description: reason === null ? null : describePixReason(reason, attempt.rejection?.description),
  };
}

/** The mandate's record (`mandate.created`, `.approved`, `.rejected`, `.expired`, `.cancelled`). */
export function mandateEventData(row: MandateRow) {
  return {
    id: row.id,
    organization_id: row.organizationId,
    subscription_id: row.subscriptionId,
    customer_id: row.customerId,
    gateway_mandate_id: row.gatewayMandateId,
    status: row.status,
    journey: row.journey,
    periodicity: row.periodicity,
    retry_policy: row.retryPolicy,
    start_date: row.startDate,
    end_date: row.endDate,
    fixed_amount: row.fixedAmount,
    minimum_amount: row.minimumAmount,
    payer_maximum: row.payerMaximum,
    currency: row.currency.toUpperCase(),
    object_label: row.objectLabel,
    debtor: { name: row.debtorName, tax_id: row.debtorTaxId },
    qr_code: row.qrCode,
    request:
      row.request === null
        ? null
        : { id: row.request.id, status: row.request.status, expires_at: row.request.expiresAt },
    rejection:
      row.rejectionCode === null
        ? null
        : { code: row.rejectionCode, description: describePixReason(row.rejectionCode, row.rejectionDescription) },
    cancellation:
      row.cancellationCode === null
        ? null
        : {
            by: row.cancelledBy,
            code: row.cancellationCode,
            description: describePixReason(row.cancellationCode, row.cancellationDescription),
          },
    history: row.history.map((change) => ({ status: change.status, at: change.at })),
    approved_at: iso(row.approvedAt),
    ended_at: iso(row.endedAt),
    created_at: iso(row.createdAt)!,
    updated_at: iso(row.updatedAt)!,
  };
}

/** A cycle's charge (`mandate.charge_created`, `.charge_attempt_failed`, `.charge_retry_requested`, `.charge_paid`, `.charge_failed`). */
export function mandateChargeEventData(row: MandateChargeRow) {
  return {
    id: row.id,
    organization_id: row.organizationId,
    mandate_id: row.mandateId,
    subscription_id: row.subscriptionId,
    gateway_charge_id: row.gatewayChargeId,
    period: row.period,
    due_date: row.dueDate,
    settlement_date: row.settlementDate,
    amount: row.amount,
    status: row.status,
    retries_requested: row.retriesRequested,
    failure_reason: row.failureReason,
    failure_description: row.failureReason === null ? null : describePixReason(row.failureReason),
    attempts: row.attempts.map(presentMandateAttempt),
    paid_at: iso(row.paidAt),
    created_at: iso(row.createdAt)!,
    updated_at: iso(row.updatedAt)!,
  };
}

/** GET /mandates/{id}: the mandate and its charges, by period. */
export function presentMandateDetail(row: MandateRow, charges: readonly MandateChargeRow[]) {
  return { ...mandateEventData(row), charges: charges.map(mandateChargeEventData) };
}
