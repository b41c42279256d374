import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import { defineSearchAttributeKey } from '@temporalio/common';
import { uuidv7 } from 'uuidv7';
import { startRecurrencePlanWorkflow } from '../../api/product-prices.ts';
import { loadConfig } from '../../config/env.ts';
import { openOrm, type Orm } from '../../db/orm.ts';
import { createTemporalClient } from '../../temporal/client.ts';
import { makeOrganization } from '../helpers/fixtures.ts';
import { TEST_TASK_QUEUE, testEnv } from '../helpers/env.ts';
import { recordHistory } from '../helpers/histories.ts';
import { recurrencePlanWorkflowId } from '../../contracts/recurrence-plan.ts';

/**
 * The recurrence-plan workflow on the dev server, run by the real worker process of globalSetup
 * (its own simulated gateway, the same PostgreSQL books).
 */
let orm: Orm;
let temporal: Client;
beforeAll(async () => {
  const config = loadConfig(testEnv());
  orm = await openOrm(config.DATABASE_URL, 2);
  temporal = createTemporalClient(config);
});
afterAll(async () => {
  await temporal.connection.close();
  await orm.close();
});

const ORGANIZATION_ID = defineSearchAttributeKey('OrganizationId', 'KEYWORD');

/** A product with one price, written straight to the database (the API has its own tests). */
async function makePrice(type: 'recurring' | 'one_time') {
  const org = await makeOrganization(orm);
  const productId = uuidv7();
  const priceId = uuidv7();
  const conn = orm.em.getConnection();
  await conn.execute(
    `insert into products (id, organization_id, name, metadata, is_archived, is_tax_applicable, default_price_id, created_at)
     values (?, ?, 'Club', '{}', false, true, null, now())`,
    [productId, org.id],
  );
  await conn.execute(
    `insert into prices (id, product_id, organization_id, name, type, currency, unit_amount, interval, interval_count, tax_behavior, active, metadata, created_at)
     values (?, ?, ?, 'Club monthly', ?, 'brl', 3990, ?, ?, 'unspecified', true, '{}', now())`,
    [priceId, productId, org.id, type, type === 'recurring' ? 'month' : null, type === 'recurring' ? 2 : null],
  );
  await conn.execute('update products set default_price_id = ? where id = ?', [priceId, productId]);
  return { organizationId: org.id, priceId };
}

async function planRows(priceId: string) {
  return orm.em
    .getConnection()
    .execute(
      'select id, name, amount, currency, interval, interval_count from gateway_sim.recurrence_plans where reference = ?',
      [priceId],
    );
}

async function storedPlanId(priceId: string) {
  const [row] = await orm.em
    .getConnection()
    .execute<{ gateway_recurrence_plan_id: string | null }[]>(
      'select gateway_recurrence_plan_id from prices where id = ?',
      [priceId],
    );
  return row!.gateway_recurrence_plan_id;
}

describe('recurrencePlanWorkflow', () => {
  it('creates the price’s gateway plan, stores its id, and is findable by OrganizationId', async () => {
    const { organizationId, priceId } = await makePrice('recurring');
    const workflowId = await startRecurrencePlanWorkflow(temporal, TEST_TASK_QUEUE, { id: priceId, organizationId });
    expect(workflowId).toBe(`recurrence-plan:${priceId}`);
    expect(workflowId).toBe(recurrencePlanWorkflowId(priceId));

    const handle = temporal.workflow.getHandle(workflowId);
    const planId = await handle.result();
    expect(planId).toMatch(/^plan_[0-9a-f]{24}$/);
    expect(await storedPlanId(priceId)).toBe(planId);
    expect(await planRows(priceId)).toEqual([
      { id: planId, name: 'Club monthly', amount: '3990', currency: 'brl', interval: 'month', interval_count: 2 },
    ]);

    const description = await handle.describe();
    expect(description.status.name).toBe('COMPLETED');
    expect(description.taskQueue).toBe(TEST_TASK_QUEUE);
    expect(description.typedSearchAttributes.get(ORGANIZATION_ID)).toBe(organizationId);
    await recordHistory(temporal, 'recurrence-plan-created', workflowId);
  });

  it('makes no second plan when started again for the same price', async () => {
    const { organizationId, priceId } = await makePrice('recurring');
    const first = await temporal.workflow
      .getHandle(await startRecurrencePlanWorkflow(temporal, TEST_TASK_QUEUE, { id: priceId, organizationId }))
      .result();
    // Start again twice at once: one joins the other (USE_EXISTING) or starts a fresh run after it closed.
    const again = await Promise.all([
      startRecurrencePlanWorkflow(temporal, TEST_TASK_QUEUE, { id: priceId, organizationId }),
      startRecurrencePlanWorkflow(temporal, TEST_TASK_QUEUE, { id: priceId, organizationId }),
    ]);
    for (const id of again) expect(await temporal.workflow.getHandle(id).result()).toBe(first);
    expect(await storedPlanId(priceId)).toBe(first);
    expect(await planRows(priceId)).toHaveLength(1);
  });

  it('returns null and makes no plan for a one-time price', async () => {
    const { organizationId, priceId } = await makePrice('one_time');
    const workflowId = await startRecurrencePlanWorkflow(temporal, TEST_TASK_QUEUE, { id: priceId, organizationId });
    expect(await temporal.workflow.getHandle(workflowId).result()).toBeNull();
    expect(await storedPlanId(priceId)).toBeNull();
    expect(await planRows(priceId)).toEqual([]);
  });
});
