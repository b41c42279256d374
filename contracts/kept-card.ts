/**
 * What the kept-card workflow (workflows/kept-card.ts) is called by and calls: a gateway's card updater
 * replaced a kept card, and the subscriptions that charge it take the replacement (decision 0071).
 */

/** One run per replacement: a repeated notice joins it, or starts one that finds nothing left to change. */
export const keptCardWorkflowId = (replaced: string, by: string) => `kept-card:${replaced}:${by}`;

/** The subscriptions that now charge the replacement, or why none changed. */
export type KeptCardOutcome = { replacedOn: string[] } | { replacedOn: []; reason: 'unknown_card' | 'not_offered' };

/** The kept-card workflow as its starter sees it (the notice route). */
export type KeptCardWorkflow = (replaced: string, by: string) => Promise<KeptCardOutcome>;

/** The activity it runs (activities/kept-cards.ts). */
export interface KeptCardActivities {
  replaceKeptCard(replaced: string, by: string): Promise<KeptCardOutcome>;
}
