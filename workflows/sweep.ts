import { continueAsNew, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';

/** The schedule that runs the sweep, registered by the worker at start (worker/schedules.ts). */
export const SWEEP_SCHEDULE_ID = 'billing-sweep';
const PAGE = 200;
/** Pages per run: a sweep over very many subscriptions continues as new rather than growing its history. */
const PAGES_PER_RUN = 50;

const sweeps = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '5 seconds', maximumInterval: '1 minute', nonRetryableErrorTypes: ['SweepUnavailable'] },
});

export interface SweepInput {
  after?: string | null;
  checked?: number;
}

/**
 * The periodic sweep (Temporal Schedule `billing-sweep`): every live subscription has a running
 * workflow, page by page. Each workflow then reconciles its own periods and each invoice its own
 * deadline; the sweep only makes sure none of them is missing. Returns how many it looked at.
 */
export async function billingSweepWorkflow(input: SweepInput = {}): Promise<number> {
  let after = input.after ?? null;
  let checked = input.checked ?? 0;
  for (let page = 0; page < PAGES_PER_RUN; page++) {
    const result = await sweeps.ensureSubscriptionWorkflows({ after, limit: PAGE });
    checked += result.checked;
    if (result.next === null) return checked;
    after = result.next;
  }
  return continueAsNew<typeof billingSweepWorkflow>({ after, checked });
}
