import { proxyActivities } from '@temporalio/workflow';
import type { KeptCardActivities, KeptCardOutcome } from '../contracts/kept-card.ts';
import { asSystem } from './actor-interceptors.ts';

const { replaceKeptCard } = proxyActivities<KeptCardActivities>({
  startToCloseTimeout: '30 seconds',
  // The gateway said the card was replaced: retried until our books hold it (an outage only delays it).
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes' },
});

/**
 * A gateway's card updater replaced a kept card (Mercado Pago's `card.updated`, decision 0071): the
 * subscriptions that charge it charge the replacement from now on. Started by the notice route; the
 * gateway's doing, not a person's.
 */
export async function keptCardWorkflow(replaced: string, by: string): Promise<KeptCardOutcome> {
  return asSystem(() => replaceKeptCard(replaced, by));
}
