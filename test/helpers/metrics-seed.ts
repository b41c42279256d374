import { uuidv7 } from 'uuidv7';
import type { Orm } from '../../db/orm.ts';
import { unique } from './fixtures.ts';

export interface SubscriptionSeed {
  p: string;
  c: string;
  amount: number;
  created: string;
  ended?: string;
  trialEnd?: string;
}

/**
 * Records for the metrics tests, written straight to the tables with the amounts and instants a test
 * names. Each record gets a key (`ids[key]`; a product's price is `ids['<key>.price']`), by which
 * later records refer to it.
 */
export function metricsSeed(orm: Orm) {
  const ids: Record<string, string> = {};
  const sql = (query: string, params: unknown[] = []) => orm.em.getConnection().execute(query, params);

  async function product(
    org: string,
    key: string,
    price: { type: string; amount: number; interval?: string; count?: number },
  ) {
    ids[key] = uuidv7();
    ids[`${key}.price`] = uuidv7();
    await sql(`insert into products (id, organization_id, name, created_at) values (?, ?, ?, now())`, [
      ids[key],
      org,
      key,
    ]);
    await sql(
      `insert into prices (id, product_id, organization_id, type, currency, unit_amount, interval, interval_count, created_at)
     values (?, ?, ?, ?, 'brl', ?, ?, ?, now())`,
      [ids[`${key}.price`], ids[key], org, price.type, price.amount, price.interval ?? null, price.count ?? null],
    );
  }

  async function customer(org: string, key: string) {
    ids[key] = uuidv7();
    await sql(
      `insert into customers (id, organization_id, email, created_at, updated_at) values (?, ?, ?, now(), now())`,
      [ids[key], org, `${unique(key)}@example.com`],
    );
  }

  async function sale(org: string, p: string, c: string, amount: number, at: string, refunded = 0, currency = 'BRL') {
    const status = refunded === 0 ? 'paid' : refunded === amount ? 'refunded' : 'partially_refunded';
    await sql(
      `insert into sales (id, organization_id, customer_id, product_id, price_id, currency, subtotal_amount, amount,
       payment_method, status, refunded_amount, created_at, updated_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, 'credit_card', ?, ?, ?, ?)`,
      [uuidv7(), org, ids[c], ids[p], ids[`${p}.price`], currency, amount, amount, status, refunded, at, at],
    );
  }

  async function subscription(org: string, key: string, s: SubscriptionSeed) {
    ids[key] = uuidv7();
    await sql(
      `insert into subscriptions (id, organization_id, customer_id, product_id, price_id, status, recurrence_billing,
       amount, currency, current_period_start, current_period_end, trial_end, created_at, ended_at, workflow_id,
       billing_anchor, subtotal_amount)
     values (?, ?, ?, ?, ?, ?, 'manual', ?, 'brl', ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        ...[ids[key], org, ids[s.c], ids[s.p], ids[`${s.p}.price`], s.ended ? 'canceled' : 'active', s.amount],
        ...[s.created, s.created, s.trialEnd ?? null, s.created, s.ended ?? null, `subscription:${ids[key]}`],
        ...[s.created, s.amount],
      ],
    );
  }

  async function checkout(org: string, p: string, c: string | null, status: string, at: string, renewalOf?: string) {
    const id = uuidv7();
    await sql(
      `insert into checkouts (id, organization_id, status, client_secret, workflow_id, product_id, product_price_id,
       currency, subtotal_amount, amount, customer_id, subscription_id, renewal_period, expires_at, created_at, updated_at)
     values (?, ?, ?, ?, ?, ?, ?, 'BRL', 100, 100, ?, ?, ?, ?, ?, ?)`,
      [
        ...[id, org, status, unique('secret'), `checkout:${id}`, ids[p], ids[`${p}.price`], c ? ids[c] : null],
        ...[renewalOf ? ids[renewalOf] : null, renewalOf ? 2 : null, at, at, at],
      ],
    );
  }

  return { ids, product, customer, sale, subscription, checkout };
}

export type MetricsSeed = ReturnType<typeof metricsSeed>;
