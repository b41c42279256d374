import { recurringBillingOf } from '../gateway/capabilities.ts';
import type { Orm } from '../db/orm.ts';
import { priceWithProductName, recordRecurrencePlanId } from '../db/catalog/subscription-reads.ts';
import type { PaymentGateway } from '../gateway/port.ts';

export interface RecurrencePlanDeps {
  orm: Orm;
  gateway: PaymentGateway;
}

/** The gateway idempotency key of a price's plan: one plan per price, however often this runs. */
export const recurrencePlanKey = (priceId: string) => `recurrence-plan:${priceId}`;

/**
 * Makes sure a recurring price has its gateway recurrence plan and returns the plan id.
 * Safe to repeat: the gateway call is keyed by the price, and the id is only written while empty.
 */
export async function ensureRecurrencePlan(deps: RecurrencePlanDeps, priceId: string): Promise<string | null> {
  const em = deps.orm.em.fork();
  const found = await priceWithProductName(em, priceId);
  if (!found) return null;
  const { price, productName } = found;
  if (price.type !== 'recurring' || !price.interval) return null;
  if (price.gatewayRecurrencePlanId) return price.gatewayRecurrencePlanId;
  const plan = await recurringBillingOf(deps.gateway).createRecurrencePlan(
    {
      reference: price.id,
      name: price.name ?? productName,
      amount: price.unitAmount,
      currency: price.currency,
      interval: price.interval,
      intervalCount: price.intervalCount ?? 1,
    },
    recurrencePlanKey(price.id),
  );
  await recordRecurrencePlanId(em, price.id, plan.id);
  return plan.id;
}
