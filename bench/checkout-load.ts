import { Agent, request } from 'undici';
import type { Stack } from './stack.ts';

/**
 * A buyer's checkout against the stack's API: `POST /api/v1/checkouts/` then
 * `POST …/client/<secret>/confirm-sdk` with an approving card, over HTTPS, with each half's latency
 * kept apart (so a slow step shows which request it is in).
 */
export interface CheckoutBuyer {
  /** One checkout, created and confirmed; true when it succeeded. */
  checkout: () => Promise<boolean>;
  /** Latencies (ms) of the two requests of every checkout created, in the order they finished. */
  halves: { create: number[]; confirm: number[] };
  close: () => Promise<void>;
}

/** A JSON POST to the stack's API (`path` after its base URL), with a bearer token when given. */
export function apiPoster(stack: Stack, dispatcher: Agent) {
  return async (path: string, body: unknown, token?: string) => {
    const res = await request(stack.baseUrl + path, {
      method: 'POST',
      dispatcher,
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
    return { status: res.statusCode, body: (await res.body.json()) as Record<string, any> };
  };
}

export async function checkoutBuyer(stack: Stack, connections: number): Promise<CheckoutBuyer> {
  const dispatcher = new Agent({ connect: { rejectUnauthorized: false }, connections });
  const post = apiPoster(stack, dispatcher);

  const { organizationId, oat } = stack.demo;
  const product = await post(
    '/api/v1/products/',
    { organization_id: organizationId, name: 'Bench course', prices: [{ currency: 'brl', unit_amount: 19_900 }] },
    oat,
  );
  if (product.status !== 201) throw new Error(`product: ${product.status} ${JSON.stringify(product.body)}`);

  const halves = { create: [] as number[], confirm: [] as number[] };
  return {
    halves,
    checkout: async () => {
      const t0 = performance.now();
      const created = await post(
        '/api/v1/checkouts/',
        { product_id: product.body.id, customer_email: 'bench@example.com' },
        oat,
      );
      if (created.status !== 201) return false;
      const t1 = performance.now();
      const confirmed = await post(`/api/v1/checkouts/client/${created.body.client_secret}/confirm-sdk`, {
        payment_method: 'credit_card',
        card: {
          number: '4111111111111111',
          holder_name: 'BENCH',
          expiration_month: '12',
          expiration_year: '2031',
          cvv: '123',
          installments: 1,
        },
      });
      // Every answer counts towards the latencies: one given up on as still processing (past the API's
      // wait) is as slow as it took, though not a success.
      halves.create.push(t1 - t0);
      halves.confirm.push(performance.now() - t1);
      return confirmed.status === 200 && confirmed.body.status === 'succeeded';
    },
    close: () => dispatcher.close(),
  };
}

export interface Run {
  completed: number;
  failed: number;
  /** Whole-operation latencies (ms) of the completed ones. */
  latencies: number[];
  seconds: number;
}

const timed = async (one: () => Promise<boolean>, run: Run) => {
  const t0 = performance.now();
  if (await one()) {
    run.latencies.push(performance.now() - t0);
    run.completed++;
  } else run.failed++;
};

/** Closed loop: `one` in `concurrency` loops, each starting again as soon as it ends, for `durationMs`. */
export async function drive(one: () => Promise<boolean>, concurrency: number, durationMs: number): Promise<Run> {
  const run: Run = { completed: 0, failed: 0, latencies: [], seconds: 0 };
  const started = Date.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() - started < durationMs) await timed(one, run);
    }),
  );
  run.seconds = (Date.now() - started) / 1000;
  return run;
}

/**
 * Open loop: `one` started `perSecond` times a second, whether or not the earlier ones have ended
 * (a slow system gets the same arrivals, so its latency is not hidden), until `stop()` is called;
 * resolves once the ones started have ended.
 */
export function pace(one: () => Promise<boolean>, perSecond: number): { stop(): Promise<Run> } {
  const run: Run = { completed: 0, failed: 0, latencies: [], seconds: 0 };
  const started = Date.now();
  const inflight = new Set<Promise<void>>();
  const timer = setInterval(() => {
    const p = timed(one, run).finally(() => inflight.delete(p));
    inflight.add(p);
  }, 1000 / perSecond);
  return {
    async stop() {
      clearInterval(timer);
      run.seconds = (Date.now() - started) / 1000;
      await Promise.all(inflight);
      return run;
    },
  };
}
