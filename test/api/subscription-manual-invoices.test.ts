import { describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import { brazilToday, invoiceChargeKey } from '../../domain/invoices.ts';
import { useApi, type TestApi } from '../helpers/api.ts';
import { makeOat, makeOrganization } from '../helpers/fixtures.ts';
import { waitFor } from '../helpers/processes.ts';
import { paidSubscription as paidSubscriptionOf } from '../helpers/subscriptions.ts';

/**
 * POST /api/v1/subscriptions/<id>/invoices of a manually billed subscription (issue 24: Mercado Pago's,
 * and the simulator's with `recurrence_billing: manual`) against the real worker: no gateway invoice;
 * the engine charges the subscription's kept card once, with a new payment, on the due date.
 */
let api: TestApi;
let temporal: Client;
useApi((started) => ({ api, temporal } = started));

const sql = <T = Record<string, any>>(q: string, params: unknown[] = []) =>
  api.orm.em.getConnection().execute<T[]>(q, params);
const daysFromToday = (days: number) => brazilToday(new Date(Date.now() + days * 86_400_000));

/** A paid monthly manual subscription of a new organization (its card kept), with an OAT of that organization. */
async function manualSubscription(cardNumber?: string) {
  const org = await makeOrganization(api.orm);
  const { row } = await paidSubscriptionOf(api, temporal, {
    organizationId: org.id,
    recurrenceBilling: 'manual',
    cardNumber,
  });
  return {
    id: row.id as string,
    cardTokenId: row.card_token_id as string,
    organizationId: org.id,
    prefix: org.slug.toUpperCase(),
    oat: await makeOat(api.orm, org.id),
  };
}
type Sub = Awaited<ReturnType<typeof manualSubscription>>;

const post = (s: Sub, overrides: Record<string, unknown> = {}) =>
  api.call('POST', `/api/v1/subscriptions/${s.id}/invoices`, {
    body: { amount: 12_345, due_date: daysFromToday(0), description: 'Installation', ...overrides },
    token: s.oat,
  });

/** Reads the invoice until it has `status` (its workflow charges the card and settles it). */
async function invoiceWhen(s: Sub, invoiceId: string, status: string) {
  let last: any;
  return waitFor(
    async () => {
      last = (await api.call('GET', `/api/v1/subscriptions/${s.id}/invoices/${invoiceId}`, { token: s.oat })).body;
      return last.status === status && last;
    },
    { what: `invoice ${invoiceId} to be ${status}`, timeoutMs: 15_000, intervalMs: 100, describe: () => last?.status },
  );
}

/** The invoice's events and its sale's, in order. */
const invoiceEvents = async (s: Sub, invoiceId: string) =>
  (
    await sql<{ type: string }>(
      `select type from events where organization_id = ? and (data->>'id' = ? or data->>'invoice_id' = ?)
       order by created_at, id`,
      [s.organizationId, invoiceId, invoiceId],
    )
  ).map((e) => e.type);
/** The gateway's calls under the invoice's charge key: one charge, however often it was asked. */
const gatewayCharges = (invoiceId: string) =>
  sql('select operation from gateway_sim.idempotency where key like ?', [`${invoiceChargeKey(invoiceId)}%`]);

describe('extra charges of a manually billed subscription', () => {
  it('due today: answered pending with no gateway invoice, then the kept card is charged at once: paid', async () => {
    const s = await manualSubscription();
    const res = await post(s);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      number: `${s.prefix}-1`,
      gateway_invoice_id: null,
      status: 'pending',
      amount: 12_345,
      transaction_id: null,
    });
    const paid = await invoiceWhen(s, res.body.id, 'paid');
    expect(paid).toMatchObject({ gateway_invoice_id: null, failure_reason: null, paid_at: expect.any(String) });
    const [payment] = await sql(
      `select status, amount::int as amount, captured_amount::int as captured, payment_type, checkout_id
       from transactions where id = ?`,
      [paid.transaction_id],
    );
    expect(payment).toEqual({
      status: 'succeeded',
      amount: 12_345,
      captured: 12_345,
      payment_type: 'credit',
      checkout_id: null,
    });
    const sales = await sql(
      'select amount::int as amount, subscription_id, transaction_id, status from sales where invoice_id = ?',
      [res.body.id],
    );
    expect(sales).toEqual([
      { amount: 12_345, subscription_id: s.id, transaction_id: paid.transaction_id, status: 'paid' },
    ]);
    expect(await invoiceEvents(s, res.body.id)).toEqual([
      'invoice.created',
      'invoice.paid',
      'sale.created',
      'sale.paid',
    ]);
    expect(await gatewayCharges(res.body.id)).toEqual([{ operation: 'charge_card' }]);
  });

  it('on a card that only authorizes: captured in full through the one charge path', async () => {
    const s = await manualSubscription('4000000000003220');
    const res = await post(s);
    expect(res.status).toBe(201);
    const paid = await invoiceWhen(s, res.body.id, 'paid');
    const [payment] = await sql('select status, captured_amount::int as captured from transactions where id = ?', [
      paid.transaction_id,
    ]);
    expect(payment).toEqual({ status: 'succeeded', captured: 12_345 });
  });

  it('a card that now declines: failed with the reason, its transaction refused, no sale', async () => {
    const s = await manualSubscription();
    // The kept card is refused from now on (the test card's scripted outcome, as if blocked since).
    await sql(`update gateway_sim.cards set outcome = 'decline:insufficient_funds' where id = ?`, [s.cardTokenId]);
    const res = await post(s);
    expect(res.status).toBe(201);
    const failed = await invoiceWhen(s, res.body.id, 'failed');
    expect(failed).toMatchObject({ failure_reason: 'insufficient_funds', paid_at: null });
    const [payment] = await sql('select status, decline_reason from transactions where id = ?', [
      failed.transaction_id,
    ]);
    expect(payment).toEqual({ status: 'failed', decline_reason: 'insufficient_funds' });
    expect(await sql('select 1 from sales where invoice_id = ?', [res.body.id])).toEqual([]);
    expect(await invoiceEvents(s, res.body.id)).toEqual(['invoice.created', 'invoice.failed']);
  });

  it('due later: waits pending, and is voided uncharged when the subscription is revoked first', async () => {
    const s = await manualSubscription();
    const res = await post(s, { due_date: daysFromToday(3) });
    expect(res.status).toBe(201);
    const revoked = await api.call('PATCH', `/api/v1/subscriptions/${s.id}`, { body: { revoke: true }, token: s.oat });
    expect(revoked.body.status).toBe('canceled');
    const voided = await invoiceWhen(s, res.body.id, 'voided');
    expect(voided).toMatchObject({ transaction_id: null, paid_at: null, failure_reason: null });
    expect(await gatewayCharges(res.body.id)).toEqual([]);
    expect(await invoiceEvents(s, res.body.id)).toEqual(['invoice.created', 'invoice.voided']);
  });

  it('refuses a manual subscription without a saved card (409), writing nothing', async () => {
    const s = await manualSubscription();
    // As a pix or boleto buyer's subscription: nothing to charge.
    await sql('update subscriptions set card_token_id = null where id = ?', [s.id]);
    const res = await post(s);
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      error: 'The subscription cannot be invoiced',
      code: 'subscription_not_invoiceable',
      detail: 'The subscription is billed manually and has no saved card to charge',
    });
    expect(await sql('select 1 from subscription_invoices where subscription_id = ?', [s.id])).toEqual([]);
  });

  it('refuses a Pix Automático subscription (409) saying why, writing nothing', async () => {
    const s = await manualSubscription();
    // As its checkout leaves it: billed through the mandate, paid by pix (no card kept).
    await sql(`update subscriptions set recurrence_billing = 'pix_automatico', card_token_id = null where id = ?`, [
      s.id,
    ]);
    const res = await post(s);
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      error: 'The subscription cannot be invoiced',
      code: 'subscription_not_invoiceable',
      detail:
        'The subscription is billed by Pix Automático: its mandate takes one charge per period (the period’s own) ' +
        'and it keeps no card to charge; bill the amount through a checkout, or change its price',
    });
    expect(await sql('select 1 from subscription_invoices where subscription_id = ?', [s.id])).toEqual([]);
  });
});
