import type { RecurrencePlanActivities } from '../contracts/recurrence-plan.ts';
import { ensureRecurrencePlan, type RecurrencePlanDeps } from '../use-cases/recurrence-plans.ts';
import { callGateway } from './gateway-failures.ts';

/** The recurrence plan workflow's step: the use case the API also runs inline (api/product-prices.ts). */
export function createRecurrencePlanActivities(deps: RecurrencePlanDeps) {
  return {
    async createRecurrencePlanForPrice(priceId: string): Promise<string | null> {
      return callGateway(() => ensureRecurrencePlan(deps, priceId));
    },
  } satisfies Partial<RecurrencePlanActivities>;
}
