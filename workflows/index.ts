export { recurrencePlanWorkflow } from './recurrence-plan.ts';
export { refundWorkflow } from './refund.ts';
export { checkoutWorkflow } from './checkout.ts';
