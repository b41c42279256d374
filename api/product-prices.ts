import type { FastifyBaseLogger } from 'fastify';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import { uuidv7 } from 'uuidv7';
import { ensureRecurrencePlan } from '../use-cases/recurrence-plans.ts';
import { createPriceRow, findProduct, pricesOfProducts } from '../db/catalog/products.ts';
import { validatePrice, type NormalizedPrice } from '../domain/price-rules.ts';
import { ORGANIZATION_ID } from '../domain/search-attributes.ts';
import { ApiError, notFound } from '../use-cases/errors.ts';
import { isUuid } from '../use-cases/schemas/common.ts';
import type { InlinePrice, PriceEntity, ProductEntity } from './schemas/catalog.ts';
import { recurrencePlanWorkflowId } from '../contracts/recurrence-plan.ts';
import type { RecurrencePlanWorkflow } from '../contracts/recurrence-plan.ts';
import type { RouteDeps } from './route-deps.ts';

/** Prices and products as the catalog routes (products, functions) read and write them. */

/**
 * Applies the price rules of domain/price-rules.ts to one price of a request; a broken rule is a 400
 * whose detail names the field as the client sent it (e.g. `prices.1.unit_amount`).
 */
export function checkedPrice(input: InlinePrice, path: string): NormalizedPrice {
  const result = validatePrice(input);
  if (!result.ok)
    throw new ApiError(400, 'invalid_price', 'Invalid price', `${path}${result.field}: ${result.message}`);
  return result.price;
}

/** Adds a price to a product inside the caller's transaction (the product row must already exist). */
export function createPrice(
  tx: EntityManager,
  product: ProductEntity,
  input: InlinePrice,
  price: NormalizedPrice,
  active: boolean,
  now: Date,
): PriceEntity {
  return createPriceRow(tx, {
    id: uuidv7(),
    productId: product.id,
    organizationId: product.organizationId,
    name: input.name ?? null,
    type: price.type,
    currency: price.currency,
    unitAmount: price.unit_amount,
    interval: price.interval,
    intervalCount: price.interval_count,
    taxBehavior: price.tax_behavior,
    active,
    metadata: input.metadata ?? {},
    gatewayRecurrencePlanId: null,
    createdAt: now,
    modifiedAt: null,
    deletedAt: null,
  });
}

/** A product of the credential's organization; any other (or a malformed id) is a 404, never a 403. */
export async function ownProduct(
  em: EntityManager,
  id: string,
  organizationId: string,
  forUpdate = false,
): Promise<ProductEntity> {
  const product = isUuid(id) ? await findProduct(em, organizationId, id, forUpdate) : null;
  if (!product) throw notFound('Product');
  return product;
}

/** Every price of the products, archived ones included, oldest first. */
export async function pricesByProduct(em: EntityManager, productIds: string[]): Promise<Map<string, PriceEntity[]>> {
  const map = new Map<string, PriceEntity[]>();
  if (productIds.length === 0) return map;
  for (const price of await pricesOfProducts(em, productIds)) {
    const list = map.get(price.productId) ?? [];
    list.push(price);
    map.set(price.productId, list);
  }
  return map;
}

/** How long a request waits for the gateway before leaving the plan to the workflow. */
const INLINE_PLAN_TIMEOUT_MS = 3000;

/**
 * The spec makes the gateway recurrence plan best effort at creation: each recurring price gets one
 * inline attempt, and when the gateway fails or is slow, the recurrence-plan workflow finishes the job.
 * The gateway call is keyed by the price, so the inline attempt and the workflow never make two plans.
 * Sets `gatewayRecurrencePlanId` on the prices that got their plan inline.
 */
export async function provisionRecurrencePlans(
  deps: Pick<RouteDeps, 'orm' | 'gateway' | 'temporal' | 'config'>,
  prices: readonly PriceEntity[],
  log: FastifyBaseLogger,
): Promise<void> {
  const recurring = prices.filter((p) => p.type === 'recurring' && !p.gatewayRecurrencePlanId);
  await Promise.all(
    recurring.map(async (price) => {
      try {
        const planId = await withTimeout(ensureRecurrencePlan(deps, price.id), INLINE_PLAN_TIMEOUT_MS);
        if (planId) {
          price.gatewayRecurrencePlanId = planId;
          return;
        }
      } catch (err) {
        log.warn({ err, priceId: price.id }, 'recurrence plan not created inline; handing over to the workflow');
      }
      try {
        await startRecurrencePlanWorkflow(deps.temporal, deps.config.TEMPORAL_TASK_QUEUE, price);
      } catch (err) {
        log.error({ err, priceId: price.id }, 'could not start the recurrence plan workflow');
      }
    }),
  );
}

/** Starts (or joins, when one is already running) the workflow that creates a price's plan. */
export async function startRecurrencePlanWorkflow(
  temporal: Client,
  taskQueue: string,
  price: { id: string; organizationId: string },
): Promise<string> {
  const handle = await temporal.workflow.start<RecurrencePlanWorkflow>('recurrencePlanWorkflow', {
    workflowId: recurrencePlanWorkflowId(price.id),
    taskQueue,
    args: [price.id],
    workflowIdConflictPolicy: 'USE_EXISTING',
    typedSearchAttributes: [{ key: ORGANIZATION_ID, value: price.organizationId }],
  });
  return handle.workflowId;
}

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
