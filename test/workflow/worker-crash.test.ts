import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startWorkerProcess, stopProcess } from '../global-setup.ts';
import { startApi, type TestApi } from '../helpers/api.ts';
import { makeTenant } from '../helpers/fixtures.ts';

/**
 * A worker process killed (SIGKILL, no drain) in the middle of card confirmations, then started again:
 * every checkout ends succeeded, with exactly one capture at the gateway and one sale. This run has a
 * task queue of its own, so the harness's shared worker does not pick up its workflows.
 */
const QUEUE = 'billing-test-crash';
const CHECKOUTS = 6;

let api: TestApi;
let worker: ChildProcess | null = null;
beforeAll(async () => {
  api = await startApi({ TEMPORAL_TASK_QUEUE: QUEUE });
  worker = await startWorkerProcess({ TEMPORAL_TASK_QUEUE: QUEUE });
});
afterAll(async () => {
  if (worker) await stopProcess(worker);
  await api.close();
});

const sql = (query: string, params: unknown[] = []): Promise<any[]> =>
  api.orm.em.getConnection().execute(query, params);

describe('a worker crash during confirmations', () => {
  it('ends with every checkout succeeded exactly once', async () => {
    const t = await makeTenant(api.orm);
    const product = await api.call('POST', '/api/v1/products/', {
      token: t.oat,
      body: { organization_id: t.org.id, name: 'Workshop', prices: [{ currency: 'brl', unit_amount: 12_345 }] },
    });
    expect(product.status).toBe(201);
    const checkouts = [];
    for (let i = 0; i < CHECKOUTS; i++) {
      const res = await api.call('POST', '/api/v1/checkouts/', {
        token: t.oat,
        body: { product_id: product.body.id, customer_email: `crash-${i}@example.com`, customer_name: 'Ana Souza' },
      });
      expect(res.status).toBe(201);
      checkouts.push(res.body as { id: string; client_secret: string });
    }

    const confirmations = checkouts.map((c, i) =>
      // Staggered, so some are mid-flight when the worker dies and others arrive while it is down.
      new Promise((resolve) => setTimeout(resolve, i * 150)).then(() =>
        api.call('POST', `/api/v1/checkouts/client/${c.client_secret}/confirm-sdk`, {
          body: {
            payment_method: 'credit_card',
            card: {
              number: '4111111111111111',
              holder_name: 'ANA SOUZA',
              expiration_month: '12',
              expiration_year: '2031',
              cvv: '123',
              installments: 1,
            },
          },
        }),
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 250));
    worker!.kill('SIGKILL');
    await new Promise((resolve) => worker!.once('exit', resolve));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    worker = await startWorkerProcess({ TEMPORAL_TASK_QUEUE: QUEUE });

    const responses = await Promise.all(confirmations);
    expect(responses.map((r) => r.status)).toEqual(Array(CHECKOUTS).fill(200));
    for (const c of checkouts) {
      const [row] = await sql('select status from checkouts where id = ?', [c.id]);
      expect(row.status).toBe('succeeded');
      const [captures] = await sql(
        `select count(*)::int as n, coalesce(sum(l.amount), 0)::int as total from gateway_sim.ledger l
           join gateway_sim.transactions t on t.id = l.transaction_id where t.reference = ? and l.kind = 'capture'`,
        [c.id],
      );
      expect(captures).toEqual({ n: 1, total: 12_345 });
      const sales = await sql('select amount from sales where checkout_id = ?', [c.id]);
      expect(sales).toEqual([{ amount: '12345' }]);
    }
  }, 180_000);
});
