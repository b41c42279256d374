import type { Orm } from '../db/orm.ts';
import type { PaymentGateway } from '../gateway/port.ts';
import { createCheckoutActivities } from './checkout.ts';
import { createRecurrencePlanActivities } from './recurrence-plans.ts';
import { createRefundActivities } from './refunds.ts';

export interface ActivityDeps {
  orm: Orm;
  gateway: PaymentGateway;
}

/** Every activity the worker registers, built from its dependencies (no module-level state). */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createRecurrencePlanActivities(deps),
    ...createCheckoutActivities(deps),
    ...createRefundActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
