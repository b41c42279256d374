import { recurringBillingOf } from '../gateway/capabilities.ts';
import type { Orm } from '../db/orm.ts';
import { findPriceById, productOrFail, setRecurrencePlanIfEmpty } from '../db/catalog/products.ts';
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
  const price = await findPriceById(em, priceId);
  if (!price || price.type !== 'recurring' || !price.interval) return null;
  if (price.gatewayRecurrencePlanId) return price.gatewayRecurrencePlanId;
  const product = await productOrFail(em, price.productId);
  const plan = await recurringBillingOf(deps.gateway).createRecurrencePlan(
    {
      reference: price.id,
      name: price.name ?? product.name,
      amount: price.unitAmount,
      currency: price.currency,
      interval: price.interval,
      intervalCount: price.intervalCount ?? 1,
    },
    recurrencePlanKey(price.id),
  );
  // Only while empty: a concurrent run that stored its plan first keeps it.
  await setRecurrencePlanIfEmpty(em, price.id, plan.id);
  return plan.id;
}
