import type { EntityManager } from '@mikro-orm/postgresql';
import { ApplicationFailure } from '@temporalio/activity';
import type { GatewayMandate, GatewayMandateCharge, MandateCycle } from '../contracts/pix-automatico.ts';
import type { SubscriptionActivities } from '../contracts/subscription.ts';
import { insertEvents, type EventType } from '../db/events.ts';
import {
  chargeOfReference,
  chargesOfMandate,
  upsertMandateCharge,
  type MandateChargeRow,
} from '../db/mandate/charges.ts';
import { mandateOfSubscription, upsertMandate, type MandateRow } from '../db/mandate/mandates.ts';
import type { Orm } from '../db/orm.ts';
import { checkoutMandateId } from '../db/checkout/mandate-reads.ts';
import { findSubscription } from '../db/subscription/rows.ts';
import type { PaymentSummary } from '../domain/checkout.ts';
import { applyBalance } from '../domain/proration.ts';
import {
  isChargeFinal,
  isMandateFinal,
  MANDATE_NOT_ACTIVE,
  mandateCancelKey,
  mandateChargeKey,
  mandateRetryKey,
  settlementDateOf,
  type MandateStatus,
} from '../domain/pix-automatico.ts';
import { offersPixAutomatico, offersSandboxPixAutomatico } from '../gateway/capabilities.ts';
import { GatewayError, type PaymentGateway, type PixAutomatico } from '../gateway/port.ts';
import { mandateChargeEventData, mandateEventData } from '../use-cases/schemas/mandates.ts';
import { callGateway } from './gateway-failures.ts';
import { amountOf } from './subscriptions.ts';
import { lockedTerms } from './subscription-lifecycle.ts';

type Events = [EventType, Record<string, unknown>][];

/**
 * A Pix Automático subscription's periods through its mandate (decision 0096), run by its workflow
 * (workflows/subscription-pix-automatico.ts). Each gateway call is keyed by the period (and the retry's
 * number), so a retried activity finds what the first did; what the gateway answers is written through
 * the mandate's repository, whose statuses only move forward, with its `mandate.*` events in the same
 * transaction. The gateway's answer is never taken from a notice: always read back.
 */
export function createMandateCycleActivities(deps: { orm: Orm; gateway: PaymentGateway }) {
  const rail = (): PixAutomatico => {
    if (!offersPixAutomatico(deps.gateway)) {
      throw ApplicationFailure.nonRetryable('The gateway offers no Pix Automático', 'NoPixAutomatico');
    }
    return deps.gateway;
  };

  return { ...cycleActivities(deps, rail), ...mandateActivities(deps, rail) };
}

/** A period's charge: sent, read back, retried. */
function cycleActivities(deps: { orm: Orm; gateway: PaymentGateway }, rail: () => PixAutomatico) {
  return {
    async sendMandateCharge(input: { subscriptionId: string; period: number; dueDate: string }): Promise<MandateCycle> {
      const em = deps.orm.em.fork();
      const mandate = await mandateOfSubscription(em, input.subscriptionId);
      if (!mandate) return { sent: false, refusal: MANDATE_NOT_ACTIVE };
      const gateway = rail();
      // Its own sight first: a payer's revocation the notice has not brought yet still stops the charge.
      const seen = await syncMandate(deps.orm, gateway, mandate);
      if (seen.status !== 'approved') return { sent: false, refusal: MANDATE_NOT_ACTIVE };
      const t = await lockedTerms(em, input.subscriptionId);
      const { charge: amount } = applyBalance(await amountOf(em, t, input.period), t.balanceAmount);
      const key = mandateChargeKey(input.subscriptionId, input.period);
      let charge: GatewayMandateCharge;
      try {
        charge = await callGateway(() =>
          gateway.createMandateCharge(
            {
              mandateId: mandate.gatewayMandateId,
              reference: key,
              dueDate: input.dueDate,
              amount,
              description: `Período ${input.period}`,
            },
            key,
          ),
        );
      } catch (err) {
        const refusal = definiteRefusal(err);
        if (refusal === null) throw err;
        return { sent: false, refusal };
      }
      return recordCharge(deps.orm, seen, input.period, charge, 0, ['mandate.charge_created']);
    },

    async readMandateCharge(input: { subscriptionId: string; period: number; asOf: string }): Promise<MandateCycle> {
      const em = deps.orm.em.fork();
      const { mandate, row } = await chargeOf(em, input.subscriptionId, input.period);
      const gateway = rail();
      // The sandbox's payer's bank settles what falls due by the subscription's day (its test clock's).
      if (offersSandboxPixAutomatico(deps.gateway)) {
        await callGateway(() => (deps.gateway as unknown as SandboxSettle).settleMandateCharges(input.asOf));
      }
      const charge = await readCharge(gateway, row.gatewayChargeId);
      const seen = await syncMandate(deps.orm, gateway, mandate);
      return recordCharge(deps.orm, seen, input.period, charge, row.retriesRequested, []);
    },

    async retryMandateCharge(input: {
      subscriptionId: string;
      period: number;
      retry: number;
      settlementDate: string;
    }): Promise<MandateCycle> {
      const em = deps.orm.em.fork();
      const { mandate, row } = await chargeOf(em, input.subscriptionId, input.period);
      const gateway = rail();
      const key = mandateRetryKey(input.subscriptionId, input.period, input.retry);
      try {
        const charge = await callGateway(() =>
          gateway.retryMandateCharge(row.gatewayChargeId, input.settlementDate, key),
        );
        return recordCharge(deps.orm, mandate, input.period, charge, input.retry, ['mandate.charge_retry_requested']);
      } catch (err) {
        if (definiteRefusal(err) === null) throw err;
        // Refused: the charge as it stands (its workflow sees no new attempt, and dunning ends).
        const charge = await readCharge(gateway, row.gatewayChargeId);
        return recordCharge(deps.orm, mandate, input.period, charge, row.retriesRequested, []);
      }
    },
  } satisfies Pick<SubscriptionActivities, 'sendMandateCharge' | 'readMandateCharge' | 'retryMandateCharge'>;
}

/** The mandate itself: adopted from its checkout by the new subscription, cancelled when it ends. */
function mandateActivities(deps: { orm: Orm; gateway: PaymentGateway }, rail: () => PixAutomatico) {
  return {
    /**
     * A new Pix Automático subscription adopts the mandate its checkout's pix authorized (journey 3): the
     * gateway's id kept on the checkout, read back from the gateway and written with its events. Once.
     */
    async adoptCheckoutMandate(subscriptionId: string): Promise<void> {
      const em = deps.orm.em.fork();
      if (await mandateOfSubscription(em, subscriptionId)) return;
      const s = await findSubscription(em, subscriptionId);
      const gatewayMandateId = s?.checkoutId ? await checkoutMandateId(em, s.checkoutId) : null;
      if (!s || !gatewayMandateId) return;
      const seen = await callGateway(() => rail().getMandate(gatewayMandateId));
      const owner = {
        organizationId: s.organizationId,
        subscriptionId,
        customerId: s.customerId,
        currency: s.currency,
      };
      if (seen) await writeMandate(deps.orm, owner, seen, null);
    },

    /**
     * The ended subscription's mandate, cancelled by the receiver (unless it ended already), and the
     * charges the gateway cancelled with it read back, so our books show them cancelled too.
     */
    async cancelMandate(subscriptionId: string): Promise<void> {
      const em = deps.orm.em.fork();
      const mandate = await mandateOfSubscription(em, subscriptionId);
      if (!mandate) return;
      const gateway = rail();
      if (!isMandateFinal(mandate.status)) {
        try {
          await callGateway(() => gateway.cancelMandate(mandate.gatewayMandateId, mandateCancelKey(subscriptionId)));
        } catch (err) {
          if (definiteRefusal(err) === null) throw err; // ended at the gateway already: read below
        }
      }
      await syncEndedCharges(deps.orm, gateway, await syncMandate(deps.orm, gateway, mandate));
    },

    /** The gateway said the mandate moved (a notice): its state as the gateway has it now, written. */
    async syncSubscriptionMandate(subscriptionId: string): Promise<void> {
      const mandate = await mandateOfSubscription(deps.orm.em.fork(), subscriptionId);
      if (!mandate) return;
      const gateway = rail();
      await syncEndedCharges(deps.orm, gateway, await syncMandate(deps.orm, gateway, mandate));
    },
  } satisfies Pick<SubscriptionActivities, 'adoptCheckoutMandate' | 'cancelMandate' | 'syncSubscriptionMandate'>;
}

interface SandboxSettle {
  settleMandateCharges(asOf: string): Promise<unknown>;
}

/** A definite refusal of the gateway (not retryable): its message, as the period's refusal reason. */
function definiteRefusal(err: unknown): string | null {
  const cause = err instanceof ApplicationFailure ? err.cause : err;
  if (err instanceof GatewayError && !err.retryable) return 'gateway_refused';
  if (cause instanceof GatewayError && !cause.retryable) return 'gateway_refused';
  if (err instanceof ApplicationFailure && err.nonRetryable) return 'gateway_refused';
  return null;
}

async function readCharge(gateway: PixAutomatico, chargeId: string): Promise<GatewayMandateCharge> {
  const charge = await callGateway(() => gateway.getMandateCharge(chargeId));
  if (!charge)
    throw ApplicationFailure.nonRetryable(`Gateway has no mandate charge ${chargeId}`, 'UnknownMandateCharge');
  return charge;
}

async function chargeOf(
  em: EntityManager,
  subscriptionId: string,
  period: number,
): Promise<{ mandate: MandateRow; row: MandateChargeRow }> {
  const mandate = await mandateOfSubscription(em, subscriptionId);
  const row = mandate ? await chargeOfReference(em, mandateChargeKey(subscriptionId, period)) : null;
  if (!mandate || !row) {
    throw ApplicationFailure.nonRetryable(`No mandate charge of ${subscriptionId} period ${period}`, 'NoMandateCharge');
  }
  return { mandate, row };
}

/** The mandate as the gateway has it now, written (with its event when its status moved). */
export async function syncMandate(orm: Orm, gateway: PixAutomatico, mandate: MandateRow): Promise<MandateRow> {
  const seen = await callGateway(() => gateway.getMandate(mandate.gatewayMandateId));
  return seen ? writeMandate(orm, mandate, seen, mandate.status) : mandate;
}

/**
 * An ended mandate's charges not settled in our books, read back: the gateway cancels them with the
 * mandate (the payer's bank drops its schedule), and no period's run reads them again once it has ended.
 */
async function syncEndedCharges(orm: Orm, gateway: PixAutomatico, mandate: MandateRow): Promise<void> {
  if (!isMandateFinal(mandate.status)) return;
  const open = (await chargesOfMandate(orm.em.fork(), mandate.id)).filter((c) => !isChargeFinal(c.status));
  for (const row of open) {
    const charge = await readCharge(gateway, row.gatewayChargeId);
    await recordCharge(orm, mandate, row.period, charge, row.retriesRequested, []);
  }
}

/**
 * A sight of the mandate written through its repository, with `mandate.created` on the first and
 * `mandate.<status>` whenever its status moved (a stale or repeated sight writes nothing).
 */
export async function writeMandate(
  orm: Orm,
  owner: { organizationId: string; subscriptionId: string; customerId: string; currency: string },
  seen: GatewayMandate,
  known: MandateStatus | null,
  id?: string,
): Promise<MandateRow> {
  return orm.em.fork().transactional(async (tx) => {
    const { organizationId, subscriptionId, customerId, currency } = owner;
    const written = await upsertMandate(
      tx,
      { organizationId, subscriptionId, customerId, currency, gateway: seen, ...(id ? { id } : {}) },
      new Date(),
    );
    const { row, previousStatus } = written;
    const events: Events = [];
    const data = mandateEventData(row);
    if (previousStatus === null) events.push(['mandate.created', data]);
    if ((previousStatus ?? known ?? 'created') !== row.status)
      events.push([`mandate.${row.status}` as EventType, data]);
    await insertEvents(tx, organizationId, events);
    return row;
  });
}

/**
 * The charge as the gateway answered it, written with the events of what moved: `extra` (created, a
 * retry asked), each attempt failed since the last sight, and paid or failed for good.
 */
async function recordCharge(
  orm: Orm,
  mandate: MandateRow,
  period: number,
  charge: GatewayMandateCharge,
  retriesRequested: number,
  extra: EventType[],
): Promise<MandateCycle> {
  const row = await orm.em.fork().transactional(async (tx) => {
    const written = await upsertMandateCharge(
      tx,
      {
        organizationId: mandate.organizationId,
        mandateId: mandate.id,
        subscriptionId: mandate.subscriptionId,
        period,
        settlementDate: settlementDateOf(charge.dueDate),
        retriesRequested,
        gateway: charge,
      },
      new Date(),
    );
    const data = mandateChargeEventData(written.row);
    const events: Events = extra.map((type) => [type, data]);
    for (let i = 0; i < written.newFailures.length; i++) events.push(['mandate.charge_attempt_failed', data]);
    if (written.previousStatus !== written.row.status) {
      if (written.row.status === 'completed') events.push(['mandate.charge_paid', data]);
      else if (['expired', 'rejected', 'cancelled'].includes(written.row.status)) {
        events.push(['mandate.charge_failed', data]);
      }
    }
    await insertEvents(tx, mandate.organizationId, events);
    return written.row;
  });
  return {
    sent: true,
    chargeId: row.gatewayChargeId,
    amount: Number(row.amount),
    currency: mandate.currency.toUpperCase(),
    status: row.status,
    retryPolicy: charge.retryPolicy,
    periodicity: mandate.periodicity,
    retriesRequested: row.retriesRequested,
    attempts: row.attempts,
    mandateStatus: mandate.status,
    payment: row.status === 'completed' ? paymentOf(charge, mandate.currency) : null,
  };
}

/** A paid charge as the period's pix payment: what the renewal's sale and transaction record. */
function paymentOf(charge: GatewayMandateCharge, currency: string): PaymentSummary {
  const paid = charge.attempts.find((a) => a.status === 'paid');
  return {
    id: charge.id,
    status: 'succeeded',
    paymentType: 'pix',
    amount: charge.amount,
    currency: currency.toUpperCase(),
    installments: 1,
    authorizationCode: paid?.endToEndId ?? null,
    declineReason: null,
    capturedAmount: charge.amount,
    refundedAmount: 0,
    confirmedAt: charge.paidAt,
    card: null,
    paymentData: {
      transaction_id: charge.id,
      status: 'succeeded',
      authorization_code: paid?.endToEndId ?? null,
      installments: 1,
    },
  };
}
