/**
 * What the workflow that creates a price's recurrence plan at the gateway (workflows/recurrence-plan.ts)
 * is called by and calls: its id and the activity it runs (RecurrencePlanActivities).
 */

/** Workflow id of a price's plan creation: one run per price. */
export const recurrencePlanWorkflowId = (priceId: string) => `recurrence-plan:${priceId}`;

/** The recurrence plan workflow as its starters see it (the API, on a price's creation). */
export type RecurrencePlanWorkflow = (priceId: string) => Promise<string | null>;

/** The activity the recurrence plan workflow runs (activities/recurrence-plans.ts). */
export interface RecurrencePlanActivities {
  createRecurrencePlanForPrice(priceId: string): Promise<string | null>;
}
