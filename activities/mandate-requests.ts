import { ApplicationFailure } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type { Config } from '../config/env.ts';
import {
  MANDATE_EXISTS,
  type MandateActivities,
  type MandateRecord,
  type MandateSight,
  type MandateWorkflowInput,
} from '../contracts/mandate.ts';
import type { SubscriptionActivities } from '../contracts/subscription.ts';
import { productNames } from '../db/catalog/labels.ts';
import { checkoutPriceTerms } from '../db/catalog/checkout-reads.ts';
import { findCustomerByKey } from '../db/customer/customers.ts';
import { insertEvents } from '../db/events.ts';
import { mandateById, mandateOfSubscription, type MandateRow } from '../db/mandate/mandates.ts';
import type { Orm } from '../db/orm.ts';
import { subscriptionRecord } from '../db/subscription/record.ts';
import { findSubscription, writeRecurrenceBilling } from '../db/subscription/rows.ts';
import {
  firstMandateDueDate,
  MANDATE_REQUEST_JOURNEYS,
  mandateRequestKey,
  mandateWithdrawKey,
} from '../domain/mandate-requests.ts';
import { periodicityOf } from '../domain/pix-automatico.ts';
import { subscriptionHasEnded } from '../domain/subscriptions.ts';
import { offersPixAutomatico } from '../gateway/capabilities.ts';
import type { PaymentGateway, PixAutomatico } from '../gateway/port.ts';
import { mandateEventData } from '../use-cases/schemas/mandates.ts';
import { callGateway, refusalReason } from './gateway-failures.ts';
import { renewalForMandate } from './mandate-renewals.ts';
import { syncMandate, writeMandate } from './mandate-cycles.ts';
import { lockedTerms } from './subscription-lifecycle.ts';

/** Journey 4 opens the renewal checkout it rides on: the worker's client and configuration. */
type MandateRequestDeps = { orm: Orm; gateway: PaymentGateway; temporal?: Client; config?: Config };

/**
 * A mandate asked of an existing subscription's payer (journeys 1 and 2, decision 0098; 4, decision
 * 0100), run by its own workflow (workflows/mandate.ts): created at the gateway under our id's key and
 * recorded at once in its `created` state, read back until the payer answers, withdrawn when they do
 * not; approved, adopted by the subscription (its workflow's step, between its periods).
 */
export function createMandateRequestActivities(deps: MandateRequestDeps) {
  const rail = (): PixAutomatico => {
    if (!offersPixAutomatico(deps.gateway)) {
      throw ApplicationFailure.nonRetryable('The gateway offers no Pix Automático', 'NoPixAutomatico');
    }
    return deps.gateway;
  };
  const ours = async (mandateId: string): Promise<MandateRow> => {
    const row = await mandateById(deps.orm.em.fork(), mandateId);
    if (!row) throw ApplicationFailure.nonRetryable(`No mandate ${mandateId}`, 'UnknownMandate');
    return row;
  };
  const sight = (row: MandateRow): MandateSight => ({ status: row.status, startDate: row.startDate });

  return {
    async requestMandate(input: MandateWorkflowInput & { at: string }): Promise<MandateRecord> {
      const em = deps.orm.em.fork();
      const recorded = await mandateById(em, input.mandateId);
      if (recorded) return mandateEventData(recorded); // a retry after the row was written
      const s = await findSubscription(em, input.subscriptionId);
      const customer = s ? await findCustomerByKey(em, s.organizationId, { id: s.customerId }) : null;
      const price = s ? await checkoutPriceTerms(em, s.priceId) : undefined;
      const periodicity = price?.priceInterval
        ? periodicityOf(price.priceInterval, price.priceIntervalCount ?? 1)
        : null;
      if (!s || !customer?.name || !customer.taxId || !periodicity) {
        throw ApplicationFailure.nonRetryable('The subscription cannot have a mandate', 'MandateNotAllowed');
      }
      const gateway = rail();
      const label = (await productNames(em, [s.productId])).get(s.productId) ?? 'Assinatura';
      const journey = MANDATE_REQUEST_JOURNEYS[input.journey];
      const renewal = journey === 'journey_4' ? await renewalForMandate(deps, s, periodicity, input.answerBy) : null;
      const seen = await callGateway(() =>
        gateway.createMandate(
          {
            reference: s.id,
            objectLabel: label.slice(0, 35),
            debtor: { name: customer.name!, taxId: customer.taxId!.number, email: customer.email },
            startDate:
              renewal?.startDate ??
              firstMandateDueDate(new Date(s.currentPeriodEnd).getTime(), periodicity, Date.parse(input.at)),
            endDate: null,
            periodicity,
            fixedAmount: null,
            minimumAmount: null,
            retryPolicy: 'three_in_seven_days',
            journey,
            requestExpiresAt: journey === 'journey_1' ? input.answerBy : null,
            payerAccount: journey === 'journey_1' ? (input.payerAccount ?? null) : null,
            dueCharge: renewal?.dueCharge ?? null,
          },
          mandateRequestKey(input.mandateId),
        ),
      );
      const { organizationId, subscriptionId, customerId } = input;
      const owner = { organizationId, subscriptionId, customerId, currency: s.currency };
      try {
        return mandateEventData(await writeMandate(deps.orm, owner, seen, null, input.mandateId));
      } catch (err) {
        if (!isLiveMandateConflict(err)) throw err;
        // Another request won the subscription's one live mandate: this one is withdrawn, never shown to the payer.
        await callGateway(() => gateway.cancelMandate(seen.id, mandateWithdrawKey(input.mandateId)));
        throw ApplicationFailure.nonRetryable('The subscription has a live mandate already', MANDATE_EXISTS);
      }
    },

    async readRequestedMandate(mandateId: string): Promise<MandateSight> {
      return sight(await syncMandate(deps.orm, rail(), await ours(mandateId)));
    },

    async withdrawMandate(mandateId: string): Promise<MandateSight> {
      const row = await ours(mandateId);
      const gateway = rail();
      try {
        await callGateway(() => gateway.cancelMandate(row.gatewayMandateId, mandateWithdrawKey(mandateId)));
      } catch (err) {
        if (refusalReason(err) === null) throw err; // refused: it ended at the gateway already (read below)
      }
      return sight(await syncMandate(deps.orm, gateway, row));
    },

    ...adoptionActivities(deps, rail),
  } satisfies MandateActivities & Pick<SubscriptionActivities, 'adoptApprovedMandate'>;
}

/** A manual subscription adopts its approved mandate, between its periods (workflows/subscription-mandate-switch.ts). */
function adoptionActivities(deps: { orm: Orm }, rail: () => PixAutomatico) {
  return {
    async adoptApprovedMandate(input: { subscriptionId: string; dueDate: string; at: string }) {
      const mandate = await mandateOfSubscription(deps.orm.em.fork(), input.subscriptionId);
      if (mandate?.status !== 'approved') return 'none' as const;
      // Its own sight first: a revocation the notice has not brought yet keeps the subscription as it is.
      const seen = await syncMandate(deps.orm, rail(), mandate);
      if (seen.status !== 'approved') return 'none' as const;
      if (seen.startDate > input.dueDate) return 'later' as const;
      return deps.orm.em.fork().transactional(async (tx) => {
        const t = await lockedTerms(tx, input.subscriptionId, true);
        if (t.recurrenceBilling !== 'manual' || subscriptionHasEnded(t.status)) return 'none' as const;
        const row = await writeRecurrenceBilling(tx, t.id, 'pix_automatico', new Date(input.at));
        await insertEvents(tx, t.organizationId, [['subscription.updated', { ...subscriptionRecord(row) }]]);
        return 'switched' as const;
      });
    },
  } satisfies Pick<SubscriptionActivities, 'adoptApprovedMandate'>;
}

/** The insert met the one-live-mandate-per-subscription index (migration 0036). */
function isLiveMandateConflict(err: unknown): boolean {
  const e = err as { code?: string; constraint?: string; message?: string };
  return e?.code === '23505' && `${e.constraint ?? ''} ${e.message ?? ''}`.includes('mandates_live_subscription_idx');
}
