import { afterAll, beforeAll } from '@jest/globals';
import { temporal } from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { uuidv7 } from 'uuidv7';
import { createActivities } from '../../activities/index.ts';
import { openOrm, type Orm } from '../../db/orm.ts';
import { isoDate } from '../../domain/periods.ts';
import { PIX_AUTOMATICO_METHODS } from '../../gateway/capabilities.ts';
import type { PaymentGateway } from '../../gateway/port.ts';
import { SimulatedGateway } from '@billing/simulated-gateway';
import { capturedAmounts } from '@billing/simulated-gateway/books';
import { SEARCH_ATTRIBUTES } from '../../scripts/temporal-cli.ts';
import { temporalTestServerPath } from '../../scripts/tool-paths.ts';
import { workflowsPath } from '../../worker/worker.ts';
import { subscriptionWorkflow } from '../../workflows/subscription.ts';
import { loadConfig, type Config } from '../../config/env.ts';
import { TEST_TIME_SKIPPING_DATABASE_URL, testEnv } from './env.ts';
import { makeOrganization } from './fixtures.ts';
import { testWorkers } from './test-workers.ts';
import {
  subscriptionStateQuery,
  subscriptionWorkflowId,
  type SubscriptionRunState,
} from '../../contracts/subscription.ts';
import { waitFor } from './processes.ts';
import { Context as activityContext } from '@temporalio/activity';
import type { PixPayerPersona } from '../../contracts/pix-automatico.ts';
import { upsertMandate } from '../../db/mandate/mandates.ts';
import { brasiliaDate, type MandatePeriodicity } from '../../domain/pix-automatico.ts';

/**
 * What the subscription workflow tests share: the time-skipping test server, the real activities on
 * the test database and the simulated gateway (whose ledger says what was really charged), and a
 * subscription in its first period written as a paid checkout leaves it.
 */
export const DAY = 86_400_000;
const KEYWORD = temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD;
const { EventType } = temporal.api.enums.v1;
export const APPROVE = '4111111111111111';
export const DECLINE = '4000000000000002';
export const EXPIRED = '4000000000000069';
/** Authorizes only (pre_authorized) even when capture is asked: every charge of it must be captured. */
export const PREAUTH = '4000000000003220';

export type Handle = Awaited<ReturnType<TestWorkflowEnvironment['client']['workflow']['start']>>;

/** History events after which the run has a workflow task to come or in flight. */
const BUSY_AFTER = new Set([
  EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED,
  EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED,
  EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED,
  EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED,
]);

/**
 * Waits until the workflow's latest run has no workflow task or activity in flight or to come. The
 * time-skipping test server loses a query that reaches a run whose workflow task then continues it as
 * new (a new period): the query is never answered, and the lost query keeps the server from skipping
 * time again, so every later sleep of the test hangs too. A query of an idle run cannot race that.
 */
async function untilIdle(handle: Handle): Promise<void> {
  const idle = async () => {
    const { events } = await handle.client.getHandle(handle.workflowId).fetchHistory();
    const last = events?.at(-1)?.eventType;
    const running = last !== EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW;
    return running && last !== undefined && last !== null && !BUSY_AFTER.has(last);
  };
  await waitFor(idle, {
    what: `${handle.workflowId} to come to rest`,
    timeoutMs: 30_000,
    intervalMs: 25,
  });
}

/** The workflow's state, asked once its latest run is idle (`untilIdle`). */
export async function stateOf(handle: Handle): Promise<SubscriptionRunState> {
  await untilIdle(handle);
  return handle.query(subscriptionStateQuery);
}

/**
 * Queries the workflow's state until `done` holds: no workflow time passes (what it waits for was
 * set off already, by a signal, an Update or a test clock).
 */
export async function stateWhen(
  handle: Handle,
  done: (s: SubscriptionRunState) => boolean,
): Promise<SubscriptionRunState> {
  let last: SubscriptionRunState | undefined;
  return waitFor(
    async () => {
      last = await stateOf(handle);
      return done(last) && last;
    },
    { what: `${handle.workflowId}'s state awaited`, timeoutMs: 30_000, describe: () => JSON.stringify(last) },
  );
}

/** Days in each month of a common year, January first (the calendar, written out by hand). */
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const isLeapYear = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;

/**
 * The tests' calendar oracle, independent of domain/periods.ts: `months` calendar months after `d`,
 * on the same day of the month or, when that month is shorter, on its last day (31 January + 1 month
 * is 28 or 29 February), at the same time of day, in UTC.
 */
export function addMonth(d: Date, months = 1): Date {
  const index = d.getUTCFullYear() * 12 + d.getUTCMonth() + months;
  const [year, month] = [Math.floor(index / 12), index % 12];
  const lastDay = month === 1 && isLeapYear(year) ? 29 : DAYS_IN_MONTH[month]!;
  const day = Math.min(d.getUTCDate(), lastDay);
  const timeOfDay = d.getTime() - Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  return new Date(Date.UTC(year, month, day) + timeOfDay);
}

/** Noon UTC of the first 15th of a month after `now`. */
export function nextMidMonth(now: Date): Date {
  const thisMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 15, 12));
  return thisMonth > now ? thisMonth : new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 15, 12));
}

/** The mandate's periodicity of a price's interval (one of each). */
const MANDATE_PERIODICITY: Record<'week' | 'month' | 'year', MandatePeriodicity> = {
  week: 'weekly',
  month: 'monthly',
  year: 'yearly',
};

export interface SubscriptionOptions {
  settings?: Record<string, unknown>;
  trialDays?: number;
  subtotal?: number;
  /** gateway: the simulated gateway's recurrence bills the periods (a plan, a buyer and its subscription). */
  billing?: 'manual' | 'gateway' | 'pix_automatico';
  /**
   * pix_automatico: the payer of its mandate (journey 2, of the price's periodicity, three retries in seven days, starting at
   * the first period's end), authorized at the simulator as this persona does. Default: approves.
   */
  payer?: PixPayerPersona;
  /** Paid by pix or boleto: no card is kept, renewal checkouts pay. */
  noCard?: boolean;
  /** Billed yearly (or weekly) rather than monthly; a Pix Automático mandate's periodicity follows. */
  interval?: 'week' | 'month' | 'year';
  /**
   * The instant the subscription starts (its checkout is paid): the test server's clock is moved
   * forward to it first, so the periods' dates do not depend on the day the test runs. Default: the
   * next 15th of a month, at noon UTC (no month-end clamping, whatever the day the suite runs).
   */
  start?: Date;
  /** A percentage discount the checkout applied, for its duration (the first period's amount takes it). */
  discount?: { basisPoints: number; duration: 'once' | 'forever' | 'repeating'; durationInMonths?: number };
}

/** The simulator's Pix Automático calls, which run on workflow time in these tests (onWorkflowTime). */
const PIX_AUTOMATICO_CALLS = new Set<string>([...PIX_AUTOMATICO_METHODS, 'settleMandateCharges']);

/** Registers the suite's set-up and tear-down; the kit's members work inside its tests. */
export function useSubscriptionWorkflows(taskQueuePrefix: string) {
  let env: TestWorkflowEnvironment;
  let bundle: WorkflowBundleWithSourceMap;
  let orm: Orm;
  let sim: SimulatedGateway;
  let config: Config;

  const workers = testWorkers();
  beforeAll(async () => {
    env = await TestWorkflowEnvironment.createTimeSkipping({
      server: { executable: { type: 'existing-path', path: temporalTestServerPath()! } },
    });
    // Our search attributes (all keywords), as scripts/temporal-cli.ts registers them with the dev server.
    await env.connection.operatorService.addSearchAttributes({
      namespace: 'default',
      searchAttributes: Object.fromEntries(Object.keys(SEARCH_ATTRIBUTES).map((name) => [name, KEYWORD])),
    });
    bundle = await bundleWorkflowCode({ workflowsPath });
    orm = await openOrm(TEST_TIME_SKIPPING_DATABASE_URL, 4);
    sim = new SimulatedGateway(orm);
    config = loadConfig(testEnv({ DATABASE_URL: TEST_TIME_SKIPPING_DATABASE_URL }), 'worker');
  }, 120_000);
  afterAll(async () => {
    await workers.stopAll();
    await orm?.close();
    await env?.teardown();
  });

  const sql = (query: string, params: unknown[] = []): Promise<any[]> => orm.em.getConnection().execute(query, params);

  /**
   * An active monthly subscription of R$ 99,00 in its first period (or trialing), paid with
   * `cardNumber`, whose period ends a month (or the trial) after the test server's now.
   */
  async function subscription(cardNumber: string, options: SubscriptionOptions = {}) {
    const org = await makeOrganization(orm);
    if (options.settings) {
      await sql(`update organizations set subscription_settings = subscription_settings || ?::jsonb where id = ?`, [
        JSON.stringify(options.settings),
        org.id,
      ]);
    }
    const [productId, priceId, customerId, id, checkoutId] = [uuidv7(), uuidv7(), uuidv7(), uuidv7(), uuidv7()];
    const subtotal = options.subtotal ?? 9_900;
    await sql(`insert into products (id, organization_id, name, created_at) values (?, ?, 'Club', now())`, [
      productId,
      org.id,
    ]);
    await sql(
      `insert into prices (id, product_id, organization_id, type, currency, unit_amount, tax_behavior, interval,
         interval_count, created_at)
       values (?, ?, ?, 'recurring', 'brl', ?, 'unspecified', ?, 1, now())`,
      [priceId, productId, org.id, subtotal, options.interval ?? 'month'],
    );
    const discountId = options.discount ? uuidv7() : null;
    if (options.discount) {
      const d = options.discount;
      await sql(
        `insert into discounts (id, organization_id, name, type, basis_points, duration, duration_in_months, created_at)
         values (?, ?, 'Launch', 'percentage', ?, ?, ?, now())`,
        [discountId, org.id, d.basisPoints, d.duration, d.durationInMonths ?? null],
      );
    }
    // What the first period cost (the discount taken off, rounded as prices are: to the cent).
    const firstAmount = options.discount
      ? subtotal - Math.round((subtotal * options.discount.basisPoints) / 10_000)
      : subtotal;
    const email = `${uuidv7()}@example.com`;
    await sql(
      `insert into customers (id, organization_id, email, name, created_at, updated_at) values (?, ?, ?, 'Ana', now(), now())`,
      [customerId, org.id, email],
    );
    const token = await sim.tokenizeCard(
      { number: cardNumber, holderName: 'ANA', expirationMonth: '12', expirationYear: '2035', cvv: '123' },
      `test:card:${id}`,
    );
    const now = await clockTo(options.start ?? nextMidMonth(new Date(await env.currentTimeMs())));
    // The checkout that sold it (renewal checkouts copy its customer details).
    await sql(
      `insert into checkouts (id, organization_id, status, client_secret, workflow_id, product_id, product_price_id,
         currency, subtotal_amount, amount, customer_id, customer_email, recurrence_billing, expires_at, created_at,
         updated_at)
       values (?, ?, 'succeeded', ?, ?, ?, ?, 'BRL', ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        checkoutId,
        org.id,
        `cs_${uuidv7()}`,
        `checkout:${checkoutId}`,
        productId,
        priceId,
        subtotal,
        subtotal,
        customerId,
        email,
        options.billing ?? 'manual',
        now,
        now,
        now,
      ],
    );
    const trialEnd = options.trialDays ? new Date(now.getTime() + options.trialDays * DAY) : null;
    const anchor = trialEnd ?? now;
    const periodEnd =
      trialEnd ??
      (options.interval === 'week'
        ? new Date(now.getTime() + 7 * DAY)
        : addMonth(now, options.interval === 'year' ? 12 : 1));
    const gatewaySubscriptionId =
      options.billing === 'gateway' ? await gatewaySubscription(id, subtotal, token.id, email, periodEnd) : null;
    const pix = options.billing === 'pix_automatico';
    await sql(
      `insert into subscriptions (id, organization_id, customer_id, product_id, price_id, status, recurrence_billing,
         amount, subtotal_amount, currency, current_period_start, current_period_end, trial_end, created_at,
         workflow_id, billing_anchor, period_number, card_token_id, gateway_subscription_id, checkout_id, discount_id)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, 'brl', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        id,
        org.id,
        customerId,
        productId,
        priceId,
        trialEnd ? 'trialing' : 'active',
        options.billing ?? 'manual',
        firstAmount,
        subtotal,
        now,
        periodEnd,
        trialEnd,
        now,
        subscriptionWorkflowId(id),
        anchor,
        trialEnd ? 0 : 1,
        options.noCard || pix ? null : token.id,
        gatewaySubscriptionId,
        checkoutId,
        discountId,
      ],
    );
    const periodicity = MANDATE_PERIODICITY[options.interval ?? 'month'];
    const mandateId = pix
      ? await mandate(id, org.id, customerId, now, periodEnd, options.payer ?? 'approves', periodicity)
      : null;
    return { id, organizationId: org.id, productId, priceId, anchor, gatewaySubscriptionId, checkoutId, mandateId };
  }

  /**
   * A Pix Automático subscription's mandate, as its checkout leaves it: created at the simulator, answered
   * by its payer, and recorded through the mandate's repository. The gateway's id.
   */
  async function mandate(
    id: string,
    organizationId: string,
    customerId: string,
    now: Date,
    start: Date,
    payer: PixPayerPersona,
    periodicity: MandatePeriodicity,
  ) {
    // Its dates are the test server's (workflow time): so is the simulator's clock, for it.
    const realClock = sim.now;
    sim.now = () => now;
    try {
      return await authorizedMandate(id, organizationId, customerId, start, payer, periodicity);
    } finally {
      sim.now = realClock;
    }
  }

  async function authorizedMandate(
    id: string,
    organizationId: string,
    customerId: string,
    start: Date,
    payer: PixPayerPersona,
    periodicity: MandatePeriodicity,
  ) {
    const created = await sim.createMandate(
      {
        reference: id,
        objectLabel: 'Club mensal',
        debtor: { name: 'Ana Souza', taxId: '12345678909' },
        startDate: brasiliaDate(start.getTime()),
        endDate: null,
        periodicity,
        fixedAmount: null,
        minimumAmount: null,
        retryPolicy: 'three_in_seven_days',
        journey: 'journey_2',
      },
      `test:mandate:${id}`,
    );
    const answered = await sim.authorizeMandate(created.id, payer);
    await upsertMandate(
      orm.em.fork(),
      { organizationId, subscriptionId: id, customerId, currency: 'brl', gateway: answered },
      start,
    );
    return created.id;
  }

  /** The gateway's side of a gateway-billed subscription, as the checkout creates it. */
  async function gatewaySubscription(id: string, amount: number, cardToken: string, email: string, start: Date) {
    const plan = await sim.createRecurrencePlan(
      { reference: id, name: 'Club', amount, currency: 'BRL', interval: 'month', intervalCount: 1 },
      `test:plan:${id}`,
    );
    const buyer = await sim.createBuyer({ email }, `test:buyer:${id}`);
    const created = await sim.createSubscription(
      { reference: id, planId: plan.id, buyerId: buyer.id, cardToken, startDate: isoDate(start) },
      `test:subscription:${id}`,
    );
    return created.id;
  }

  /** Runs the subscription's workflow while `during` lets workflow time pass (the worker's settings overridable). */
  async function run<T>(
    subscriptionId: string,
    during: (handle: Handle) => Promise<T>,
    gateway: PaymentGateway = sim,
    settings: Partial<Config> = {},
  ): Promise<T> {
    // A queue per run: a test that times out leaves its worker behind without blocking the next.
    const taskQueue = `${taskQueuePrefix}-${subscriptionId}`;
    const worker = await workers.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: bundle,
      // The renewal checkouts it opens run their workflows here too (the test server skips time only
      // while every workflow is idle).
      activities: createActivities({
        orm,
        gateway: onWorkflowTime(gateway),
        temporal: env.client,
        config: { ...config, ...settings, TEMPORAL_TASK_QUEUE: taskQueue },
      }),
    });
    return worker.runUntil(async () => {
      const handle = await env.client.workflow.start(subscriptionWorkflow, {
        workflowId: subscriptionWorkflowId(subscriptionId),
        taskQueue,
        args: [{ subscriptionId }],
      });
      try {
        return await during(handle);
      } finally {
        // A run still waiting on a timer would hold the test server's clock once this worker is gone:
        // the subscription's, and the renewal checkouts' it opened.
        await handle.terminate('test over').catch(() => undefined);
        const opened = await sql(
          'select workflow_id from checkouts where subscription_id = ? and renewal_period is not null',
          [subscriptionId],
        );
        for (const c of opened) {
          await env.client.workflow
            .getHandle(c.workflow_id)
            .terminate('test over')
            .catch(() => undefined);
        }
      }
    });
  }

  /**
   * The gateway as the activities call it: the simulator's clock set, at each Pix Automático call, to the workflow time
   * the activity was scheduled at (the time-skipping server's), so that its windows and dates follow the
   * months the test skips, as a real gateway's follow real time.
   */
  function onWorkflowTime(gateway: PaymentGateway): PaymentGateway {
    if (gateway !== sim) return gateway;
    return new Proxy(sim, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver);
        // Only Pix Automático's calls: the cards' expiry dates are real ones, far before the skipped years.
        if (typeof value !== 'function' || !PIX_AUTOMATICO_CALLS.has(String(name))) return value;
        return async (...args: unknown[]) => {
          const at = activityContext.current().info.currentAttemptScheduledTimestampMs;
          const realClock = target.now;
          target.now = () => new Date(at);
          try {
            return await value.apply(target, args);
          } finally {
            target.now = realClock;
          }
        };
      },
    });
  }

  /** Moves the test server's clock forward to `instant` (which must not have passed) and returns it. */
  async function clockTo(instant: Date): Promise<Date> {
    const now = await env.currentTimeMs();
    if (now > instant.getTime()) {
      throw new Error(`the test server's clock is past ${instant.toISOString()}: ${new Date(now).toISOString()}`);
    }
    await env.sleep(instant.getTime() - now);
    return instant;
  }

  /** Workflow time until `instant` and then `extra` more, in ms. */
  const until = async (instant: Date, extra: number): Promise<number> =>
    instant.getTime() - (await env.currentTimeMs()) + extra;

  /** The gateway's own record of what it captured for a reference (a subscription, an invoice), in cents. */
  const captured = (reference: string): Promise<number[]> => capturedAmounts(orm, reference);

  const charges = (subscriptionId: string) =>
    sql(
      `select period_number, try_number, amount::int as amount, outcome, decline_reason from subscription_charges
       where subscription_id = ? order by period_number, try_number`,
      [subscriptionId],
    );
  const row = async (subscriptionId: string) =>
    (await sql('select * from subscriptions where id = ?', [subscriptionId]))[0];
  const eventTypes = async (organizationId: string) =>
    (
      await sql(
        `select type from events where organization_id = ? and type like 'subscription.%' order by created_at, id`,
        [organizationId],
      )
    ).map((e) => e.type);

  return {
    get env() {
      return env;
    },
    get sim() {
      return sim;
    },
    get orm() {
      return orm;
    },
    sql,
    subscription,
    run,
    until,
    captured,
    charges,
    row,
    eventTypes,
  };
}
