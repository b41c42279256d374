import { expect } from '@jest/globals';
import type { Client } from '@temporalio/client';
import type { TestApi } from './api.ts';
import { makeCheckout } from './checkouts.ts';
import { waitFor } from './processes.ts';

/** The buyer pays a checkout by card through confirm-sdk, in one installment (default: an approved card). */
export const payByCard = (api: TestApi, clientSecret: string, number = '4111111111111111') =>
  api.call('POST', `/api/v1/checkouts/client/${clientSecret}/confirm-sdk`, {
    body: {
      payment_method: 'credit_card',
      card: {
        number,
        holder_name: 'Ana Souza',
        expiration_month: '12',
        expiration_year: '2031',
        cvv: '123',
        installments: 1,
      },
    },
  });

/**
 * A monthly subscription of R$ 49,90 (or `amount`) sold by a card checkout of `organizationId` that
 * the buyer paid through the API, so its workflow runs on the real worker: the checkout's id and the
 * subscription's row as the sale wrote it.
 */
export async function paidSubscription(
  api: TestApi,
  temporal: Client,
  options: {
    organizationId: string;
    recurrenceBilling: 'gateway' | 'manual';
    amount?: number;
    /** The checkout's task queue (default: the test run's); the subscription's runs on its batch queue. */
    taskQueue?: string;
    /** The card the buyer pays with, which the renewals charge (default: an approved card). */
    cardNumber?: string;
  },
): Promise<{ checkoutId: string; row: Record<string, any> }> {
  const c = await makeCheckout(api.orm, temporal, {
    organizationId: options.organizationId,
    recurring: 'month',
    recurrenceBilling: options.recurrenceBilling,
    amount: options.amount ?? 4_990,
    taskQueue: options.taskQueue,
  });
  const paid = await payByCard(api, c.clientSecret, options.cardNumber);
  expect(paid.status).toBe(200);
  const [row] = await api.orm.em
    .getConnection()
    .execute<Record<string, any>[]>('select * from subscriptions where checkout_id = ?', [c.id]);
  return { checkoutId: c.id, row: row! };
}

/**
 * GETs the subscription until `done` holds for it, and returns it (its workflow records asynchronously);
 * fails past `timeoutMs`, showing the last one read.
 */
export async function subscriptionWhen(
  api: TestApi,
  s: { id: string; oat: string },
  done: (body: any) => boolean,
  timeoutMs = 30_000,
): Promise<any> {
  let last: any;
  return waitFor(
    async () => {
      const res = await api.call('GET', `/api/v1/subscriptions/${s.id}`, { token: s.oat });
      expect(res.status).toBe(200);
      last = res.body;
      return done(last) && last;
    },
    {
      what: `subscription ${s.id} to reach the state awaited`,
      timeoutMs,
      intervalMs: 100,
      describe: () => JSON.stringify(last),
    },
  );
}

/** The subscription's test clock moved an hour past `periodEnd` (its renewal falls due): answered 200. */
export async function advancePastPeriodEnd(
  api: TestApi,
  subscription: { id: string; oat: string },
  periodEnd: string | Date,
): Promise<void> {
  const to = new Date(new Date(periodEnd).getTime() + 3_600_000).toISOString();
  const moved = await api.call('POST', `/api/v1/subscriptions/${subscription.id}/test-clock/advance`, {
    body: { to },
    token: subscription.oat,
  });
  expect(moved.status).toBe(200);
}
