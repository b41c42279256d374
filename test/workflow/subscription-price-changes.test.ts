import { describe, expect, it } from '@jest/globals';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { uuidv7 } from 'uuidv7';
import {
  addMonth,
  APPROVE,
  DAY,
  PREAUTH,
  stateWhen,
  useSubscriptionWorkflows,
  type Handle,
  stateOf,
} from '../helpers/subscription-workflows.ts';
import { changePriceUpdate, gatewayInvoiceSignal } from '../../contracts/subscription.ts';
import { renewalDelayMs } from '../../domain/subscriptions.ts';
import { until as waitUntil } from '../helpers/processes.ts';

/**
 * Plan changes on the time-skipping test server, each at exactly half of a R$ 99,00 monthly period:
 * the prorated difference is half the price difference, settled per the organization's
 * proration_behavior (charged now, or carried to the next renewal), and the next renewal charges the
 * new price. Amounts are worked out by hand, not by the code under test.
 */
const kit = useSubscriptionWorkflows('subscription-price-change-test');
const { sql, subscription, run, until, charges, row } = kit;

type Sub = Awaited<ReturnType<typeof subscription>>;

/** Another monthly BRL price of the subscription's product. */
async function price(s: Sub, unitAmount: number, overrides: { interval?: string; currency?: string } = {}) {
  const id = uuidv7();
  await sql(
    `insert into prices (id, product_id, organization_id, type, currency, unit_amount, tax_behavior, interval,
       interval_count, created_at)
     values (?, ?, ?, 'recurring', ?, ?, 'unspecified', ?, 1, now())`,
    [id, s.productId, s.organizationId, overrides.currency ?? 'brl', unitAmount, overrides.interval ?? 'month'],
  );
  return id;
}

/** Every capture the gateway made for the subscription (renewals and changes), in cents. */
const captures = async (s: Sub) =>
  (
    await sql(
      `select l.amount from gateway_sim.ledger l join gateway_sim.transactions t on t.id = l.transaction_id
       where t.reference = ? and l.kind = 'capture' order by l.id`,
      [s.id],
    )
  ).map((r) => Number(r.amount));

/** Lets workflow time reach the middle of the first period, then changes the price. */
async function changeAtHalf(s: Sub, handle: Handle, priceId: string) {
  const length = addMonth(s.anchor).getTime() - s.anchor.getTime();
  await kit.env.sleep(await until(s.anchor, length / 2));
  return handle.executeUpdate(changePriceUpdate, { args: [{ priceId }] });
}

/** Through the next renewal (the end of the first period and a little more). */
const pastRenewal = async (s: Sub) => kit.env.sleep(await until(addMonth(s.anchor), DAY / 2));

describe('plan changes', () => {
  it('prorate, upgrade: half the difference is charged now, and the next renewal charges the new price', async () => {
    const s = await subscription(APPROVE);
    const premium = await price(s, 19_900);
    await run(s.id, async (handle) => {
      const record = await changeAtHalf(s, handle, premium);
      expect(record).toMatchObject({ id: s.id, price_id: premium, status: 'active' });
      expect(await captures(s)).toEqual([5_000]);
      await pastRenewal(s);
      expect((await stateOf(handle)).periodNumber).toBe(2);
    });
    expect(await captures(s)).toEqual([5_000, 19_900]);
    expect((await charges(s.id)).map((c) => c.amount)).toEqual([19_900]);
    const [change] = await sql(
      `select data from events where organization_id = ? and type = 'subscription.updated' order by created_at limit 1`,
      [s.organizationId],
    );
    expect(change.data).toMatchObject({
      price_id: premium,
      previous_price_id: s.priceId,
      proration: { behavior: 'prorate', amount: 5_000, charged: 5_000, to_balance: 0 },
    });
  }, 60_000);

  it('a card that only authorizes: the prorated charge is captured and sold, and so is the next renewal', async () => {
    const s = await subscription(PREAUTH);
    const premium = await price(s, 19_900);
    await run(s.id, async (handle) => {
      const record = await changeAtHalf(s, handle, premium);
      expect(record).toMatchObject({ id: s.id, price_id: premium, status: 'active' });
      expect(await captures(s)).toEqual([5_000]);
      await pastRenewal(s);
      expect((await stateOf(handle)).periodNumber).toBe(2);
    });
    expect(await captures(s)).toEqual([5_000, 19_900]);
    const payments = await sql(
      `select t.status, t.captured_amount::int as captured, s.amount::int as sold, s.status as sale
       from sales s join transactions t on t.id = s.transaction_id where s.subscription_id = ? order by s.created_at`,
      [s.id],
    );
    expect(payments).toEqual([
      { status: 'succeeded', captured: 5_000, sold: 5_000, sale: 'paid' },
      { status: 'succeeded', captured: 19_900, sold: 19_900, sale: 'paid' },
    ]);
  }, 60_000);

  it('prorate, downgrade: the unused half is a credit the next renewal spends', async () => {
    const s = await subscription(APPROVE, { subtotal: 19_900 });
    const basic = await price(s, 9_900);
    await run(s.id, async (handle) => {
      await changeAtHalf(s, handle, basic);
      expect(await captures(s)).toEqual([]);
      expect(Number((await row(s.id)).balance_amount)).toBe(-5_000);
      await pastRenewal(s);
    });
    expect(await captures(s)).toEqual([4_900]);
    const r = await row(s.id);
    expect(Number(r.balance_amount)).toBe(0);
    const [sale] = await sql(
      `select subtotal_amount::int as subtotal, amount::int as amount from sales where subscription_id = ?`,
      [s.id],
    );
    expect(sale).toEqual({ subtotal: 9_900, amount: 4_900 });
  }, 60_000);

  it('invoice: nothing is charged now; the next renewal charges the new price and the prorated difference', async () => {
    const s = await subscription(APPROVE, { settings: { proration_behavior: 'invoice' } });
    const premium = await price(s, 19_900);
    await run(s.id, async (handle) => {
      await changeAtHalf(s, handle, premium);
      expect(await captures(s)).toEqual([]);
      await pastRenewal(s);
    });
    expect(await captures(s)).toEqual([24_900]);
  }, 60_000);

  it('none: nothing is prorated; the new price applies from the next period', async () => {
    const s = await subscription(APPROVE, { settings: { proration_behavior: 'none' } });
    const premium = await price(s, 19_900);
    await run(s.id, async (handle) => {
      await changeAtHalf(s, handle, premium);
      await pastRenewal(s);
    });
    expect(await captures(s)).toEqual([19_900]);
  }, 60_000);

  it('a change accepted after the period ended, while its renewal waits for its turn (the spread): that renewal charges the new price', async () => {
    const spreadSeconds = 3_600;
    const s = await subscription(APPROVE);
    const premium = await price(s, 19_900);
    // The renewal is tried at this subscription's own offset after the period's end: the change comes halfway there.
    const offset = renewalDelayMs(s.id, spreadSeconds);
    await run(
      s.id,
      async (handle) => {
        await kit.env.sleep(await until(addMonth(s.anchor), offset / 2));
        expect(await charges(s.id)).toEqual([]);
        const record = await handle.executeUpdate(changePriceUpdate, { args: [{ priceId: premium }] });
        expect(record).toMatchObject({ price_id: premium, period_number: 1 });
        await kit.env.sleep(await until(addMonth(s.anchor), offset + DAY / 2));
        expect((await stateOf(handle)).periodNumber).toBe(2);
      },
      kit.sim,
      { RENEWAL_SPREAD_SECONDS: spreadSeconds },
    );
    // Nothing prorated (the period it was accepted in had ended), and one renewal charge, at the new price.
    expect(await captures(s)).toEqual([19_900]);
    expect((await charges(s.id)).map((c) => c.amount)).toEqual([19_900]);
  }, 60_000);

  it('an upgrade and a downgrade back at the same instant leave no money moved', async () => {
    const s = await subscription(APPROVE, { settings: { proration_behavior: 'invoice' } });
    const premium = await price(s, 19_900);
    await run(s.id, async (handle) => {
      await changeAtHalf(s, handle, premium);
      await handle.executeUpdate(changePriceUpdate, { args: [{ priceId: s.priceId }] });
      expect(Number((await row(s.id)).balance_amount)).toBe(0);
      await pastRenewal(s);
    });
    expect(await captures(s)).toEqual([9_900]);
  }, 60_000);

  it('a declined upgrade leaves the price as it was; another interval or currency is refused', async () => {
    const s = await subscription(APPROVE);
    const premium = await price(s, 19_900);
    const yearly = await price(s, 99_000, { interval: 'year' });
    const dollars = await price(s, 1_900, { currency: 'usd' });
    await run(s.id, async (handle) => {
      // The saved card is refused from now on (the test card's scripted outcome, as if blocked since).
      await sql(`update gateway_sim.cards set outcome = 'decline:insufficient_funds' where id = ?`, [
        (await row(s.id)).card_token_id,
      ]);
      const failure = (priceId: string) =>
        handle.executeUpdate(changePriceUpdate, { args: [{ priceId }] }).then(
          () => null,
          (err: unknown) => (err instanceof WorkflowUpdateFailedError ? (err.cause?.cause ?? err.cause) : err),
        );
      expect(await failure(premium)).toMatchObject({
        type: 'PlanChangeDeclined',
        message: expect.stringContaining('insufficient_funds'),
      });
      expect(await failure(yearly)).toMatchObject({
        type: 'PlanChangeRefused',
        message: 'The new price bills another interval',
      });
      expect(await failure(dollars)).toMatchObject({
        type: 'PlanChangeRefused',
        message: 'The new price is in another currency',
      });
    });
    const r = await row(s.id);
    expect(r).toMatchObject({ price_id: s.priceId, price_changes: 1 });
    expect(Number(r.balance_amount)).toBe(0);
  }, 60_000);
});

/**
 * Gateway billing: the gateway's recurrence bills the new price's plan from its next cycle, and the
 * balance a change leaves (which its recurrence cannot take) is settled when it bills that period: an
 * amount owed is charged to the saved card, a credit is given back from the period's payment.
 */
describe('plan changes of a gateway-billed subscription', () => {
  /** What the gateway captured (or refunded) for its recurrence's cycles, in cents. */
  const cycleLedger = async (s: Sub, kind: 'capture' | 'refund') =>
    (
      await sql(
        `select l.amount from gateway_sim.ledger l join gateway_sim.invoices i on i.transaction_id = l.transaction_id
         where i.subscription_id = ? and l.kind = ? order by l.id`,
        [s.gatewaySubscriptionId, kind],
      )
    ).map((r) => Number(r.amount));
  const cycleCaptures = (s: Sub) => cycleLedger(s, 'capture');

  /** The gateway bills the next cycle (its due date), tells the workflow, and the balance is settled. */
  async function gatewayBillsPeriod2(s: Sub, handle: Handle) {
    await pastRenewal(s);
    await kit.sim.billSubscription(s.gatewaySubscriptionId!);
    await handle.signal(gatewayInvoiceSignal);
    await stateWhen(handle, (st) => st.periodNumber === 2);
    // Settled, or nothing to settle (an upgrade charged now leaves no balance).
    await waitUntil(
      async () => {
        const r = await row(s.id);
        return r.balance_settled_period === 2 || Number(r.balance_amount) === 0;
      },
      10_000,
      'the balance to be settled',
    );
  }

  it('prorate, upgrade: half the difference is charged now; the gateway bills the new price next', async () => {
    const s = await subscription(APPROVE, { billing: 'gateway' });
    const premium = await price(s, 19_900);
    await run(s.id, async (handle) => {
      expect(await changeAtHalf(s, handle, premium)).toMatchObject({ price_id: premium, status: 'active' });
      expect(await captures(s)).toEqual([5_000]);
      await gatewayBillsPeriod2(s, handle);
    });
    expect(await cycleCaptures(s)).toEqual([19_900]);
    expect(await captures(s)).toEqual([5_000]);
    const [plan] = await sql(
      `select p.reference from gateway_sim.subscriptions g join gateway_sim.recurrence_plans p on p.id = g.plan_id
       where g.id = ?`,
      [s.gatewaySubscriptionId],
    );
    expect(plan.reference).toBe(premium);
    expect(Number((await row(s.id)).balance_amount)).toBe(0);
  }, 60_000);

  it('prorate, downgrade: the unused half is given back from the next period the gateway bills', async () => {
    const s = await subscription(APPROVE, { billing: 'gateway', subtotal: 19_900 });
    const basic = await price(s, 9_900);
    await run(s.id, async (handle) => {
      await changeAtHalf(s, handle, basic);
      expect(Number((await row(s.id)).balance_amount)).toBe(-5_000);
      await gatewayBillsPeriod2(s, handle);
    });
    expect(await cycleCaptures(s)).toEqual([9_900]);
    expect(await cycleLedger(s, 'refund')).toEqual([5_000]);
    expect(Number((await row(s.id)).balance_amount)).toBe(0);
    const [sale] = await sql(
      `select amount::int as amount, refunded_amount::int as refunded, status from sales where subscription_id = ?`,
      [s.id],
    );
    expect(sale).toEqual({ amount: 9_900, refunded: 5_000, status: 'partially_refunded' });
    const [event] = await sql(`select data from events where organization_id = ? and type = 'sale.refunded'`, [
      s.organizationId,
    ]);
    expect(event.data).toMatchObject({ refunded_amount: 5_000 });
  }, 60_000);

  it('invoice, upgrade: nothing now; the difference is charged when the gateway bills the next period', async () => {
    const s = await subscription(APPROVE, { billing: 'gateway', settings: { proration_behavior: 'invoice' } });
    const premium = await price(s, 19_900);
    await run(s.id, async (handle) => {
      await changeAtHalf(s, handle, premium);
      expect(await captures(s)).toEqual([]);
      expect(Number((await row(s.id)).balance_amount)).toBe(5_000);
      await gatewayBillsPeriod2(s, handle);
    });
    expect(await cycleCaptures(s)).toEqual([19_900]);
    expect(await captures(s)).toEqual([5_000]);
    expect(Number((await row(s.id)).balance_amount)).toBe(0);
    const sales = await sql('select amount::int as amount from sales where subscription_id = ? order by amount', [
      s.id,
    ]);
    expect(sales.map((x) => x.amount)).toEqual([5_000, 19_900]);
  }, 60_000);
});
