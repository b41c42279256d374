import { insertEvents } from '../db/events.ts';
import type { Orm } from '../db/orm.ts';
import { subscriptionRecord } from '../db/subscription/record.ts';
import { replaceSubscriptionCard } from '../db/subscription/charges.ts';
import type { KeptCardActivities, KeptCardOutcome } from '../contracts/kept-card.ts';
import { offersKeptCardLookup } from '../gateway/capabilities.ts';
import type { PaymentGateway } from '../gateway/port.ts';
import { callGateway } from './gateway-failures.ts';

export function createKeptCardActivities(deps: { orm: Orm; gateway: PaymentGateway }) {
  return {
    /**
     * A card updater's replacement of a kept card (decision 0071): believed only once the gateway
     * answers the replacement as a card it keeps; then every subscription charging the replaced card
     * charges the new one, each with subscription.updated, in one transaction.
     */
    async replaceKeptCard(replaced: string, by: string): Promise<KeptCardOutcome> {
      const { gateway } = deps;
      if (!offersKeptCardLookup(gateway)) return { replacedOn: [], reason: 'not_offered' };
      const card = await callGateway(() => gateway.keptCard(by));
      if (!card) return { replacedOn: [], reason: 'unknown_card' };
      return deps.orm.em.fork().transactional(async (tx) => {
        const rows = await replaceSubscriptionCard(tx, replaced, card.id);
        for (const row of rows) {
          await insertEvents(tx, row.organizationId, [['subscription.updated', { ...subscriptionRecord(row) }]]);
        }
        return { replacedOn: rows.map((r) => r.id) };
      });
    },
  } satisfies KeptCardActivities;
}
