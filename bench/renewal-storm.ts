import { randomBytes } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { uuidv7 } from 'uuidv7';
import type { Orm } from '../db/orm.ts';
import { benchDb, sql, type BenchDb } from './db.ts';
import { CUSTOMER_ID, ORGANIZATION_ID, SUBSCRIPTION_ID } from '../domain/search-attributes.ts';
import { subscriptionWorkflowId } from '../domain/subscriptions.ts';
import { SimulatedGateway } from '@billing/simulated-gateway';

/**
 * The renewal benchmark's subscriptions: N active monthly subscriptions of one organization, billed
 * by our workflow (manual) with a saved approving card on the simulated gateway, whose first period
 * ends at the same instant (as test/helpers/subscription-workflows.ts writes one, in bulk), and what
 * the books say once they renewed.
 */
export interface Storm {
  organizationId: string;
  customerIds: string[];
  ids: string[];
  dueAt: Date;
  /** What each renewal charges, cents. */
  price: number;
}

const PRICE = 9_900;

export async function insertDueSubscriptions(orm: Orm, n: number, dueAt: Date): Promise<Storm> {
  const db = benchDb(orm);
  const organizationId = uuidv7();
  const slug = `bench-renewals-${organizationId}`;
  await db.query(
    sql`insert into organizations (id, name, slug, status, customer_invoice_prefix, created_at, subscription_settings,
       notification_settings)
     values (${organizationId}, 'Bench renewals', ${slug}, 'created', ${slug.toUpperCase()}, now(), '{}', '{}')`,
  );
  const [productId, priceId] = [uuidv7(), uuidv7()];
  await db.query(
    sql`insert into products (id, organization_id, name, created_at) values (${productId}, ${organizationId}, 'Club', now())`,
  );
  await db.query(
    sql`insert into prices (id, product_id, organization_id, type, currency, unit_amount, tax_behavior, interval,
       interval_count, created_at)
     values (${priceId}, ${productId}, ${organizationId}, 'recurring', 'brl', ${PRICE}, 'unspecified', 'month', 1, now())`,
  );
  const ids = Array.from({ length: n }, () => uuidv7());
  const customerIds = Array.from({ length: n }, () => uuidv7());
  await db.query(
    sql`insert into customers (id, organization_id, email, name, created_at, updated_at)
     select id, ${organizationId}, id::text || '@example.com', 'Ana', now(), now() from unnest(${customerIds}::uuid[]) as id`,
  );
  // One card tokenized as a buyer's would be, copied for each subscriber (the same approving test card).
  const template = await new SimulatedGateway(orm).tokenizeCard(
    { number: '4111111111111111', holderName: 'ANA', expirationMonth: '12', expirationYear: '2035', cvv: '123' },
    `bench:card:${organizationId}`,
  );
  const cardIds = ids.map(() => `card_${randomBytes(12).toString('hex')}`);
  await db.query(
    sql`insert into gateway_sim.cards (id, brand, first4, last4, holder_name, expiration_month, expiration_year, outcome)
     select card_id, brand, first4, last4, holder_name, expiration_month, expiration_year, outcome
     from gateway_sim.cards, unnest(${cardIds}::text[]) as card_id where id = ${template.id}`,
  );
  // The first period, paid at checkout, ends at dueAt; periods are counted from the anchor a month before.
  const anchor = new Date(dueAt);
  anchor.setUTCMonth(anchor.getUTCMonth() - 1);
  await db.query(
    sql`insert into subscriptions (id, organization_id, customer_id, product_id, price_id, status, recurrence_billing,
       amount, subtotal_amount, currency, current_period_start, current_period_end, created_at, workflow_id,
       billing_anchor, period_number, card_token_id)
     select s.id, ${organizationId}, s.customer_id, ${productId}, ${priceId}, 'active', 'manual', ${PRICE}, ${PRICE},
       'brl', ${anchor}, ${dueAt}, now(), 'subscription:' || s.id, ${anchor}, 1, s.card_id
     from unnest(${ids}::uuid[], ${customerIds}::uuid[], ${cardIds}::text[]) as s (id, customer_id, card_id)`,
  );
  return { organizationId, customerIds, ids, dueAt, price: PRICE };
}

/** Starts each subscription's workflow on `taskQueue`, as the checkout and the sweep do, `concurrency` at a time. */
export async function startSubscriptionWorkflows(
  client: Client,
  taskQueue: string,
  storm: Storm,
  concurrency = 32,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < storm.ids.length; i = next++) {
        const subscriptionId = storm.ids[i]!;
        await client.workflow.start('subscriptionWorkflow', {
          workflowId: subscriptionWorkflowId(subscriptionId),
          taskQueue,
          args: [{ subscriptionId }],
          typedSearchAttributes: [
            { key: ORGANIZATION_ID, value: storm.organizationId },
            { key: CUSTOMER_ID, value: storm.customerIds[i]! },
            { key: SUBSCRIPTION_ID, value: subscriptionId },
          ],
        });
      }
    }),
  );
}

/** How many of the storm's subscriptions are in their second period (charged and recorded). */
export async function renewedCount(db: BenchDb, storm: Storm): Promise<number> {
  const [row] = await db.query(
    sql<{ n: number }>`select count(*)::int as n from subscriptions
      where organization_id = ${storm.organizationId} and period_number >= 2`,
  );
  return row!.n;
}

/**
 * Waits (polling the database every `everyMs`) until every subscription renewed, or until none has
 * for `stallMs`, or `maxMs` after the due instant; the count reached.
 */
export async function waitForRenewals(
  db: BenchDb,
  storm: Storm,
  options: { everyMs: number; stallMs: number; maxMs: number; progress?: (n: number) => void },
): Promise<number> {
  let last = -1;
  let lastMoved = Date.now();
  const deadline = storm.dueAt.getTime() + options.maxMs;
  for (;;) {
    const n = await renewedCount(db, storm);
    if (n !== last) [last, lastMoved] = [n, Date.now()];
    options.progress?.(n);
    if (n >= storm.ids.length || Date.now() - lastMoved > options.stallMs || Date.now() > deadline) return n;
    await new Promise((r) => setTimeout(r, options.everyMs));
  }
}

export interface RenewalBooks {
  /** Subscriptions in their second period. */
  renewed: number;
  /** Of the storm's subscriptions: captured exactly once, for the price, and never refunded. */
  oneCaptureOfPrice: number;
  notCaptured: number;
  capturedMoreThanOnce: number;
  /** subscription_charges rows: period 2, try 1, succeeded; and rows of any other kind. */
  succeededCharges: number;
  otherCharges: number;
  sales: number;
  /** Events of the organization by type. */
  events: Record<string, number>;
  /** When the first and the last renewal were recorded (their sale.paid). */
  firstRecordedAt: Date | null;
  lastRecordedAt: Date | null;
}

/** What the books say of the storm: ours, and the simulated gateway's ledger (captures by reference). */
export async function renewalBooks(db: BenchDb, storm: Storm): Promise<RenewalBooks> {
  const [gateway] = await db.query(
    sql<{ renewed: number; one: number; none: number; more: number }>`with captures as (
       select t.reference,
              count(*) filter (where l.kind = 'capture') as captures,
              coalesce(sum(l.amount) filter (where l.kind = 'capture'), 0) as captured,
              count(*) filter (where l.kind <> 'capture') as other
       from gateway_sim.transactions t join gateway_sim.ledger l on l.transaction_id = t.id
       where t.reference = any(${storm.ids}::text[])
       group by t.reference)
     select count(*) filter (where s.period_number = 2)::int as renewed,
            count(*) filter (where c.captures = 1 and c.captured = ${storm.price} and c.other = 0)::int as one,
            count(*) filter (where coalesce(c.captures, 0) = 0)::int as none,
            count(*) filter (where c.captures > 1)::int as more
     from subscriptions s left join captures c on c.reference = s.id::text
     where s.organization_id = ${storm.organizationId}`,
  );
  const [charges] = await db.query(
    sql<{
      succeeded: number;
      other: number;
    }>`select count(*) filter (where period_number = 2 and try_number = 1 and outcome = 'succeeded')::int as succeeded,
            count(*) filter (where not (period_number = 2 and try_number = 1 and outcome = 'succeeded'))::int as other
     from subscription_charges where organization_id = ${storm.organizationId}`,
  );
  const [sales] = await db.query(
    sql<{ n: number }>`select count(*)::int as n from sales where organization_id = ${storm.organizationId}`,
  );
  const events = await db.query(
    sql<{ type: string; n: number; first: string | Date; last: string | Date }>`select type, count(*)::int as n,
      min(created_at) as first, max(created_at) as last
      from events where organization_id = ${storm.organizationId} group by type`,
  );
  const paid = events.find((e) => e.type === 'sale.paid');
  return {
    renewed: gateway!.renewed,
    oneCaptureOfPrice: gateway!.one,
    notCaptured: gateway!.none,
    capturedMoreThanOnce: gateway!.more,
    succeededCharges: charges!.succeeded,
    otherCharges: charges!.other,
    sales: sales!.n,
    events: Object.fromEntries(events.map((e) => [e.type, e.n])),
    firstRecordedAt: paid ? new Date(paid.first) : null,
    lastRecordedAt: paid ? new Date(paid.last) : null,
  };
}

/** True when each subscription was charged once for its price, and recorded once with its events. */
export function booksBalance(books: RenewalBooks, n: number): boolean {
  const { events } = books;
  return (
    books.renewed === n &&
    books.oneCaptureOfPrice === n &&
    books.succeededCharges === n &&
    books.otherCharges === 0 &&
    books.sales === n &&
    events['sale.created'] === n &&
    events['sale.paid'] === n &&
    events['subscription.updated'] === n &&
    Object.keys(events).length === 3
  );
}
