import { beforeAll, describe, expect, it } from '@jest/globals';
import { useApi, type TestApi } from '../helpers/api.ts';
import { makeApiKey, makeOat, makeTenant } from '../helpers/fixtures.ts';
import { metricsSeed, type MetricsSeed } from '../helpers/metrics-seed.ts';

/**
 * GET /metrics/ over records seeded with known amounts and instants. Every expected figure below was
 * worked out by hand from the seed (the comments show the sums); none is computed by the test.
 * America/Sao_Paulo is UTC−3 all year (no daylight saving since 2019): local midnight is 03:00Z.
 */
let api: TestApi;
useApi(({ api: started }) => (api = started));

type Tenant = Awaited<ReturnType<typeof makeTenant>>;
let T: Tenant;
let other: Tenant;

let ids: MetricsSeed['ids'];
let product: MetricsSeed['product'];
let customer: MetricsSeed['customer'];
let sale: MetricsSeed['sale'];
let subscription: MetricsSeed['subscription'];
let checkout: MetricsSeed['checkout'];

beforeAll(async () => {
  ({ ids, product, customer, sale, subscription, checkout } = metricsSeed(api.orm));
  T = await makeTenant(api.orm);
  other = await makeTenant(api.orm);
  const org = T.org.id;
  await product(org, 'course', { type: 'one_time', amount: 10_000 });
  await product(org, 'monthly', { type: 'recurring', amount: 5990, interval: 'month' });
  await product(org, 'yearly', { type: 'recurring', amount: 120_000, interval: 'year' });
  await product(org, 'weekly', { type: 'recurring', amount: 1000, interval: 'week' });
  await product(org, 'quarterly', { type: 'recurring', amount: 8999, interval: 'month', count: 3 });
  await customer(org, 'ana');
  await customer(org, 'bia');

  // Sales. Local (São Paulo) dates in the comments.
  await sale(org, 'course', 'bia', 7777, '2025-02-28T23:59:59Z'); // Feb 28, 20:59
  await sale(org, 'course', 'ana', 10_000, '2025-03-01T12:00:00Z', 2500); // Mar 1
  await sale(org, 'course', 'bia', 4999, '2025-03-02T02:30:00Z'); // Mar 1, 23:30 (Mar 2 in UTC)
  await sale(org, 'monthly', 'ana', 5990, '2025-03-02T03:00:00Z'); // Mar 2, 00:00
  await sale(org, 'course', 'bia', 0, '2025-03-03T15:00:00Z'); // Mar 3, a free sale
  await sale(org, 'course', 'ana', 3333, '2025-03-03T16:00:00Z', 3333); // Mar 3, refunded whole
  await sale(org, 'monthly', 'bia', 1001, '2025-03-04T02:59:59Z'); // Mar 3, 23:59:59
  await sale(org, 'course', 'bia', 8888, '2025-03-04T03:00:00Z'); // Mar 4, 00:00
  await sale(org, 'course', 'ana', 5000, '2025-03-02T10:00:00Z', 0, 'USD'); // Mar 2, in dollars

  // Subscriptions (monthly amounts: monthly 5990, yearly 120000/12 = 10000, weekly 1000×52/12 = 4333.33 → 4333,
  // quarterly 8999/3 = 2999.67 → 3000).
  await subscription(org, 'A', { p: 'monthly', c: 'ana', amount: 5990, created: '2025-01-10T12:00:00Z' });
  await subscription(org, 'B', { p: 'yearly', c: 'bia', amount: 120_000, created: '2025-03-01T05:00:00Z' });
  const C = { p: 'weekly', c: 'bia', amount: 1000, created: '2025-03-02T02:00:00Z', ended: '2025-03-03T12:00:00Z' };
  await subscription(org, 'C', C); // starts Mar 1 23:00 local, ends Mar 3
  const D = { p: 'monthly', c: 'ana', amount: 5990, created: '2025-02-20T12:00:00Z', trialEnd: '2025-03-02T12:00:00Z' };
  await subscription(org, 'D', D); // in trial until Mar 2
  const E = { p: 'monthly', c: 'ana', amount: 5990, created: '2025-01-05T12:00:00Z', ended: '2025-02-15T12:00:00Z' };
  await subscription(org, 'E', E);
  const F = { p: 'monthly', c: 'bia', amount: 5990, created: '2025-02-01T00:00:00Z', ended: '2025-03-02T02:59:59Z' };
  await subscription(org, 'F', F); // starts Jan 31 21:00 local, ends Mar 1 23:59:59 local
  const G = {
    p: 'quarterly',
    c: 'ana',
    amount: 8999,
    created: '2025-03-03T10:00:00Z',
    trialEnd: '2025-03-10T12:00:00Z',
  };
  await subscription(org, 'G', G);
  await subscription(org, 'H', { p: 'monthly', c: 'bia', amount: 5990, created: '2025-03-04T03:00:00Z' }); // Mar 4

  // Checkouts.
  await checkout(org, 'course', 'ana', 'succeeded', '2025-03-01T10:00:00Z'); // Mar 1
  await checkout(org, 'course', null, 'expired', '2025-03-01T11:00:00Z'); // Mar 1
  await checkout(org, 'monthly', null, 'open', '2025-03-02T02:00:00Z'); // Mar 1, 23:00
  await checkout(org, 'monthly', 'ana', 'succeeded', '2025-03-02T12:00:00Z'); // Mar 2
  await checkout(org, 'monthly', 'ana', 'succeeded', '2025-03-02T13:00:00Z', 'A'); // a renewal: not counted
  await checkout(org, 'course', 'bia', 'failed', '2025-03-03T12:00:00Z'); // Mar 3

  // Another organization's sale on the same day.
  await product(other.org.id, 'elsewhere', { type: 'one_time', amount: 100 });
  await customer(other.org.id, 'zoe');
  await sale(other.org.id, 'elsewhere', 'zoe', 123_456, '2025-03-01T12:00:00Z');
});

const ZERO = {
  revenue: 0,
  net_revenue: 0,
  refunds: 0,
  sales_count: 0,
  refunded_sales_count: 0,
  chargebacks: 0,
  disputed_sales_count: 0,
  average_order_value: null,
  new_subscriptions: 0,
  active_subscriptions: 0,
  churned_subscriptions: 0,
  mrr: 0,
  checkouts: 0,
  succeeded_checkouts: 0,
  checkout_conversion: null,
};

const metrics = (qs: string, token: string | null = T.oat, headers: Record<string, string> = {}) =>
  api.call('GET', `/api/v1/metrics/?${qs}`, { ...(token ? { token } : {}), headers });

const MARCH_1_TO_3 = 'start_date=2025-03-01&end_date=2025-03-03&interval=day';

describe('GET /api/v1/metrics/ by day, in São Paulo', () => {
  it('buckets every record by its local date and computes each figure', async () => {
    const res = await metrics(MARCH_1_TO_3);
    expect(res.status).toBe(200);
    const { periods, totals, ...range } = res.body;
    expect(range).toEqual({
      start_date: '2025-03-01',
      end_date: '2025-03-03',
      interval: 'day',
      timezone: 'America/Sao_Paulo',
      currency: 'BRL',
    });
    // Alive at the start: A, D (trial), F. MRR then: A 5990 + F 5990.
    expect(periods).toEqual([
      {
        start_date: '2025-03-01',
        end_date: '2025-03-01',
        start_at: '2025-03-01T03:00:00.000Z',
        end_at: '2025-03-02T03:00:00.000Z',
        // 10000 + 4999 (the 02:30 UTC sale); 2500 refunded; 14999 / 2 = 7499.5 → 7500.
        ...{ revenue: 14_999, net_revenue: 12_499, refunds: 2500, sales_count: 2, refunded_sales_count: 1 },
        ...{ chargebacks: 0, disputed_sales_count: 0 },
        average_order_value: 7500,
        // B and C new, F ended: A, D, B, C alive; MRR A 5990 + B 10000 + C 4333 (D in trial).
        ...{ new_subscriptions: 2, churned_subscriptions: 1, active_subscriptions: 4, mrr: 20_323 },
        // Two checkouts and the 23:00 one; one paid: 1/3.
        ...{ checkouts: 3, succeeded_checkouts: 1, checkout_conversion: 0.3333 },
      },
      {
        start_date: '2025-03-02',
        end_date: '2025-03-02',
        start_at: '2025-03-02T03:00:00.000Z',
        end_at: '2025-03-03T03:00:00.000Z',
        ...{ revenue: 5990, net_revenue: 5990, refunds: 0, sales_count: 1, refunded_sales_count: 0 },
        ...{ chargebacks: 0, disputed_sales_count: 0 },
        average_order_value: 5990,
        // D's trial ends: 20323 + 5990.
        ...{ new_subscriptions: 0, churned_subscriptions: 0, active_subscriptions: 4, mrr: 26_313 },
        // The renewal checkout is left out.
        ...{ checkouts: 1, succeeded_checkouts: 1, checkout_conversion: 1 },
      },
      {
        start_date: '2025-03-03',
        end_date: '2025-03-03',
        start_at: '2025-03-03T03:00:00.000Z',
        end_at: '2025-03-04T03:00:00.000Z',
        // 0 (free, not counted) + 3333 (refunded whole) + 1001 (at 23:59:59); 4334 / 2 = 2167.
        ...{ revenue: 4334, net_revenue: 1001, refunds: 3333, sales_count: 2, refunded_sales_count: 1 },
        ...{ chargebacks: 0, disputed_sales_count: 0 },
        average_order_value: 2167,
        // G new (in trial), C ended: A, B, D, G; MRR 26313 − 4333.
        ...{ new_subscriptions: 1, churned_subscriptions: 1, active_subscriptions: 4, mrr: 21_980 },
        ...{ checkouts: 1, succeeded_checkouts: 0, checkout_conversion: 0 },
      },
    ]);
    // 25323 / 5 = 5064.6 → 5065; 2 of 5 checkouts.
    expect(totals).toEqual({
      ...{ revenue: 25_323, net_revenue: 19_490, refunds: 5833, sales_count: 5, refunded_sales_count: 2 },
      ...{ chargebacks: 0, disputed_sales_count: 0 },
      average_order_value: 5065,
      ...{ new_subscriptions: 3, churned_subscriptions: 2, active_subscriptions: 4, mrr: 21_980 },
      ...{ checkouts: 5, succeeded_checkouts: 2, checkout_conversion: 0.4 },
    });
  });

  it('reads the same records by UTC dates when asked', async () => {
    const res = await metrics(`${MARCH_1_TO_3}&timezone=UTC`);
    expect(res.status).toBe(200);
    expect(res.body.timezone).toBe('UTC');
    const summary = res.body.periods.map((p: any) => [p.start_at, p.revenue, p.sales_count, p.new_subscriptions]);
    expect(summary).toEqual([
      ['2025-03-01T00:00:00.000Z', 10_000, 1, 1], // B
      ['2025-03-02T00:00:00.000Z', 10_989, 2, 1], // 4999 + 5990; C
      ['2025-03-03T00:00:00.000Z', 3333, 1, 1], // the 1001 sale is on Mar 4 in UTC; G
    ]);
  });

  it('follows daylight saving: the local day it starts has 23 hours', async () => {
    const res = await metrics('start_date=2025-03-08&end_date=2025-03-10&interval=day&timezone=America/New_York');
    expect(res.status).toBe(200);
    expect(res.body.periods.map((p: any) => [p.start_at, p.end_at])).toEqual([
      ['2025-03-08T05:00:00.000Z', '2025-03-09T05:00:00.000Z'],
      ['2025-03-09T05:00:00.000Z', '2025-03-10T04:00:00.000Z'],
      ['2025-03-10T04:00:00.000Z', '2025-03-11T04:00:00.000Z'],
    ]);
  });
});

describe('MRR', () => {
  it("rounds each subscription's monthly amount half up to the cent, then adds them", async () => {
    const t = await makeTenant(api.orm);
    await product(t.org.id, 'tiny-yearly', { type: 'recurring', amount: 30, interval: 'year' });
    await product(t.org.id, 'tiny-weekly', { type: 'recurring', amount: 1, interval: 'week' });
    await customer(t.org.id, 'cy');
    const at = '2025-03-01T12:00:00Z';
    await subscription(t.org.id, 'tiny1', { p: 'tiny-yearly', c: 'cy', amount: 30, created: at }); // 30 / 12 = 2.5 → 3
    await subscription(t.org.id, 'tiny2', { p: 'tiny-weekly', c: 'cy', amount: 1, created: at }); // 52 / 12 = 4.33 → 4
    const res = await metrics('start_date=2025-03-01&end_date=2025-03-01&interval=day', t.oat);
    expect(res.body.totals).toMatchObject({ new_subscriptions: 2, active_subscriptions: 2, mrr: 7 });
  });
});

describe('intervals', () => {
  it('cuts ISO weeks (Monday first) at the range ends', async () => {
    const res = await metrics('start_date=2025-02-26&end_date=2025-03-12&interval=week');
    expect(res.status).toBe(200);
    const summary = res.body.periods.map((p: any) => [p.start_date, p.end_date, p.revenue, p.refunds, p.sales_count]);
    expect(summary).toEqual([
      ['2025-02-26', '2025-03-02', 28_766, 2500, 4], // 7777 + 10000 + 4999 + 5990
      ['2025-03-03', '2025-03-09', 13_222, 3333, 3], // 0 + 3333 + 1001 + 8888
      ['2025-03-10', '2025-03-12', 0, 0, 0],
    ]);
  });

  it('counts subscriptions by calendar month, from before the first one', async () => {
    const res = await metrics('start_date=2025-01-01&end_date=2025-03-31&interval=month');
    expect(res.status).toBe(200);
    const subs = res.body.periods.map((p: any) => [
      p.start_date,
      p.end_date,
      p.new_subscriptions,
      p.churned_subscriptions,
      p.active_subscriptions,
      p.mrr,
    ]);
    expect(subs).toEqual([
      ['2025-01-01', '2025-01-31', 3, 0, 3, 17_970], // A, E and F (Jan 31, 21:00 local)
      ['2025-02-01', '2025-02-28', 1, 1, 3, 11_980], // D (trial) new, E ended: A + F pay
      ['2025-03-01', '2025-03-31', 4, 2, 5, 30_970], // B, C, G, H new; C, F ended: A + D + B + H + G 3000
    ]);
    expect(res.body.periods.map((p: any) => [p.revenue, p.sales_count, p.average_order_value])).toEqual([
      [0, 0, null],
      [7777, 1, 7777],
      [34_211, 6, 5702], // 10000 + 4999 + 5990 + 0 + 3333 + 1001 + 8888; 34211 / 6 = 5701.83
    ]);
    expect(res.body.totals).toMatchObject({ new_subscriptions: 8, churned_subscriptions: 3, active_subscriptions: 5 });
    expect(res.body.totals).toMatchObject({ mrr: 30_970, revenue: 41_988, sales_count: 7, checkout_conversion: 0.4 });
  });
});

describe('filters', () => {
  it('by product', async () => {
    const res = await metrics(`${MARCH_1_TO_3}&product_id=${ids.course}`);
    expect(res.status).toBe(200);
    const [mar1, mar2, mar3] = res.body.periods;
    expect(mar1).toMatchObject({ ...{ revenue: 14_999, sales_count: 2, checkouts: 2, checkout_conversion: 0.5 } });
    expect(mar2).toMatchObject({ ...ZERO, start_date: '2025-03-02' });
    expect(mar3).toMatchObject({
      revenue: 3333,
      net_revenue: 0,
      sales_count: 1,
      checkouts: 1,
      active_subscriptions: 0,
    });
  });

  it('by customer', async () => {
    const res = await metrics(`${MARCH_1_TO_3}&customer_id=${ids.bia}`);
    expect(res.status).toBe(200);
    const pick = (p: any) => [p.revenue, p.sales_count, p.new_subscriptions, p.churned_subscriptions];
    // Bia: sales 4999 (Mar 1), 0 and 1001 (Mar 3); subscriptions F (alive at the start), B, C.
    expect(res.body.periods.map(pick)).toEqual([
      [4999, 1, 2, 1],
      [0, 0, 0, 0],
      [1001, 1, 0, 1],
    ]);
    // MRR: B 10000 + C 4333 until C ends; her one checkout failed on Mar 3.
    expect(
      res.body.periods.map((p: any) => [p.active_subscriptions, p.mrr, p.checkouts, p.checkout_conversion]),
    ).toEqual([
      [2, 14_333, 0, null],
      [2, 14_333, 0, null],
      [1, 10_000, 1, 0],
    ]);
  });

  it('by currency, in any case', async () => {
    const res = await metrics(`${MARCH_1_TO_3}&currency=usd`);
    expect(res.status).toBe(200);
    expect(res.body.currency).toBe('USD');
    expect(res.body.periods.map((p: any) => p.revenue)).toEqual([0, 5000, 0]);
    expect(res.body.totals).toEqual({
      ...{ ...ZERO, revenue: 5000, net_revenue: 5000, sales_count: 1, average_order_value: 5000 },
    });
  });

  it("keeps organizations apart: another one's token sees its own records only", async () => {
    const res = await metrics(MARCH_1_TO_3, other.oat);
    expect(res.status).toBe(200);
    expect(res.body.totals).toEqual({
      ...ZERO,
      revenue: 123_456,
      net_revenue: 123_456,
      sales_count: 1,
      average_order_value: 123_456,
    });
    // Its filter on this organization's product finds nothing.
    const foreign = await metrics(`${MARCH_1_TO_3}&product_id=${ids.course}`, other.oat);
    expect(foreign.body.totals).toEqual(ZERO);
  });
});

describe('bad input', () => {
  it.each([
    ['an unknown time zone', `${MARCH_1_TO_3}&timezone=Mars/Olympus_Mons`, 'invalid_timezone'],
    ['an offset instead of a zone name', `${MARCH_1_TO_3}&timezone=-03:00`, 'invalid_timezone'],
    ['an end before the start', 'start_date=2025-03-02&end_date=2025-03-01&interval=day', 'invalid_date_range'],
    ['a start before 1970', 'start_date=1969-12-31&end_date=1970-01-02&interval=day', 'invalid_date_range'],
    ['367 days by day', 'start_date=2024-01-01&end_date=2025-01-01&interval=day', 'too_many_periods'],
    ['367 months by month', 'start_date=1990-01-01&end_date=2020-07-01&interval=month', 'too_many_periods'],
  ])('refuses %s with 422 and the error body', async (_label, qs, code) => {
    const res = await metrics(qs);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: expect.any(String), detail: expect.any(String), code });
  });

  it('names the limit in the detail, and takes a range of exactly 366 periods', async () => {
    const refused = await metrics('start_date=2024-01-01&end_date=2025-01-01&interval=day');
    expect(refused.body.detail).toContain('367 periods; at most 366');
    const leapYear = await metrics('start_date=2024-01-01&end_date=2024-12-31&interval=day');
    expect(leapYear.status).toBe(200);
    expect(leapYear.body.periods).toHaveLength(366);
  });

  it('reports the last date a date can have', async () => {
    const res = await metrics('start_date=9999-12-31&end_date=9999-12-31&interval=year&timezone=UTC');
    expect(res.status).toBe(200);
    expect(res.body.periods).toMatchObject([
      { start_date: '9999-12-31', end_date: '9999-12-31', end_at: '10000-01-01T00:00:00.000Z' },
    ]);
  });

  it.each([
    ['an unknown interval', 'start_date=2025-03-01&end_date=2025-03-03&interval=hour'],
    ['a date that does not exist', 'start_date=2025-02-30&end_date=2025-03-03&interval=day'],
    ['a missing start_date', 'end_date=2025-03-03&interval=day'],
    ['a malformed product id', `${MARCH_1_TO_3}&product_id=not-an-id`],
  ])('refuses %s with 400', async (_label, qs) => {
    const res = await metrics(qs);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_error');
  });
});

describe('auth', () => {
  it('needs a credential', async () => {
    const res = await metrics(MARCH_1_TO_3, null);
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('unauthorized');
  });

  it('takes an access token with metrics:read (or web:read), and refuses one without', async () => {
    expect((await metrics(MARCH_1_TO_3, await makeOat(api.orm, T.org.id, ['metrics:read']))).status).toBe(200);
    expect((await metrics(MARCH_1_TO_3, await makeOat(api.orm, T.org.id, ['web:read']))).status).toBe(200);
    const refused = await metrics(MARCH_1_TO_3, await makeOat(api.orm, T.org.id, ['sales:read']));
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: 'Access token lacks required scope', code: 'forbidden' });
  });

  it('takes an admin API key only (the spec grants read keys other resources)', async () => {
    const read = await metrics(MARCH_1_TO_3, null, { 'x-service-api-key': T.apiKey });
    expect(read.status).toBe(403);
    expect(read.body.error).toBe('Api key lacks required scope');
    const admin = (await makeApiKey(api.orm, T.org.id, { scopes: ['admin'] })).key;
    const res = await metrics(MARCH_1_TO_3, null, { 'x-service-api-key': admin });
    expect(res.status).toBe(200);
    expect(res.body.totals.revenue).toBe(25_323);
  });
});
