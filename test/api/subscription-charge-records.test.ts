import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { uuidv7 } from 'uuidv7';
import { chargesOf, checkoutChargeRecorded, insertCharge, markChargeRefunded } from '../../db/subscription/charges.ts';
import { hasLiveSubscription } from '../../db/subscription/lists.ts';
import { insertSubscription } from '../../db/subscription/rows.ts';
import { startApi, type TestApi } from '../helpers/api.ts';
import { makeTenant, unique } from '../helpers/fixtures.ts';

/**
 * The renewal timeline's writes in the subscription repository (db/subscription/charges.ts): a try is
 * recorded once, a row without its transaction is completed by the try that brings one, and a
 * succeeded try is marked refunded once.
 */
let api: TestApi;
beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => {
  await api.close();
});

const sql = (query: string, params: unknown[] = []): Promise<any[]> =>
  api.orm.em.getConnection().execute(query, params);

async function makeSubscription(orgId: string): Promise<string> {
  const [productId, priceId, customerId, id] = [uuidv7(), uuidv7(), uuidv7(), uuidv7()];
  await sql(`insert into products (id, organization_id, name, created_at) values (?, ?, 'Plan', now())`, [
    productId,
    orgId,
  ]);
  await sql(
    `insert into prices (id, product_id, organization_id, type, currency, unit_amount, interval, interval_count,
       tax_behavior, created_at)
     values (?, ?, ?, 'recurring', 'brl', 5990, 'month', 1, 'unspecified', now())`,
    [priceId, productId, orgId],
  );
  await sql(
    `insert into customers (id, organization_id, email, created_at, updated_at) values (?, ?, ?, now(), now())`,
    [customerId, orgId, `${unique('buyer')}@example.com`],
  );
  const start = new Date('2025-01-01T00:00:00Z');
  const row = await insertSubscription(api.orm.em.fork(), {
    id,
    organizationId: orgId,
    customerId,
    productId,
    priceId,
    checkoutId: null,
    status: 'active',
    recurrenceBilling: 'manual',
    gatewaySubscriptionId: null,
    amount: 5990,
    currency: 'brl',
    discountId: null,
    currentPeriodStart: start,
    currentPeriodEnd: new Date('2025-02-01T00:00:00Z'),
    trialEnd: null,
    cancelAtPeriodEnd: false,
    canceledAt: null,
    createdAt: start,
    modifiedAt: null,
    workflowId: `subscription:${id}`,
    billingAnchor: start,
    anchorPeriod: 1,
    periodNumber: 1,
    cardTokenId: null,
    endedAt: null,
    subtotalAmount: 5990,
    balanceAmount: 0,
    priceChanges: 0,
    balanceSettledPeriod: null,
    metadata: { plan: 'basic' },
  });
  expect(row).toMatchObject({ id, amount: 5990, currentPeriodStart: start, metadata: { plan: 'basic' } });
  expect(await hasLiveSubscription(api.orm.em.fork(), orgId, customerId)).toBe(true);
  return id;
}

async function makeTransaction(orgId: string): Promise<string> {
  const id = uuidv7();
  await sql(
    `insert into transactions (id, organization_id, gateway_transaction_id, status, payment_type, amount, currency,
       captured_amount, created_at, updated_at)
     values (?, ?, ?, 'succeeded', 'credit', 5990, 'BRL', 5990, now(), now())`,
    [id, orgId, unique('gw')],
  );
  return id;
}

describe('the renewal timeline (db/subscription/charges.ts)', () => {
  it('records a try once, and completes a row without its transaction with the try that brings one', async () => {
    const t = await makeTenant(api.orm);
    const subscription = { id: await makeSubscription(t.org.id), organizationId: t.org.id };
    const em = api.orm.em.fork();
    const charge = {
      period: 2,
      tryNumber: 1,
      amount: 5990,
      currency: 'BRL',
      outcome: 'succeeded' as const,
      declineReason: null,
      transactionId: null,
      at: new Date('2025-02-01T00:00:00Z'),
    };
    expect(await insertCharge(em, subscription, charge)).toBe(true);
    expect(await insertCharge(em, subscription, charge)).toBe(false);

    const transactionId = await makeTransaction(t.org.id);
    const later = new Date('2025-02-01T00:05:00Z');
    expect(await insertCharge(em, subscription, { ...charge, transactionId, at: later })).toBe(true);
    const other = await makeTransaction(t.org.id);
    expect(await insertCharge(em, subscription, { ...charge, transactionId: other, at: new Date() })).toBe(false);

    const [row, ...more] = await chargesOf(em, subscription.id);
    expect(more).toEqual([]);
    expect(await checkoutChargeRecorded(em, uuidv7())).toBe(false);
    expect(row).toMatchObject({ periodNumber: 2, tryNumber: 1, amount: 5990, transactionId, attemptedAt: later });

    expect(await markChargeRefunded(em, subscription.id, { period: 2, tryNumber: 1 })).toBe(true);
    expect(await markChargeRefunded(em, subscription.id, { period: 2, tryNumber: 1 })).toBe(false);
    expect((await chargesOf(em, subscription.id))[0]!.outcome).toBe('refunded');
  });
});
