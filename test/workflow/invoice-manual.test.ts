import { describe, expect, it } from '@jest/globals';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { uuidv7 } from 'uuidv7';
import { type Orm } from '../../db/orm.ts';
import { brazilToday, invoiceChargeAt, invoiceChargeKey } from '../../domain/invoices.ts';
import { SimulatedGateway } from '@billing/simulated-gateway';
import { SavedCardRefused } from '../../gateway/port.ts';
import {
  clubCustomer,
  insertActiveSubscription,
  runInvoiceWorkflow,
  type InvoiceHandle,
} from '../helpers/invoice-runs.ts';
import { useTimeSkipping } from '../helpers/time-skipping.ts';
import { waitFor } from '../helpers/processes.ts';
import { invoiceStateQuery, invoiceVoidSignal, type InvoiceWorkflowInput } from '../../contracts/invoice.ts';

/**
 * A manually billed subscription's extra charge (issue 24) on the time-skipping test server, with the
 * real activities on the test database and the simulated gateway: no gateway invoice; the workflow
 * charges the kept card once on the due date (at once when due today), keyed by the invoice, so that
 * a lost answer is found under its key and never charged twice; an end before the due date voids it.
 */
const DAY = 86_400_000;
let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleWithSourceMap;
let orm: Orm;
let sim: SimulatedGateway;

const workers = useTimeSkipping('invoice.ts', (started) => ({ env, bundle, orm, sim } = started));

const sql = (query: string, params: unknown[] = []): Promise<any[]> => orm.em.getConnection().execute(query, params);

/** A manually billed, active subscription of a new organization, with a card the simulator keeps. */
async function manualSubscription(cardNumber = '4111111111111111') {
  const customer = await clubCustomer(orm);
  const id = uuidv7();
  const card = await sim.tokenizeCard(
    { number: cardNumber, holderName: 'ANA', expirationMonth: '12', expirationYear: '2035', cvv: '123' },
    `test:card:${uuidv7()}`,
  );
  const now = new Date(await env.currentTimeMs());
  await insertActiveSubscription(orm, now, {
    ...customer,
    id,
    billing: { recurrence: 'manual', cardTokenId: card.id },
  });
  const { organizationId, customerId, productId, priceId } = customer;
  return { id, organizationId, customerId, productId, priceId };
}
type Subscription = Awaited<ReturnType<typeof manualSubscription>>;

/** A manual invoice of R$ 123,45 due `inDays` days from today (test-server time, Brazil's calendar). */
async function manualInput(s: Subscription, inDays = 0): Promise<InvoiceWorkflowInput> {
  const now = await env.currentTimeMs();
  return {
    invoiceId: uuidv7(),
    organizationId: s.organizationId,
    subscriptionId: s.id,
    customerId: s.customerId,
    gatewaySubscriptionId: null,
    amount: 12_345,
    currency: 'BRL',
    description: 'Installation',
    dueDate: brazilToday(new Date(now + inDays * DAY)),
    expirationDate: brazilToday(new Date(now + (inDays + 5) * DAY)),
    noFeesInstallments: false,
    answerBy: new Date(now + 20_000).toISOString(),
    billing: 'manual',
  };
}

type Handle = InvoiceHandle;

/** Runs the invoice's workflow while `during` acts on it; a worker (and task queue) per run. */
const run = <T>(input: InvoiceWorkflowInput, during: (handle: Handle) => Promise<T>): Promise<T> =>
  runInvoiceWorkflow({ env, bundle, orm, sim }, workers, input, during);

/** Waits until the invoice is stored pending (without letting time skip: a query only). */
const pending = (handle: Handle) =>
  waitFor(async () => (await handle.query(invoiceStateQuery)).status === 'pending', {
    what: 'the invoice to be pending',
    timeoutMs: 10_000,
  });

const invoiceRow = async (id: string) =>
  (
    await sql(
      `select status, gateway_invoice_id, failure_reason, transaction_id, paid_at, modified_at
       from subscription_invoices where id = ?`,
      [id],
    )
  )[0];
/** What the gateway did under the invoice's charge key: each try's outcome, and the charges it made. */
async function gatewayCharges(s: Subscription, invoiceId: string) {
  const tries = await sql('select outcome from gateway_sim.attempts where key = ? order by id', [
    invoiceChargeKey(invoiceId),
  ]);
  const made = await sql(
    'select status, amount::int as amount from gateway_sim.transactions where reference = ? order by created_at',
    [s.id],
  );
  return { tries: tries.map((t) => t.outcome as string), made };
}
const eventTypes = async (organizationId: string) =>
  (await sql('select type from events where organization_id = ? order by created_at, id', [organizationId])).map(
    (e) => e.type,
  );

describe('invoice workflow of a manually billed subscription', () => {
  it('waits for the due date, then charges the kept card once: paid, with its transaction and sale', async () => {
    const s = await manualSubscription();
    const input = await manualInput(s, 3);
    const outcome = await run(input, async (handle) => {
      await pending(handle);
      expect((await gatewayCharges(s, input.invoiceId)).tries).toEqual([]);
      const result = await handle.result();
      return result;
    });
    expect(outcome).toBe('paid');
    const row = await invoiceRow(input.invoiceId);
    expect(row).toMatchObject({ status: 'paid', gateway_invoice_id: null, failure_reason: null });
    // Charged at the start of its due date in Brazil, not before.
    expect(Date.parse(row.modified_at)).toBeGreaterThanOrEqual(invoiceChargeAt(input.dueDate).getTime());
    expect(await gatewayCharges(s, input.invoiceId)).toEqual({
      tries: ['ran'],
      made: [{ status: 'succeeded', amount: 12_345 }],
    });
    const [transaction] = await sql(
      'select status, amount::int as amount, captured_amount::int as captured, checkout_id from transactions where id = ?',
      [row.transaction_id],
    );
    expect(transaction).toEqual({ status: 'succeeded', amount: 12_345, captured: 12_345, checkout_id: null });
    expect(
      await sql(
        `select amount::int as amount, subtotal_amount::int as subtotal, subscription_id, product_id, price_id,
           transaction_id, status from sales where invoice_id = ?`,
        [input.invoiceId],
      ),
    ).toEqual([
      {
        amount: 12_345,
        subtotal: 12_345,
        subscription_id: s.id,
        product_id: s.productId,
        price_id: s.priceId,
        transaction_id: row.transaction_id,
        status: 'paid',
      },
    ]);
    expect(await eventTypes(s.organizationId)).toEqual([
      'invoice.created',
      'invoice.paid',
      'sale.created',
      'sale.paid',
    ]);
  });

  it('is voided, uncharged, when its subscription ends before the due date', async () => {
    const s = await manualSubscription();
    const input = await manualInput(s, 3);
    const outcome = await run(input, async (handle) => {
      await pending(handle);
      await handle.signal(invoiceVoidSignal);
      const result = await handle.result();
      return result;
    });
    expect(outcome).toBe('voided');
    const row = await invoiceRow(input.invoiceId);
    expect(row).toMatchObject({ status: 'voided', transaction_id: null, paid_at: null });
    // Long before its due date: the subscription's end, not the calendar, voided it.
    expect(Date.parse(row.modified_at)).toBeLessThan(invoiceChargeAt(input.dueDate).getTime());
    expect(await gatewayCharges(s, input.invoiceId)).toEqual({ tries: [], made: [] });
    expect(await eventTypes(s.organizationId)).toEqual(['invoice.created', 'invoice.voided']);
  });

  it('is voided, uncharged, when its subscription has ended by the due date (no signal reached it)', async () => {
    const s = await manualSubscription();
    await sql(`update subscriptions set status = 'canceled', canceled_at = now(), ended_at = now() where id = ?`, [
      s.id,
    ]);
    const input = await manualInput(s);
    expect(await run(input, (handle) => handle.result())).toBe('voided');
    expect(await gatewayCharges(s, input.invoiceId)).toEqual({ tries: [], made: [] });
  });

  it('a declined card fails it with the reason and the refused transaction, no sale', async () => {
    const s = await manualSubscription('4000000000009995');
    const input = await manualInput(s);
    expect(await run(input, (handle) => handle.result())).toBe('failed');
    const row = await invoiceRow(input.invoiceId);
    expect(row).toMatchObject({ status: 'failed', failure_reason: 'insufficient_funds', paid_at: null });
    const [transaction] = await sql('select status, decline_reason from transactions where id = ?', [
      row.transaction_id,
    ]);
    expect(transaction).toEqual({ status: 'failed', decline_reason: 'insufficient_funds' });
    expect(await sql('select 1 from sales where invoice_id = ?', [input.invoiceId])).toEqual([]);
    expect(await eventTypes(s.organizationId)).toEqual(['invoice.created', 'invoice.failed']);
  });

  it('a kept card the issuer would review is refused at once, never left pending (binary mode, decision 0079)', async () => {
    // 4000000000001505 is held for review and approved later when the buyer pays at a checkout.
    const s = await manualSubscription('4000000000001505');
    const input = await manualInput(s);
    expect(await run(input, (handle) => handle.result())).toBe('failed');
    const row = await invoiceRow(input.invoiceId);
    expect(row).toMatchObject({ status: 'failed', failure_reason: 'fraud_suspected', paid_at: null });
    expect((await gatewayCharges(s, input.invoiceId)).made).toEqual([{ status: 'failed', amount: 12_345 }]);
    expect(await sql('select 1 from sales where invoice_id = ?', [input.invoiceId])).toEqual([]);
  });

  it('a kept card the gateway will not charge without its holder fails it with that reason, nothing made', async () => {
    const s = await manualSubscription();
    const input = await manualInput(s);
    // The gateway refuses the card outright, as Mercado Pago refuses a kept card's token without its code.
    const refusing = new Proxy(sim, {
      get(target, prop) {
        if (prop === 'chargeCard') return () => Promise.reject(new SavedCardRefused("security_code_id can't be null"));
        const value: unknown = Reflect.get(target, prop, target);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const result = await runInvoiceWorkflow({ env, bundle, orm, sim: refusing }, workers, input, (handle) =>
      handle.result(),
    );
    expect(result).toBe('failed');
    const row = await invoiceRow(input.invoiceId);
    expect(row).toMatchObject({ status: 'failed', failure_reason: 'saved_card_refused', transaction_id: null });
    expect(await eventTypes(s.organizationId)).toEqual(['invoice.created', 'invoice.failed']);
  });
});

describe('a manual invoice whose charge got no answer is never charged twice', () => {
  it('a lost answer: the retry with the same key gets the gateway’s first answer', async () => {
    const s = await manualSubscription();
    const input = await manualInput(s);
    sim.faults.loseAnswerNext = 1;
    try {
      expect(await run(input, (handle) => handle.result())).toBe('paid');
    } finally {
      sim.faults.loseAnswerNext = 0;
    }
    expect(await gatewayCharges(s, input.invoiceId)).toEqual({
      tries: ['ran', 'replayed'],
      made: [{ status: 'succeeded', amount: 12_345 }],
    });
    expect(await sql('select 1 from sales where invoice_id = ?', [input.invoiceId])).toHaveLength(1);
  });

  it('every quick try lost: the charge is found under its key, and its first answer recorded', async () => {
    const s = await manualSubscription();
    const input = await manualInput(s);
    sim.faults.loseAnswerNext = 3;
    try {
      const outcome = await run(input, async (handle) => {
        const result = await handle.result();
        return result;
      });
      expect(outcome).toBe('paid');
    } finally {
      sim.faults.loseAnswerNext = 0;
    }
    expect(await gatewayCharges(s, input.invoiceId)).toEqual({
      tries: ['ran', 'replayed', 'replayed', 'replayed'],
      made: [{ status: 'succeeded', amount: 12_345 }],
    });
  });

  it('a charge whose answer was lost stays paid when the subscription ends meanwhile: found, never voided', async () => {
    const s = await manualSubscription();
    const input = await manualInput(s);
    sim.faults.loseAnswerNext = 3;
    try {
      const outcome = await run(input, async (handle) => {
        await waitFor(async () => (await gatewayCharges(s, input.invoiceId)).tries.length > 0, {
          what: 'the charge to reach the gateway',
          timeoutMs: 10_000,
        });
        // Revoked after the gateway took the money, before its answer came: the money is recorded, not voided.
        await sql(`update subscriptions set status = 'canceled' where id = ?`, [s.id]);
        await handle.signal(invoiceVoidSignal);
        return handle.result();
      });
      expect(outcome).toBe('paid');
    } finally {
      sim.faults.loseAnswerNext = 0;
    }
    expect((await gatewayCharges(s, input.invoiceId)).made).toEqual([{ status: 'succeeded', amount: 12_345 }]);
    expect(await sql('select 1 from sales where invoice_id = ?', [input.invoiceId])).toHaveLength(1);
  });

  it('a gateway that never got the call: found under no key, charged on a later try, once', async () => {
    const s = await manualSubscription();
    const input = await manualInput(s);
    const started = await env.currentTimeMs();
    sim.faults.failNext = 3;
    try {
      expect(await run(input, (handle) => handle.result())).toBe('paid');
    } finally {
      sim.faults.failNext = 0;
    }
    expect(await gatewayCharges(s, input.invoiceId)).toEqual({
      tries: ['ran'],
      made: [{ status: 'succeeded', amount: 12_345 }],
    });
    // Tried again after the wait for an unreached gateway (10 minutes), not at once.
    expect(Date.parse((await invoiceRow(input.invoiceId)).modified_at)).toBeGreaterThanOrEqual(started + 10 * 60_000);
  });
});
