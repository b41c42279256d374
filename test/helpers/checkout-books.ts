import type { ApiResponse, CallOptions } from './api.ts';
import type { Orm } from '../../db/orm.ts';
import { makeTenant } from './fixtures.ts';
import { GATE_NAMES, heldAtGatesColumns, type GateName } from './checkout-gates.ts';

/**
 * What crash tests set up and read around card checkouts: the checkouts themselves, and the
 * simulated gateway's ledger (gateway_sim) against our own tables, per organization.
 */

export type Sql = (query: string, params?: unknown[]) => Promise<any[]>;

export const sqlOf =
  (orm: Orm): Sql =>
  (query, params = []) =>
    orm.em.getConnection().execute(query, params);

type Call = <T = any>(method: string, url: string, options?: CallOptions) => Promise<ApiResponse<T>>;

export interface CardCheckout {
  id: string;
  clientSecret: string;
  amount: number;
}

/** The card that approves at the simulated gateway, as the buyer types it into confirm-sdk. */
export const APPROVED_CARD_CONFIRMATION = {
  payment_method: 'credit_card',
  card: {
    number: '4111111111111111',
    holder_name: 'ANA SOUZA',
    expiration_month: '12',
    expiration_year: '2031',
    cvv: '123',
    installments: 1,
  },
} as const;

/**
 * A new organization with a few one-time products of different prices, and `count` open checkouts
 * of them made through the API (so their workflows start on the API's task queue).
 */
export async function makeCardCheckouts(
  orm: Orm,
  callApi: Call,
  count: number,
): Promise<{ organizationId: string; checkouts: CardCheckout[] }> {
  const tenant = await makeTenant(orm);
  const prices = [12_345, 990, 45_000, 7_777, 100];
  const products: { id: string; amount: number }[] = [];
  for (const [i, amount] of prices.entries()) {
    const res = await callApi('POST', '/api/v1/products/', {
      token: tenant.oat,
      body: {
        organization_id: tenant.org.id,
        name: `Crash course ${i}`,
        prices: [{ currency: 'brl', unit_amount: amount }],
      },
    });
    if (res.status !== 201) throw new Error(`product creation answered ${res.status}: ${JSON.stringify(res.body)}`);
    products.push({ id: res.body.id, amount });
  }
  const checkouts: CardCheckout[] = [];
  // A few at a time: creation is set-up, not what is under test.
  for (let start = 0; start < count; start += 10) {
    const batch = Array.from({ length: Math.min(10, count - start) }, async (_, k) => {
      const i = start + k;
      const product = products[i % products.length]!;
      const res = await callApi('POST', '/api/v1/checkouts/', {
        token: tenant.oat,
        body: { product_id: product.id, customer_email: `crash-${i}@example.com`, customer_name: 'Ana Souza' },
      });
      if (res.status !== 201) throw new Error(`checkout creation answered ${res.status}: ${JSON.stringify(res.body)}`);
      return { id: res.body.id as string, clientSecret: res.body.client_secret as string, amount: product.amount };
    });
    checkouts.push(...(await Promise.all(batch)));
  }
  return { organizationId: tenant.org.id, checkouts };
}

export interface Progress {
  total: number;
  open: number;
  confirmed: number;
  succeeded: number;
  /** Checkouts with a capture in the gateway's ledger. */
  captured: number;
  /** Checkouts with a sale. */
  recorded: number;
  capturedNotRecorded: number;
  /** Sale inserts open in this database right now, running or held (tests run one at a time). */
  recordingsInFlight: number;
  /** Statements waiting at each gate (see checkout-gates.ts). */
  held: Record<GateName, number>;
}

/** Where the organization's checkouts stand, from the gateway's ledger and our tables. */
export async function progressOf(sql: Sql, organizationId: string): Promise<Progress> {
  const [row] = await sql(
    `select count(*)::int as total,
            count(*) filter (where c.status = 'open')::int as open,
            count(*) filter (where c.status = 'confirmed')::int as confirmed,
            count(*) filter (where c.status = 'succeeded')::int as succeeded,
            count(*) filter (where cap.n > 0)::int as captured,
            count(*) filter (where s.n > 0)::int as recorded,
            count(*) filter (where cap.n > 0 and s.n = 0)::int as "capturedNotRecorded",
            (select count(*)::int from pg_stat_activity
              where datname = current_database() and state = 'active' and pid <> pg_backend_pid()
                and query ilike 'insert into sales%') as "recordingsInFlight",
            ${heldAtGatesColumns(organizationId)}
       from checkouts c
       cross join lateral (
         select count(*) as n from gateway_sim.transactions t
           join gateway_sim.ledger l on l.transaction_id = t.id and l.kind = 'capture'
          where t.reference = c.id::text) cap
       cross join lateral (select count(*) as n from sales where checkout_id = c.id) s
      where c.organization_id = ?`,
    [organizationId],
  );
  const counts = row as Record<string, number>;
  const held = Object.fromEntries(GATE_NAMES.map((gate) => [gate, counts[gate]!])) as Record<GateName, number>;
  for (const gate of GATE_NAMES) delete counts[gate];
  return { ...(counts as unknown as Omit<Progress, 'held'>), held };
}

export interface CheckoutBooks {
  id: string;
  status: string;
  amount: number;
  /** Transactions the gateway made for the checkout (reference = checkout id). */
  gatewayTransactions: number;
  /** Capture rows in the gateway's ledger, and their sum. */
  captures: number;
  capturedAmount: number;
  refunds: number;
  sales: number;
  saleAmount: number;
  /** Rows in our transactions table. */
  transactions: number;
}

/** Per checkout of the organization: the gateway's ledger beside our sales and transactions. */
export async function booksOf(sql: Sql, organizationId: string): Promise<CheckoutBooks[]> {
  return sql(
    `select c.id::text as id, c.status, c.amount::int as amount,
            (select count(*)::int from gateway_sim.transactions t where t.reference = c.id::text) as "gatewayTransactions",
            coalesce(l.captures, 0)::int as captures, coalesce(l.captured, 0)::int as "capturedAmount",
            coalesce(l.refunds, 0)::int as refunds,
            (select count(*)::int from sales s where s.checkout_id = c.id) as sales,
            (select coalesce(sum(s.amount), 0)::int from sales s where s.checkout_id = c.id) as "saleAmount",
            (select count(*)::int from transactions x where x.checkout_id = c.id) as transactions
       from checkouts c
       left join lateral (
         select count(*) filter (where l.kind = 'capture') as captures,
                sum(l.amount) filter (where l.kind = 'capture') as captured,
                count(*) filter (where l.kind = 'refund') as refunds
           from gateway_sim.transactions t join gateway_sim.ledger l on l.transaction_id = t.id
          where t.reference = c.id::text) l on true
      where c.organization_id = ?
      order by c.id`,
    [organizationId],
  );
}

/** What one checkout's books must read after any crash: one capture of its amount, one sale, one transaction. */
export const paidOnce = (c: { id: string; amount: number }): CheckoutBooks => ({
  id: c.id,
  status: 'succeeded',
  amount: c.amount,
  gatewayTransactions: 1,
  captures: 1,
  capturedAmount: c.amount,
  refunds: 0,
  sales: 1,
  saleAmount: c.amount,
  transactions: 1,
});
