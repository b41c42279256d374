import type { Orm } from '../db/orm.ts';
import type { PaymentGateway } from '../gateway/port.ts';
import { createCheckoutPaymentActivities } from './checkout-payments.ts';
import { createCheckoutRecordActivities } from './checkout-records.ts';
import { recordSale, type RecordSaleInput } from './checkout-sale.ts';
import { createDirectTransactionActivities } from './direct-transactions.ts';
import { createRecurrencePlanActivities } from './recurrence-plans.ts';
import { createRefundActivities } from './refunds.ts';
import { createSubscriptionActivities } from './subscriptions.ts';

export interface ActivityDeps {
  orm: Orm;
  gateway: PaymentGateway;
}

/** Every activity the worker registers, built from its dependencies (no module-level state). */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createRecurrencePlanActivities(deps),
    ...createCheckoutRecordActivities(deps),
    ...createCheckoutPaymentActivities(deps),
    recordSale: (input: RecordSaleInput) => recordSale(deps.orm, input),
    ...createRefundActivities(deps),
    ...createDirectTransactionActivities(deps),
    ...createSubscriptionActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
