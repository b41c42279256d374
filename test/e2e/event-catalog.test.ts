import { beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import { EVENT_TYPES } from '../../db/events.ts';
import { brazilToday } from '../../domain/invoices.ts';
import type { SimulatedGateway } from '@billing/simulated-gateway';
import { useApi, type TestApi } from '../helpers/api.ts';
import { makeTenant, unique } from '../helpers/fixtures.ts';
import { webhookValidator } from '../helpers/openapi-validator.ts';
import { waitFor } from '../helpers/processes.ts';
import { paidSubscription, payByCard } from '../helpers/subscriptions.ts';

/**
 * DESIGN.md's event catalog, end to end: for each event of its list, a merchant's operation through
 * the API (the real worker making the workflow's changes) and the event log read back by the record it
 * is about (`GET /events/?object_id=`): exactly the expected events, the envelope
 * `{ id, type, created_at, organization_id, data }`, each valid against its entry of the OpenAPI
 * document's `webhooks` (data: the record's schema), and `data` as the record's GET answers it then.
 * Refused operations leave the record's events as they were. The events of resources the list leaves
 * out (discounts, links, endpoints, members, credentials) likewise. Last, every event of the list was
 * seen, and every event of the organization's log is as the document describes it.
 */

/** DESIGN.md's "Events:" list, copied as it stands there. */
const DESIGN_EVENTS = [
  ...['checkout.created', 'checkout.updated', 'sale.created', 'sale.paid', 'sale.refunded'],
  ...['subscription.created', 'subscription.active', 'subscription.updated', 'subscription.past_due'],
  ...['subscription.canceled', 'subscription.uncanceled', 'subscription.revoked'],
  ...['customer.created', 'customer.updated', 'customer.deleted', 'product.created', 'product.updated'],
  ...['price.created', 'invoice.created', 'invoice.paid', 'invoice.failed', 'invoice.voided', 'refund.created'],
];
/** The code's events of resources DESIGN.md's list leaves out (the spec's organizations, keys, links...). */
const BEYOND_DESIGN = [
  ...['organization.created', 'organization.updated', 'organization_member.added', 'organization_member.removed'],
  ...['api_key.created', 'api_key.revoked', 'api_key.deleted', 'access_token.created', 'access_token.revoked'],
  ...['price.updated', 'discount.created', 'discount.updated', 'discount.deleted'],
  ...['checkout_link.created', 'checkout_link.updated', 'checkout_link.deleted'],
  ...['webhook_endpoint.created', 'webhook_endpoint.updated', 'webhook_endpoint.deleted'],
  ...['webhook_endpoint.disabled', 'webhook_endpoint.ping'],
  // A sale's chargebacks (decision 0072).
  'sale.disputed',
  'sale.dispute_closed',
  // The daily reconciliation's report (decision 0073).
  'reconciliation.completed',
  // Pix Automático's mandates and their charges (decision 0096).
  ...['mandate.created', 'mandate.approved', 'mandate.rejected', 'mandate.expired', 'mandate.cancelled'],
  ...['mandate.charge_created', 'mandate.charge_attempt_failed', 'mandate.charge_retry_requested'],
  ...['mandate.charge_paid', 'mandate.charge_failed'],
];

let api: TestApi;
let temporal: Client;
useApi((stack) => ({ api, temporal } = stack), { callbacksHere: true });
let T: Awaited<ReturnType<typeof makeTenant>>;
let invalid: (event: { type: string }) => string[];
beforeAll(async () => {
  T = await makeTenant(api.orm);
  invalid = webhookValidator((await api.call('GET', '/openapi.json')).body);
});

type Body = Record<string, any>;
interface BillingEvent {
  id: string;
  type: string;
  created_at: string;
  organization_id: string;
  data: Body;
}
const seen = new Set<string>();
const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

async function call(method: string, url: string, body?: unknown, status = 200): Promise<Body> {
  const res = await api.call(method, url, { token: T.oat, ...(body === undefined ? {} : { body }) });
  expect({ status: res.status, body: res.body }).toEqual({ status, body: expect.anything() });
  return res.body;
}

/** The events about one record, oldest first (those of one transaction by type), each in the payload's shape. */
async function eventsAbout(id: string, types: string[]): Promise<BillingEvent[]> {
  const page = await call('GET', `/api/v1/events/?object_id=${id}&sorting=created_at&limit=100`);
  const events = (page.items as BillingEvent[]).sort(
    (a, b) => a.created_at.localeCompare(b.created_at) || a.type.localeCompare(b.type),
  );
  for (const event of events) {
    expect(event).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      type: event.type,
      created_at: ISO,
      organization_id: T.org.id,
      actor: expect.objectContaining({ type: expect.stringMatching(/^(api_key|access_token|user|customer|system)$/) }),
      data: expect.objectContaining({ id }),
    });
    // As the document's `webhooks` describe it: the envelope, data the record's schema.
    expect({ type: event.type, errors: invalid(event) }).toEqual({ type: event.type, errors: [] });
    seen.add(event.type);
  }
  expect(events.map((e) => e.type)).toEqual(types);
  return events;
}

const withoutUrl = ({ workflow_url: _, charges: __, ...record }: Body) => record;
/** A checkout's record: its answer without the hosted page's url, which events leave out (decision 0082). */
const checkoutRecord = ({ url: _, ...record }: Body) => record;

const product = (prices: Body[]) =>
  call('POST', '/api/v1/products/', { organization_id: T.org.id, name: unique('Course'), prices }, 201);
const oneTime = { currency: 'brl', unit_amount: 19_900, type: 'one_time' };
const monthly = { currency: 'brl', unit_amount: 4_990, type: 'recurring', interval: 'month' };

async function subscription(billing: 'manual' | 'gateway') {
  const { row } = await paidSubscription(api, temporal, { organizationId: T.org.id, recurrenceBilling: billing });
  return row.id as string;
}
const subscriptionWhen = (id: string, done: (s: Body) => boolean) =>
  waitFor(
    async () => {
      const s = await call('GET', `/api/v1/subscriptions/${id}`);
      return done(s) && s;
    },
    { what: `subscription ${id}`, timeoutMs: 30_000, intervalMs: 100 },
  );

describe('the event catalog', () => {
  it('is DESIGN.md’s list: the code’s EVENT_TYPES are it and the resources it leaves out', () => {
    expect(new Set(DESIGN_EVENTS).size).toBe(23);
    expect([...EVENT_TYPES].sort()).toEqual([...DESIGN_EVENTS, ...BEYOND_DESIGN].sort());
  });

  it('customer.created, customer.updated, customer.deleted: the customer as the API returns it', async () => {
    const other = await call('POST', '/api/v1/customers/', { email: `${unique('other')}@example.com` }, 201);
    const created = await call('POST', '/api/v1/customers/', { email: `${unique('ana')}@example.com` }, 201);
    const path = `/api/v1/customers/${created.id}`;
    expect((await eventsAbout(created.id, ['customer.created']))[0]!.data).toEqual(await call('GET', path));

    const renamed = await call('PATCH', path, { name: 'Ana Souza' });
    expect(renamed).toEqual(await call('GET', path));
    const [, updated] = await eventsAbout(created.id, ['customer.created', 'customer.updated']);
    expect(updated!.data).toEqual({ ...renamed, changed_fields: ['name'] });

    // Refused changes: another customer's email, a malformed tax id.
    await call('PATCH', path, { email: other.email }, 422);
    await call('PATCH', path, { tax_id: '123' }, 422);
    await eventsAbout(created.id, ['customer.created', 'customer.updated']);

    await call('DELETE', path, undefined, 204);
    const [, , deleted] = await eventsAbout(created.id, ['customer.created', 'customer.updated', 'customer.deleted']);
    expect(deleted!.data).toEqual({ ...renamed, updated_at: ISO });
    expect(deleted!.data.updated_at > renamed.updated_at).toBe(true);
  });

  it('product.created, price.created, product.updated: the product and its prices as the API presents them', async () => {
    const created = await product([oneTime, monthly]);
    const path = `/api/v1/products/${created.id}`;
    expect(await call('GET', path)).toEqual(created);
    // As committed: a recurring price's gateway plan is made after the creating transaction (its answer has it).
    const committed = created.prices.map((p: Body) => ({ ...p, gateway_recurrence_plan_id: null }));
    expect(committed.map((p: Body) => p.type)).toEqual(['one_time', 'recurring']);
    expect((await eventsAbout(created.id, ['product.created']))[0]!.data).toEqual({ ...created, prices: committed });
    for (const price of committed) expect((await eventsAbout(price.id, ['price.created']))[0]!.data).toEqual(price);

    const changed = await call('PATCH', path, {
      name: unique('Course'),
      add_prices: [{ ...oneTime, unit_amount: 9_900 }],
    });
    expect(changed).toEqual(await call('GET', path));
    const [, updated] = await eventsAbout(created.id, ['product.created', 'product.updated']);
    expect(updated!.data).toEqual(changed);
    const added = changed.prices.find((p: Body) => !created.prices.some((q: Body) => q.id === p.id));
    expect((await eventsAbout(added.id, ['price.created']))[0]!.data).toEqual(added);

    // Refused changes: a price of no product, a default price that is not this product's.
    await call('PATCH', path, { name: 'x', archive_price_ids: ['01900000-0000-7000-8000-000000000000'] }, 422);
    await call('PATCH', path, { name: 'x', default_price_id: '01900000-0000-7000-8000-000000000000' }, 422);
    await eventsAbout(created.id, ['product.created', 'product.updated']);
  });

  it('checkout.created, checkout.updated, customer.created, sale.created, sale.paid, refund.created, sale.refunded', async () => {
    const p = await product([oneTime]);
    const email = `${unique('buyer')}@example.com`;
    const created = checkoutRecord(
      await call('POST', '/api/v1/checkouts/', { product_id: p.id, customer_email: email }, 201),
    );
    const path = `/api/v1/checkouts/${created.id}`;
    expect((await eventsAbout(created.id, ['checkout.created']))[0]!.data).toEqual(created);
    const patched = checkoutRecord(await call('PATCH', path, { metadata: { order: '42' } }));
    expect((await eventsAbout(created.id, ['checkout.created', 'checkout.updated']))[1]!.data).toEqual(patched);

    expect((await payByCard(api, created.client_secret)).status).toBe(200);
    const paid = await waitFor(
      async () => {
        const c = checkoutRecord(await call('GET', path));
        return c.status === 'succeeded' && c;
      },
      { what: 'the checkout paid', timeoutMs: 20_000 },
    );
    const checkoutTypes = ['checkout.created', ...Array(3).fill('checkout.updated')];
    const [, , confirmed, succeeded] = await eventsAbout(created.id, checkoutTypes);
    // Confirmed before the sale made the customer: the checkout then, no customer yet.
    expect(confirmed!.data).toEqual({
      ...paid,
      status: 'confirmed',
      customer_id: null,
      subscription_id: null,
      gateway_payment_data: null,
      updated_at: ISO,
    });
    expect(succeeded!.data).toEqual(paid);
    // A paid checkout takes no more changes.
    await call('PATCH', path, { metadata: { order: '43' } }, 409);
    await eventsAbout(created.id, checkoutTypes);

    const customer = await call('GET', `/api/v1/customers/${paid.customer_id}`);
    expect(customer.email).toBe(email);
    const [madeCustomer] = await eventsAbout(customer.id, ['customer.created']);
    expect(madeCustomer!.data).toEqual(customer);

    const [sale] = (await call('GET', `/api/v1/sales/?customer_id=${customer.id}`)).items;
    expect(sale).toMatchObject({ checkout_id: created.id, amount: 19_900, status: 'paid' });
    const saleEvents = await eventsAbout(sale.id, ['sale.created', 'sale.paid']);
    for (const e of saleEvents) expect(e.data).toEqual(sale);
    expect(await call('GET', `/api/v1/sales/${sale.id}`)).toEqual(sale);

    // Refused: more than was captured.
    await call('POST', '/api/v1/refunds/', { sale_id: sale.id, amount: 19_901 }, 422);
    await eventsAbout(sale.id, ['sale.created', 'sale.paid']);
    expect((await call('GET', '/api/v1/events/?type=refund.created')).pagination.total_count).toBe(0);

    const refund = await call('POST', '/api/v1/refunds/', { sale_id: sale.id, amount: 5_000, reason: 'late' }, 201);
    const settled = await waitFor(
      async () => {
        const r = await call('GET', `/api/v1/refunds/${refund.id}`);
        return r.status === 'succeeded' && r;
      },
      { what: 'the refund settled', timeoutMs: 20_000 },
    );
    // Created pending: the refund as its answer showed it then.
    const [made] = await eventsAbout(refund.id, ['refund.created']);
    expect(made!.data).toEqual({ ...settled, status: 'pending', updated_at: settled.created_at });
    const refundedSale = await call('GET', `/api/v1/sales/${sale.id}`);
    expect(refundedSale).toMatchObject({ status: 'partially_refunded', refunded_amount: 5_000 });
    const [, , refunded] = await eventsAbout(sale.id, ['sale.created', 'sale.paid', 'sale.refunded']);
    expect(refunded!.data).toEqual(refundedSale);
  });

  it('checkout.updated: a pix issued for the confirmation, with the code the buyer pays', async () => {
    const p = await product([oneTime]);
    const email = `${unique('pix')}@example.com`;
    const created = await call('POST', '/api/v1/checkouts/', { product_id: p.id, customer_email: email }, 201);
    const confirm = `/api/v1/checkouts/client/${created.client_secret}/confirm-sdk`;
    expect((await api.call('POST', confirm, { body: { payment_method: 'pix' } })).status).toBe(200);
    const issued = checkoutRecord(await call('GET', `/api/v1/checkouts/${created.id}`));
    expect(issued).toMatchObject({ status: 'confirmed', gateway_payment_data: { pix: expect.anything() } });
    const events = await eventsAbout(created.id, ['checkout.created', 'checkout.updated', 'checkout.updated']);
    const [confirmed, shown] = events.slice(1).sort((a) => (a.data.gateway_payment_data ? 1 : -1));
    expect(confirmed!.data).toEqual({ ...issued, gateway_payment_data: null, updated_at: ISO });
    expect(shown!.data).toEqual(issued);
  });

  it('subscription.created, .active, .updated, .uncanceled, .canceled: the subscription as the API returns it', async () => {
    const id = await subscription('manual');
    const path = `/api/v1/subscriptions/${id}`;
    const sold = withoutUrl(await call('GET', path));
    const began = await eventsAbout(id, ['subscription.active', 'subscription.created']);
    for (const e of began) expect(e.data).toEqual(sold);

    const steps: [Body, string][] = [
      [{ cancel_at_period_end: true }, 'subscription.updated'],
      [{ cancel_at_period_end: false }, 'subscription.uncanceled'],
      [{ cancel_at_period_end: true }, 'subscription.updated'],
    ];
    const types = began.map((e) => e.type);
    for (const [body, type] of steps) {
      const answer = withoutUrl(await call('PATCH', path, body));
      types.push(type);
      expect((await eventsAbout(id, types)).at(-1)!.data).toEqual(answer);
    }

    // Its period ends on its test clock: it ends canceled.
    const { current_period_end: end } = sold;
    await call('POST', `${path}/test-clock/advance`, { to: new Date(Date.parse(end) + 3_600_000).toISOString() });
    const ended = withoutUrl(await subscriptionWhen(id, (s) => s.status === 'canceled'));
    expect((await eventsAbout(id, [...types, 'subscription.canceled'])).at(-1)!.data).toEqual(ended);
    // Refused: an ended subscription takes no more changes.
    await call('PATCH', path, { revoke: true }, 409);
    await eventsAbout(id, [...types, 'subscription.canceled']);
  });

  it('subscription.revoked: the subscription as the revocation answers it', async () => {
    const id = await subscription('manual');
    const revoked = withoutUrl(await call('PATCH', `/api/v1/subscriptions/${id}`, { revoke: true }));
    expect(revoked.status).toBe('canceled');
    const events = await eventsAbout(id, ['subscription.active', 'subscription.created', 'subscription.revoked']);
    expect(events[2]!.data).toEqual(revoked);
  });

  it('subscription.past_due: the first renewal the card refuses', async () => {
    const id = await subscription('manual');
    // The saved card is refused from now on (the simulator's scripted outcome, as if blocked since).
    await api.orm.em
      .getConnection()
      .execute(
        `update gateway_sim.cards set outcome = 'decline:insufficient_funds' where id = (select card_token_id from subscriptions where id = ?)`,
        [id],
      );
    const { current_period_end: end } = await call('GET', `/api/v1/subscriptions/${id}`);
    const to = new Date(Date.parse(end) + 3_600_000).toISOString();
    await call('POST', `/api/v1/subscriptions/${id}/test-clock/advance`, { to });
    const due = withoutUrl(await subscriptionWhen(id, (s) => s.status === 'past_due'));
    const events = await eventsAbout(id, ['subscription.active', 'subscription.created', 'subscription.past_due']);
    expect(events[2]!.data).toEqual(due);
  });

  it('invoice.created, .paid, .failed, .voided: the invoice as the API returns it, a paid one with its sale', async () => {
    const id = await subscription('gateway');
    const invoices = `/api/v1/subscriptions/${id}/invoices`;
    const today = brazilToday(new Date());
    const sim = api.gateway as SimulatedGateway;
    // Refused: a due date already past.
    const yesterday = brazilToday(new Date(Date.now() - 86_400_000));
    await call('POST', invoices, { amount: 1_000, due_date: yesterday, description: 'Late' }, 422);
    expect((await call('GET', '/api/v1/events/?type=invoice.*')).pagination.total_count).toBe(0);

    const settle = async (outcome: 'paid' | 'failed' | 'voided') => {
      const invoice = await call('POST', invoices, { amount: 12_345, due_date: today, description: outcome }, 201);
      expect((await eventsAbout(invoice.id, ['invoice.created']))[0]!.data).toEqual(withoutUrl(invoice));
      if (outcome === 'voided') {
        // Its last payable day passes unpaid: the gateway's invoice lapses, its notice wakes the workflow.
        await api.orm.em
          .getConnection()
          .execute(`update gateway_sim.invoices set expiration_date = ? where id = ?`, [
            yesterday,
            invoice.gateway_invoice_id,
          ]);
        await sim.getInvoice(invoice.gateway_invoice_id);
      } else {
        const action = outcome === 'paid' ? 'pay' : 'fail';
        await call('POST', `/api/v1/sandbox/invoices/${invoice.gateway_invoice_id}/${action}`);
      }
      const ended = await waitFor(
        async () => {
          const i = await call('GET', `${invoices}/${invoice.id}`);
          return i.status === outcome && i;
        },
        { what: `invoice ${outcome}`, timeoutMs: 20_000 },
      );
      const events = await eventsAbout(invoice.id, ['invoice.created', `invoice.${outcome}`]);
      expect(events[1]!.data).toEqual(withoutUrl(ended));
      return ended;
    };
    const paid = await settle('paid');
    await settle('failed');
    await settle('voided');

    const sales = (await call('GET', `/api/v1/sales/?subscription_id=${id}`)).items as Body[];
    const sale = sales.find((s) => s.transaction_id === paid.transaction_id)!;
    expect(sale).toMatchObject({ amount: 12_345, status: 'paid' });
    for (const e of await eventsAbout(sale.id, ['sale.created', 'sale.paid'])) {
      expect(e.data).toEqual({ ...sale, invoice_id: paid.id });
    }
  });

  it('discount.*, checkout_link.*, webhook_endpoint.* (and .ping): the record as its GET answers it', async () => {
    const discount = await call(
      'POST',
      '/api/v1/discounts/',
      { name: unique('Ten'), type: 'percentage', basis_points: 1_000 },
      201,
    );
    const renamed = await call('PATCH', `/api/v1/discounts/${discount.id}`, { name: unique('Eleven') });
    expect(renamed).toEqual(await call('GET', `/api/v1/discounts/${discount.id}`));
    await call('DELETE', `/api/v1/discounts/${discount.id}`, undefined, 204);
    const discounts = await eventsAbout(discount.id, ['discount.created', 'discount.updated', 'discount.deleted']);
    expect(discounts.slice(0, 2).map((e) => e.data)).toEqual([discount, renamed]);

    const p = await product([oneTime]);
    const link = await call('POST', '/api/v1/checkout-links/', { product_ids: [p.id], label: 'Course' }, 201);
    const relabeled = await call('PATCH', `/api/v1/checkout-links/${link.id}`, { label: 'Course, again' });
    expect(relabeled).toEqual(await call('GET', `/api/v1/checkout-links/${link.id}`));
    await call('DELETE', `/api/v1/checkout-links/${link.id}`, undefined, 204);
    const links = await eventsAbout(link.id, [
      'checkout_link.created',
      'checkout_link.updated',
      'checkout_link.deleted',
    ]);
    expect(links.slice(0, 2).map((e) => e.data)).toEqual([link, relabeled]);

    const { secret: _, ...endpoint } = await call(
      'POST',
      '/api/v1/webhooks/',
      { url: 'http://127.0.0.1:9/', event_types: ['sale.paid'] },
      201,
    );
    const path = `/api/v1/webhooks/${endpoint.id}`;
    const described = await call('PATCH', path, { description: 'The shop' });
    expect(described).toEqual(await call('GET', path));
    await call('POST', `${path}/ping`, undefined, 202);
    await call('DELETE', path, undefined, 204);
    const types = [
      'webhook_endpoint.created',
      'webhook_endpoint.updated',
      'webhook_endpoint.ping',
      'webhook_endpoint.deleted',
    ];
    const endpoints = await eventsAbout(endpoint.id, types);
    expect(endpoints.slice(0, 3).map((e) => e.data)).toEqual([endpoint, described, described]);
  });

  it('organization.updated, organization_member.*, api_key.*, access_token.*: the record as the answers show it', async () => {
    const asOwner = async (method: string, url: string, body?: unknown, status = 200) => {
      const res = await api.call(method, url, { token: T.ownerJwt, ...(body === undefined ? {} : { body }) });
      expect({ status: res.status, body: res.body }).toEqual({ status, body: expect.anything() });
      return res.body as Body;
    };
    const orgPath = `/api/v1/organizations/${T.org.id}`;
    const renamed = await asOwner('PATCH', orgPath, { name: unique('Shop') });
    expect((await eventsAbout(T.org.id, ['organization.updated']))[0]!.data).toEqual(renamed);

    const email = `${unique('clerk')}@example.com`;
    const added = await asOwner('POST', `${orgPath}/members`, { email }, 201);
    await asOwner('DELETE', `${orgPath}/members/${email}`, undefined, 204);
    const members = async (type: string) => (await call('GET', `/api/v1/events/?type=${type}`)).items as BillingEvent[];
    const [joined] = await members('organization_member.added');
    const [left] = await members('organization_member.removed');
    for (const e of [joined!, left!]) expect(e.data).toEqual({ organization_id: T.org.id, ...added });

    const keys = `/api/v1/dashboard/organizations/${T.org.id}/api-keys`;
    const { key: _, ...key } = await asOwner(
      'POST',
      keys,
      { name: unique('key'), environment: 'test', scopes: ['read'] },
      201,
    );
    expect((await asOwner('GET', keys)).active).toContainEqual(key);
    await asOwner('POST', `${keys}/${key.id}/revoke`);
    const [revoked] = (await asOwner('GET', keys)).revoked.filter((k: Body) => k.id === key.id);
    await asOwner('DELETE', `${keys}/${key.id}`, undefined, 204);
    const keyEvents = await eventsAbout(key.id, ['api_key.created', 'api_key.revoked', 'api_key.deleted']);
    expect(keyEvents.slice(0, 2).map((e) => e.data)).toEqual([key, revoked]);

    const tokens = `/api/v1/dashboard/organizations/${T.org.id}/access-tokens`;
    const { token: __, ...token } = await asOwner(
      'POST',
      tokens,
      { comment: unique('sync'), scopes: ['customers:read'] },
      201,
    );
    await asOwner('DELETE', `${tokens}/${token.id}`, undefined, 204);
    const tokenEvents = await eventsAbout(token.id, ['access_token.created', 'access_token.revoked']);
    expect(tokenEvents[0]!.data).toEqual(token);
  });

  it('saw every event of DESIGN.md’s list, each in the event log', async () => {
    expect(DESIGN_EVENTS.filter((type) => !seen.has(type))).toEqual([]);
    for (const type of DESIGN_EVENTS) {
      expect([type, (await call('GET', `/api/v1/events/?type=${type}&limit=1`)).pagination.total_count > 0]).toEqual([
        type,
        true,
      ]);
    }
  });

  it("every event of the organization's log, whatever its type, is as the document's webhooks describe it", async () => {
    const stray: unknown[] = [];
    const types = new Set<string>();
    for (let page = 1, pages = 1; page <= pages; page++) {
      const body = await call('GET', `/api/v1/events/?limit=100&page=${page}`);
      pages = body.pagination.max_page;
      for (const event of body.items as BillingEvent[]) {
        types.add(event.type);
        const errors = invalid(event);
        if (errors.length > 0) stray.push({ type: event.type, errors });
      }
    }
    expect(stray).toEqual([]);
    expect(types.size).toBeGreaterThanOrEqual(DESIGN_EVENTS.length);
  });
});
