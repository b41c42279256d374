import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import { createSubscriptionActivities } from '../../activities/subscriptions.ts';
import { loadConfig } from '../../config/env.ts';
import { openOrm, type Orm } from '../../db/orm.ts';
import { renewalChargeKey } from '../../domain/subscriptions.ts';
import { openGateway } from '../../gateway/index.ts';
import type { SimulatedGateway } from '@billing/simulated-gateway';
import { createTemporalClient } from '../../temporal/client.ts';
import { startApi, type TestApi } from '../helpers/api.ts';
import { testEnv } from '../helpers/env.ts';
import { makeOrganization } from '../helpers/fixtures.ts';
import { paidSubscription } from '../helpers/subscriptions.ts';

/**
 * A renewal holds one of the worker's connections (the subscription's row lock) while it calls the
 * gateway. The embedded simulator the worker opens (openGateway) draws on a pool of its own, so more
 * renewals at once than the worker's pool has connections all complete instead of deadlocking.
 */
const POOL = 2;
let api: TestApi;
let temporal: Client;
let orm: Orm;
let gateway: Awaited<ReturnType<typeof openGateway>>;
beforeAll(async () => {
  api = await startApi();
  temporal = createTemporalClient(api.config);
  const config = loadConfig(testEnv({ DATABASE_POOL_MAX: String(POOL) }), 'worker');
  orm = await openOrm(config.DATABASE_URL, POOL);
  gateway = await openGateway(config, 'pool-test');
});
afterAll(async () => {
  await (gateway.gateway as SimulatedGateway).settleCallbacks();
  await gateway.close();
  await orm.close();
  await (api.gateway as SimulatedGateway).settleCallbacks();
  await temporal.connection.close();
  await api.close();
});

describe('the embedded simulator', () => {
  it(`charges ${POOL * 3} renewals at once on a worker pool of ${POOL} connections`, async () => {
    const org = await makeOrganization(api.orm);
    const subscriptions = [];
    for (let i = 0; i < POOL * 3; i++) {
      subscriptions.push(
        (await paidSubscription(api, temporal, { organizationId: org.id, recurrenceBilling: 'manual' })).row,
      );
    }
    const activities = createSubscriptionActivities({ orm, gateway: gateway.gateway });
    const outcomes = await Promise.all(
      subscriptions.map((s) => activities.chargeRenewal({ subscriptionId: s.id, period: 2, tryNumber: 1 })),
    );
    expect(outcomes.map((o) => [o.amount, o.payment?.status])).toEqual(subscriptions.map(() => [4_990, 'succeeded']));
    // Each captured once on the gateway's ledger, under its period's charge key.
    const keys = subscriptions.map((s) => renewalChargeKey(s.id, 2, 1));
    const captures = await api.orm.em
      .getConnection()
      .execute<{ amount: string }[]>(
        `select amount from gateway_sim.ledger where kind = 'capture' and idempotency_key = any(?::text[])`,
        [`{${keys.join(',')}}`],
      );
    expect(captures.map((c) => Number(c.amount))).toEqual(keys.map(() => 4_990));
  }, 60_000);
});
