import { defineEntity, p } from '@mikro-orm/core';
import type { GatewayMandate, GatewayMandateAttempt, StatusChange } from '../../contracts/pix-automatico.ts';
import type {
  MandateCancelledBy,
  MandateChargeStatus,
  MandateJourney,
  MandatePeriodicity,
  MandateRetryPolicy,
  MandateStatus,
} from '../../domain/pix-automatico.ts';

/** A subscription's Pix Automático mandate, as the gateway last reported it (migration 0034, decision 0096). */
export const Mandate = defineEntity({
  name: 'Mandate',
  tableName: 'mandates',
  properties: {
    id: p.uuid().primary(),
    organizationId: p.uuid(),
    /** One live (created or approved) mandate per subscription (migration 0036's partial index). */
    subscriptionId: p.uuid(),
    customerId: p.uuid(),
    gatewayMandateId: p.string().unique(),
    status: p.enum(['created', 'approved', 'rejected', 'expired', 'cancelled'] as const satisfies MandateStatus[]),
    journey: p.string().$type<MandateJourney>(),
    periodicity: p.string().$type<MandatePeriodicity>(),
    retryPolicy: p.string().$type<MandateRetryPolicy>(),
    /** YYYY-MM-DD. */
    startDate: p.date(),
    endDate: p.date().nullable(),
    fixedAmount: p.bigint('number').nullable(),
    minimumAmount: p.bigint('number').nullable(),
    payerMaximum: p.bigint('number').nullable(),
    currency: p.string(),
    objectLabel: p.string(),
    debtorName: p.string(),
    debtorTaxId: p.string(),
    qrCode: p.text().nullable(),
    /** Journey 4: the gateway's id of the due-date charge its QR code pays, from its creation (migration 0038). */
    firstPaymentId: p.text().nullable(),
    /** Journey 1: its request to the payer's bank, as last seen (migration 0036). */
    request: p.json<GatewayMandate['request']>().nullable(),
    rejectionCode: p.string().nullable(),
    rejectionDescription: p.string().nullable(),
    cancelledBy: p.string().$type<MandateCancelledBy>().nullable(),
    cancellationCode: p.string().nullable(),
    cancellationDescription: p.string().nullable(),
    /** Our list of the status changes seen, oldest first. */
    history: p.json<StatusChange<MandateStatus>[]>(),
    approvedAt: p.datetime().nullable(),
    endedAt: p.datetime().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});

/** One cycle's charge of a mandate (the BCB's `cobr`), with its settlement tries. */
export const MandateCharge = defineEntity({
  name: 'MandateCharge',
  tableName: 'mandate_charges',
  properties: {
    id: p.uuid().primary(),
    organizationId: p.uuid(),
    mandateId: p.uuid(),
    subscriptionId: p.uuid(),
    period: p.integer(),
    gatewayChargeId: p.string().unique(),
    /** Ours (domain/pix-automatico.ts mandateChargeKey): one charge per subscription and period. */
    reference: p.string().unique(),
    dueDate: p.date(),
    settlementDate: p.date(),
    amount: p.bigint('number'),
    status: p.enum([
      'created',
      'active',
      'completed',
      'expired',
      'rejected',
      'cancelled',
    ] as const satisfies MandateChargeStatus[]),
    /** How many later-day retries we asked for (0–3). */
    retriesRequested: p.integer().default(0),
    /** The last failed attempt's rejection code, or `insufficient_funds`; null while none failed. */
    failureReason: p.string().nullable(),
    attempts: p.json<GatewayMandateAttempt[]>(),
    paidAt: p.datetime().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
