import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { WorkflowUpdateStage } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import path from 'node:path';
import { uuidv7 } from 'uuidv7';
import { createActivities } from '../../activities/index.ts';
import { openOrm, type Orm } from '../../db/orm.ts';
import type { PaymentGateway } from '../../gateway/port.ts';
import { SimulatedGateway } from '../../gateway/simulator.ts';
import { temporalTestServerPath } from '../../scripts/tools.ts';
import {
  changeSubscriptionUpdate,
  subscriptionStateQuery,
  subscriptionWorkflow,
  subscriptionWorkflowId,
} from '../../workflows/subscription.ts';
import { makeOrganization } from '../helpers/fixtures.ts';
import { TEST_DATABASE_URL } from '../helpers/env.ts';
import { recordHistory } from '../helpers/histories.ts';

/**
 * A subscription's workflow over months of billing on the time-skipping test server: renewals,
 * dunning to unpaid and to canceled, hard declines, cancellation at period end and revocation. Its
 * activities are the real ones, on the test database and the simulated gateway, whose ledger says
 * what was really charged.
 */
const TASK_QUEUE = 'subscription-workflow-test';
const DAY = 86_400_000;
let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleWithSourceMap;
let orm: Orm;
let sim: SimulatedGateway;

beforeAll(async () => {
  env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: temporalTestServerPath()! } },
  });
  bundle = await bundleWorkflowCode({
    workflowsPath: path.resolve(import.meta.dirname, '../../workflows/subscription.ts'),
  });
  orm = await openOrm(TEST_DATABASE_URL, 4);
  sim = new SimulatedGateway(orm);
}, 120_000);
afterAll(async () => {
  await orm?.close();
  await env?.teardown();
});

const sql = (query: string, params: unknown[] = []): Promise<any[]> => orm.em.getConnection().execute(query, params);

const APPROVE = '4111111111111111';
const DECLINE = '4000000000000002';
const EXPIRED = '4000000000000069';

/**
 * An active monthly subscription of R$ 99,00 in its first period, paid with `cardNumber`, whose
 * period ends `periodDays` days after the test server's now.
 */
async function subscription(
  cardNumber: string,
  options: { settings?: Record<string, unknown>; trialDays?: number; subtotal?: number } = {},
) {
  const org = await makeOrganization(orm);
  if (options.settings) {
    await sql(`update organizations set subscription_settings = subscription_settings || ?::jsonb where id = ?`, [
      JSON.stringify(options.settings),
      org.id,
    ]);
  }
  const [productId, priceId, customerId, id] = [uuidv7(), uuidv7(), uuidv7(), uuidv7()];
  const subtotal = options.subtotal ?? 9_900;
  await sql(`insert into products (id, organization_id, name, created_at) values (?, ?, 'Club', now())`, [
    productId,
    org.id,
  ]);
  await sql(
    `insert into prices (id, product_id, organization_id, type, currency, unit_amount, tax_behavior, interval,
       interval_count, created_at)
     values (?, ?, ?, 'recurring', 'brl', ?, 'unspecified', 'month', 1, now())`,
    [priceId, productId, org.id, subtotal],
  );
  await sql(
    `insert into customers (id, organization_id, email, name, created_at, updated_at) values (?, ?, ?, 'Ana', now(), now())`,
    [customerId, org.id, `${uuidv7()}@example.com`],
  );
  const token = await sim.tokenizeCard(
    { number: cardNumber, holderName: 'ANA', expirationMonth: '12', expirationYear: '2035', cvv: '123' },
    `test:card:${id}`,
  );
  const now = new Date(await env.currentTimeMs());
  const trialEnd = options.trialDays ? new Date(now.getTime() + options.trialDays * DAY) : null;
  const anchor = trialEnd ?? now;
  const periodEnd = trialEnd ?? addMonth(now);
  await sql(
    `insert into subscriptions (id, organization_id, customer_id, product_id, price_id, status, recurrence_billing,
       amount, subtotal_amount, currency, current_period_start, current_period_end, trial_end, created_at,
       workflow_id, billing_anchor, period_number, card_token_id)
     values (?, ?, ?, ?, ?, ?, 'manual', ?, ?, 'brl', ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      id,
      org.id,
      customerId,
      productId,
      priceId,
      trialEnd ? 'trialing' : 'active',
      subtotal,
      subtotal,
      now,
      periodEnd,
      trialEnd,
      now,
      subscriptionWorkflowId(id),
      anchor,
      trialEnd ? 0 : 1,
      token.id,
    ],
  );
  return { id, organizationId: org.id, anchor };
}

function addMonth(d: Date, months = 1): Date {
  const out = new Date(d);
  out.setUTCMonth(out.getUTCMonth() + months);
  return out;
}

/** Runs the subscription's workflow while `during` lets workflow time pass. */
async function run<T>(
  subscriptionId: string,
  during: (handle: Handle) => Promise<T>,
  gateway: PaymentGateway = sim,
): Promise<T> {
  // A queue per run: a test that times out leaves its worker behind without blocking the next.
  const taskQueue = `${TASK_QUEUE}-${subscriptionId}`;
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: bundle,
    activities: createActivities({ orm, gateway }),
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
      // A run still waiting on a timer would hold the test server's clock once this worker is gone.
      await handle.terminate('test over').catch(() => undefined);
    }
  });
}

/** Workflow time until `instant` and then `extra` more, in ms. */
async function until(instant: Date, extra: number): Promise<number> {
  return instant.getTime() - (await env.currentTimeMs()) + extra;
}
type Handle = Awaited<ReturnType<typeof env.client.workflow.start<typeof subscriptionWorkflow>>>;

/** The gateway's own record of what it captured for the subscription, in cents. */
async function captured(subscriptionId: string): Promise<number[]> {
  const rows = await sql(
    `select l.amount from gateway_sim.ledger l join gateway_sim.transactions t on t.id = l.transaction_id
     where t.reference = ? and l.kind = 'capture' order by l.id`,
    [subscriptionId],
  );
  return rows.map((r) => Number(r.amount));
}

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

describe('subscription workflow', () => {
  it('renews a monthly subscription once per period for a year, on the anchored dates, charging the price each time', async () => {
    const s = await subscription(APPROVE);
    const state = await run(s.id, async (handle) => {
      await env.sleep(365 * DAY + 3_600_000);
      // The first run: one period, ended by continue-as-new.
      await recordHistory(env.client, 'subscription-renewed', handle.workflowId, handle.firstExecutionRunId);
      return handle.query(subscriptionStateQuery);
    });
    // Period 1 was the checkout's; periods 2–13 began within the year.
    expect(state.periodNumber).toBe(13);
    expect(await captured(s.id)).toEqual(Array(12).fill(9_900));
    const timeline = await charges(s.id);
    expect(timeline).toHaveLength(12);
    expect(timeline.every((c) => c.outcome === 'succeeded' && c.amount === 9_900 && c.try_number === 1)).toBe(true);
    const r = await row(s.id);
    expect(r.status).toBe('active');
    expect(new Date(r.current_period_start).toISOString()).toBe(addMonth(s.anchor, 12).toISOString());
    expect(new Date(r.current_period_end).toISOString()).toBe(addMonth(s.anchor, 13).toISOString());
    const [sales] = await sql(
      `select count(*)::int as n, sum(amount)::int as total from sales where subscription_id = ?`,
      [s.id],
    );
    expect(sales).toEqual({ n: 12, total: 12 * 9_900 });
  }, 60_000);

  it('charges the first period when the trial ends', async () => {
    const s = await subscription(APPROVE, { trialDays: 7 });
    const state = await run(s.id, async (handle) => {
      await env.sleep(8 * DAY);
      return handle.query(subscriptionStateQuery);
    });
    expect(state.periodNumber).toBe(1);
    expect(await captured(s.id)).toEqual([9_900]);
    expect((await row(s.id)).status).toBe('active');
    expect(await eventTypes(s.organizationId)).toEqual(['subscription.active']);
  }, 60_000);

  it('a refused renewal is past due, retried 1, 3, 5 and 7 days later, then unpaid; every try says why', async () => {
    const s = await subscription(DECLINE);
    const status = await run(s.id, async (handle) => {
      await env.sleep(31 * DAY + 8 * DAY);
      return (await handle.query(subscriptionStateQuery)).status;
    });
    expect(status).toBe('unpaid');
    expect(await captured(s.id)).toEqual([]);
    const timeline = await charges(s.id);
    expect(timeline.map((c) => [c.period_number, c.try_number, c.outcome, c.decline_reason])).toEqual(
      [1, 2, 3, 4, 5].map((n) => [2, n, 'failed', 'card_declined']),
    );
    expect((await row(s.id)).status).toBe('unpaid');
    expect(await eventTypes(s.organizationId)).toEqual([
      'subscription.past_due',
      ...Array(4).fill('subscription.updated'),
      'subscription.updated',
    ]);
  }, 60_000);

  it("follows the organization's own dunning schedule", async () => {
    const s = await subscription(DECLINE, { settings: { dunning_retry_days: [2] } });
    const status = await run(s.id, async (handle) => {
      await handle.query(subscriptionStateQuery);
      await env.sleep(await until(addMonth(s.anchor), 3 * DAY));
      return (await handle.query(subscriptionStateQuery)).status;
    });
    expect(status).toBe('unpaid');
    const timeline = await sql(
      `select try_number, attempted_at from subscription_charges where subscription_id = ? order by try_number`,
      [s.id],
    );
    expect(timeline.map((c) => c.try_number)).toEqual([1, 2]);
    const gap = new Date(timeline[1].attempted_at).getTime() - new Date(timeline[0].attempted_at).getTime();
    // Two days apart, give or take the charge's own round trip.
    expect(Math.abs(gap - 2 * DAY)).toBeLessThan(60_000);
  }, 60_000);

  it('ends canceled when the organization says so, and a hard decline skips the retries', async () => {
    const s = await subscription(EXPIRED, { settings: { dunning_exhausted_status: 'canceled' } });
    const result = await run(s.id, async (handle) => {
      await env.sleep(32 * DAY);
      const ended = await handle.result();
      await recordHistory(env.client, 'subscription-hard-decline-canceled', handle.workflowId);
      return ended;
    });
    expect(result).toBe('canceled');
    expect((await charges(s.id)).map((c) => c.decline_reason)).toEqual(['expired_card']);
    const r = await row(s.id);
    expect(r.status).toBe('canceled');
    expect(r.ended_at).not.toBeNull();
  }, 60_000);

  it('canceled at period end: ends when the period does, with no further charge', async () => {
    const s = await subscription(APPROVE);
    const result = await run(s.id, async (handle) => {
      const record = await handle.executeUpdate(changeSubscriptionUpdate, { args: ['cancel_at_period_end'] });
      expect(record).toMatchObject({ id: s.id, status: 'active', cancel_at_period_end: true, ended_at: null });
      const result = await handle.result();
      await recordHistory(env.client, 'subscription-canceled-at-period-end', handle.workflowId);
      return result;
    });
    expect(result).toBe('canceled');
    expect(await captured(s.id)).toEqual([]);
    expect(await eventTypes(s.organizationId)).toEqual(['subscription.updated', 'subscription.canceled']);
  }, 60_000);

  it('uncanceled before the period ends: it renews', async () => {
    const s = await subscription(APPROVE);
    const state = await run(s.id, async (handle) => {
      await handle.executeUpdate(changeSubscriptionUpdate, { args: ['cancel_at_period_end'] });
      await handle.executeUpdate(changeSubscriptionUpdate, { args: ['uncancel'] });
      await env.sleep(32 * DAY);
      return handle.query(subscriptionStateQuery);
    });
    expect(state.periodNumber).toBe(2);
    expect(await captured(s.id)).toEqual([9_900]);
  }, 60_000);

  it('revoked during dunning: no retry is ever charged again', async () => {
    const s = await subscription(DECLINE);
    const result = await run(s.id, async (handle) => {
      await env.sleep(await until(addMonth(s.anchor), DAY / 2));
      expect((await handle.query(subscriptionStateQuery)).status).toBe('past_due');
      await handle.executeUpdate(changeSubscriptionUpdate, { args: ['revoke'] });
      await env.sleep(10 * DAY);
      const result = await handle.result();
      await recordHistory(env.client, 'subscription-revoked-in-dunning', handle.workflowId);
      return result;
    });
    expect(result).toBe('canceled');
    expect(await charges(s.id)).toHaveLength(1);
    expect(await eventTypes(s.organizationId)).toEqual(['subscription.past_due', 'subscription.revoked']);
  }, 60_000);

  it('revoked while a renewal charge is on its way: the capture is refunded, and nothing is charged again', async () => {
    const s = await subscription(APPROVE);
    // The gateway holds the renewal's charge until the revocation is written.
    let reached!: () => void;
    let release!: () => void;
    const atCharge = new Promise<void>((resolve) => (reached = resolve));
    const released = new Promise<void>((resolve) => (release = resolve));
    const gateway = Object.create(sim) as SimulatedGateway;
    gateway.chargeCard = async (input, key) => {
      reached();
      await released;
      return sim.chargeCard(input, key);
    };
    const result = await run(
      s.id,
      async (handle) => {
        const skipping = env.sleep(await until(addMonth(s.anchor), DAY));
        await atCharge;
        // The workflow has taken the revocation (its row waits for the charge's lock) before the gateway answers.
        const revoking = await handle.startUpdate(changeSubscriptionUpdate, {
          args: ['revoke'],
          waitForStage: WorkflowUpdateStage.ACCEPTED,
        });
        release();
        expect((await revoking.result()).status).toBe('canceled');
        await skipping;
        return handle.result();
      },
      gateway,
    );
    expect(result).toBe('canceled');
    const refunds = await sql(
      `select l.amount from gateway_sim.ledger l join gateway_sim.transactions t on t.id = l.transaction_id
       where t.reference = ? and l.kind = 'refund'`,
      [s.id],
    );
    expect(await captured(s.id)).toEqual([9_900]);
    expect(refunds.map((r) => Number(r.amount))).toEqual([9_900]);
    expect((await charges(s.id)).map((c) => c.outcome)).toEqual(['refunded']);
    const [sale] = await sql('select status, refunded_amount::int as refunded from sales where subscription_id = ?', [
      s.id,
    ]);
    expect(sale).toEqual({ status: 'refunded', refunded: 9_900 });
    expect((await row(s.id)).period_number).toBe(1);
  }, 60_000);
});
