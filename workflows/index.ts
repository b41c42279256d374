export { recurrencePlanWorkflow } from './recurrence-plan.ts';
