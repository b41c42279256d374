import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import { uuidv7 } from 'uuidv7';
import { MAX_DECLINED_CONFIRMATIONS } from '../../domain/checkout.ts';
import { createTemporalClient } from '../../temporal/client.ts';
import { startApi, type TestApi } from '../helpers/api.ts';
import {
  checkoutRow,
  ledgerOf,
  makeCheckout as makeFixture,
  type CheckoutFixture,
  type CheckoutFixtureOptions,
} from '../helpers/checkouts.ts';
import { checkoutWorkflowId } from '../../contracts/checkout.ts';

/**
 * The money rules of the checkout workflow, end to end through confirm-sdk, the real worker process
 * and the simulator's books: a zero total is never charged, declines are bounded, and a capture
 * whose sale cannot be recorded is given back.
 */
let api: TestApi;
let temporal: Client;
beforeAll(async () => {
  api = await startApi({ LOG_LEVEL: process.env.API_LOG_LEVEL ?? 'silent' });
  temporal = createTemporalClient(api.config);
});
afterAll(async () => {
  await temporal.connection.close();
  await api.close();
});

const card = (number = '4111111111111111') => ({
  number,
  holder_name: 'Ana Souza',
  expiration_month: '12',
  expiration_year: '2031',
  cvv: '123',
  installments: 1,
});
const makeCheckout = (options: CheckoutFixtureOptions = {}) => makeFixture(api.orm, temporal, options);
const confirm = (c: CheckoutFixture, body: Record<string, unknown>) =>
  api.call('POST', `/api/v1/checkouts/client/${c.clientSecret}/confirm-sdk`, { body });
const sql = (query: string, params: unknown[] = []) => api.orm.em.getConnection().execute<any[]>(query, params);

async function makeCode(organizationId: string, code: string, basisPoints: number) {
  await sql(
    `insert into discounts (id, organization_id, name, code, type, basis_points, duration, created_at)
     values (?, ?, 'Promo', ?, 'percentage', ?, 'forever', now())`,
    [uuidv7(), organizationId, code, basisPoints],
  );
}

describe('a zero total', () => {
  it('a 100% discount code completes the checkout with no charge and a sale of zero', async () => {
    const c = await makeCheckout({ amount: 5_000 });
    await makeCode(c.organizationId, 'FREE', 10_000);
    const res = await confirm(c, { payment_method: 'credit_card', discount_code: 'FREE', card: card() });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'succeeded', amount: 0, gateway_payment_data: null });
    expect(await ledgerOf(api.orm, c.id)).toEqual({ captures: 0, captured: 0, refunds: 0, refunded: 0 });
    const [sale] = await sql(
      'select amount, discount_amount, transaction_id, status from sales where checkout_id = ?',
      [c.id],
    );
    expect(sale).toEqual({ amount: '0', discount_amount: '5000', transaction_id: null, status: 'paid' });
    await temporal.workflow.getHandle(checkoutWorkflowId(c.id)).result();
  });

  it('a free first period of a subscription keeps the card for the renewals', async () => {
    const c = await makeCheckout({ amount: 2_990, recurring: 'month' });
    await makeCode(c.organizationId, 'FREEMONTH', 10_000);
    const res = await confirm(c, { payment_method: 'credit_card', discount_code: 'FREEMONTH', card: card() });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('succeeded');
    expect((await ledgerOf(api.orm, c.id)).captures).toBe(0);
    const [subscription] = await sql(
      'select status, amount, gateway_subscription_id from subscriptions where checkout_id = ?',
      [c.id],
    );
    expect(subscription.status).toBe('active');
    // The gateway subscription holds the tokenized card: it is what charges the next periods.
    const [held] = await sql('select card_id from gateway_sim.subscriptions where id = ?', [
      subscription.gateway_subscription_id,
    ]);
    expect(held.card_id).toMatch(/\S/);
  });
});

describe('bounded attempts', () => {
  it(`fails the checkout after ${MAX_DECLINED_CONFIRMATIONS} declined confirmations, with a reason and an event`, async () => {
    const c = await makeCheckout({ amount: 1_000 });
    for (let i = 1; i < MAX_DECLINED_CONFIRMATIONS; i++) {
      const declined = await confirm(c, { payment_method: 'credit_card', card: card('4000000000000002') });
      expect([declined.status, declined.body.decline_reason]).toEqual([422, 'card_declined']);
    }
    const last = await confirm(c, { payment_method: 'credit_card', card: card('4000000000000002') });
    expect([last.status, last.body.decline_reason]).toEqual([422, 'too_many_attempts']);
    expect(await checkoutRow(api.orm, c.id)).toMatchObject({ status: 'failed', decline_reason: 'too_many_attempts' });
    const after = await confirm(c, { payment_method: 'credit_card', card: card() });
    expect([after.status, after.body.code]).toEqual([409, 'checkout_not_open']);
    expect(await temporal.workflow.getHandle(checkoutWorkflowId(c.id)).result()).toEqual({ status: 'failed' });
    const [event] = await sql(
      `select data from events where organization_id = ? and type = 'checkout.updated' and data->>'status' = 'failed'`,
      [c.organizationId],
    );
    expect(event.data).toMatchObject({ id: c.id, decline_reason: 'too_many_attempts' });
    expect((await ledgerOf(api.orm, c.id)).captures).toBe(0);
  }, 120_000);
});

describe('a sale that cannot be recorded', () => {
  it('gives the capture back, fails the checkout and flags the workflow for an operator', async () => {
    const c = await makeCheckout({ amount: 7_700 });
    // The database refuses this checkout's sale for good (an integrity error), as a broken invariant would.
    const fn = `refuse_sale_${c.id.replaceAll('-', '')}`;
    await sql(`create function ${fn}() returns trigger language plpgsql as $$
      begin
        if new.checkout_id = '${c.id}' then raise exception 'refused' using errcode = 'check_violation'; end if;
        return new;
      end $$`);
    await sql(`create trigger ${fn} before insert on sales for each row execute function ${fn}()`);
    try {
      const res = await confirm(c, { payment_method: 'credit_card', card: card() });
      expect([res.status, res.body.decline_reason]).toEqual([422, 'recording_failed']);
    } finally {
      await sql(`drop trigger ${fn} on sales`);
      await sql(`drop function ${fn}()`);
    }
    expect(await ledgerOf(api.orm, c.id)).toEqual({ captures: 1, captured: 7_700, refunds: 1, refunded: 7_700 });
    expect(await checkoutRow(api.orm, c.id)).toMatchObject({ status: 'failed', decline_reason: 'recording_failed' });
    expect(await sql('select id from sales where checkout_id = ?', [c.id])).toHaveLength(0);
    const handle = temporal.workflow.getHandle(checkoutWorkflowId(c.id));
    expect(await handle.result()).toEqual({ status: 'failed' });
    const { searchAttributes } = await handle.describe();
    expect(searchAttributes.PaymentIssue).toEqual(['capture_refunded_unrecorded']);
  });
});
