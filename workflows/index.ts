export { recurrencePlanWorkflow } from './recurrence-plan.ts';
export { refundWorkflow } from './refund.ts';
export { directTransactionWorkflow } from './direct-transaction.ts';
export { checkoutWorkflow } from './checkout.ts';
export { subscriptionWorkflow } from './subscription.ts';
export { invoiceWorkflow } from './invoice.ts';
export { billingSweepWorkflow } from './sweep.ts';
