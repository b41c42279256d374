import type { EntityManager } from '@mikro-orm/postgresql';
import { otherRecurringPrices, priceById, productsByIds } from '../db/catalog/subscription-reads.ts';
import { subscriptionSettingsOf } from '../db/organization/subscription-reads.ts';
import type { SubscriptionRow } from '../db/subscription/record.ts';
import {
  archivedProductRefusal,
  customerPlanRefusal,
  planChangeRefusal,
  planChangeSettlement,
  prorationBehaviorOf,
  type PlanTerms,
  type ProrationBehavior,
} from '../domain/proration.ts';

type PriceRow = NonNullable<Awaited<ReturnType<typeof priceById>>>;

/** A price the subscription may move to, with its product's name. */
export interface PlanOption {
  priceId: string;
  productName: string;
  unitAmount: number;
  currency: string;
  interval: string | null;
}

/** What confirming a move to `option` would settle, computed as the workflow's activity computes it. */
export interface PlanChangePreview {
  option: PlanOption;
  behavior: ProrationBehavior;
  prorated: number;
  chargeNow: number;
  toBalance: number;
}

const termsOf = (p: PriceRow): PlanTerms => ({
  type: p.type,
  active: p.active,
  currency: p.currency,
  interval: p.interval ?? null,
  intervalCount: p.intervalCount ?? null,
});

/**
 * The prices a customer may move this subscription to: its product's other prices that the change's
 * own rules (domain/proration.ts planChangeRefusal, archivedProductRefusal, customerPlanRefusal)
 * accept, so the portal offers nothing the change would refuse.
 */
export async function planOptions(em: EntityManager, s: SubscriptionRow): Promise<PlanOption[]> {
  const current = await priceById(em, s.priceId);
  if (!current) return [];
  const currentTerms = { ...termsOf(current), type: 'recurring', active: true, currency: s.currency };
  const prices = await otherRecurringPrices(em, s.organizationId, s.priceId);
  const products = new Map(
    (await productsByIds(em, [...new Set(prices.map((p) => p.productId))])).map((p) => [p.id, p]),
  );
  return prices
    .filter((p) => {
      const product = products.get(p.productId);
      const refusal =
        planChangeRefusal(currentTerms, termsOf(p)) ??
        archivedProductRefusal({ productArchived: product?.isArchived ?? true }) ??
        customerPlanRefusal(s, p);
      return refusal === null;
    })
    .map((p) => ({
      priceId: p.id,
      productName: products.get(p.productId)!.name,
      unitAmount: Number(p.unitAmount),
      currency: p.currency,
      interval: p.interval ?? null,
    }));
}

/** The preview of a move to `priceId` now, or null when it is not one of the subscription's options. */
export async function previewPlanChange(
  em: EntityManager,
  s: SubscriptionRow,
  priceId: string,
  at: Date,
): Promise<PlanChangePreview | null> {
  const option = (await planOptions(em, s)).find((o) => o.priceId === priceId);
  if (!option) return null;
  const settings = await subscriptionSettingsOf(em, s.organizationId);
  const behavior = prorationBehaviorOf(settings);
  const settlement = planChangeSettlement({
    behavior,
    trialing: s.status === 'trialing',
    from: Number(s.subtotalAmount),
    to: option.unitAmount,
    period: { start: s.currentPeriodStart, end: s.currentPeriodEnd },
    at,
    savedCard: Boolean(s.cardTokenId),
  });
  return { option, behavior, ...settlement };
}
