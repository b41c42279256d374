import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createSubscriptionSaleUpdateActivities } from '../../activities/subscription-sale-update.ts';
import { recordHistory } from '../helpers/histories.ts';
import {
  addMonth,
  APPROVE,
  DAY,
  DECLINE,
  stateOf,
  useSubscriptionWorkflows,
} from '../helpers/subscription-workflows.ts';
import { checkoutPaidUpdate } from '../../contracts/subscription.ts';

/**
 * Manual renewals with no card to charge (pix, boleto) or a refused card: at the period's end the
 * workflow opens the period's renewal checkout itself (one per period, open until the dunning
 * deadline) and waits for it; unpaid by the deadline, dunning is over. On the time-skipping server.
 */
const kit = useSubscriptionWorkflows('subscription-renewal-checkout-test');
const { sql, subscription, run, until, captured, eventTypes } = kit;
const HOUR = 3_600_000;

const renewalCheckouts = (subscriptionId: string) =>
  sql(
    `select renewal_period, status, amount::int as amount, customer_email, expires_at from checkouts
     where subscription_id = ? and renewal_period is not null order by created_at`,
    [subscriptionId],
  );

describe('renewal checkouts opened by the subscription workflow', () => {
  it('no card: the period ends past due with its renewal checkout open until the deadline; paid, it moves on', async () => {
    const s = await subscription(APPROVE, { noCard: true });
    const state = await run(s.id, async (handle) => {
      await kit.env.sleep(await until(addMonth(s.anchor), HOUR));
      expect(await stateOf(handle)).toMatchObject({ status: 'past_due', periodNumber: 1 });
      const [checkout] = await renewalCheckouts(s.id);
      expect(checkout).toMatchObject({ renewal_period: 2, status: 'open', amount: 9_900 });
      // Open until the last dunning day (7 days after the period's end), to the minute.
      const deadline = addMonth(s.anchor).getTime() + 7 * DAY;
      expect(Math.abs(new Date(checkout!.expires_at).getTime() - deadline)).toBeLessThan(2 * 60_000);
      // The buyer pays it: the checkout's workflow puts the sale to the subscription's, which records
      // the period and answers (an Update keyed by the checkout, as activities/subscription-sale-update.ts sends it).
      const [paying] = await sql('select id from checkouts where subscription_id = ? and renewal_period = 2', [s.id]);
      const paidAt = new Date(await kit.env.currentTimeMs()).toISOString();
      const notice = { checkoutId: paying.id, payment: null, cardTokenId: null, periodStart: paidAt };
      const verdict = await handle.executeUpdate(checkoutPaidUpdate, { args: [notice], updateId: paying.id });
      expect(verdict).toEqual({ accepted: true });
      await kit.env.sleep(DAY);
      await recordHistory(
        kit.env.client,
        'subscription-renewal-checkout',
        handle.workflowId,
        handle.firstExecutionRunId,
      );
      return stateOf(handle);
    });
    expect(state).toMatchObject({ status: 'active', periodNumber: 2, firstFailureAt: null });
    // Recorded by the workflow: the period entered, and the checkout's row in the timeline.
    expect(await sql('select period_number, status from subscriptions where id = ?', [s.id])).toEqual([
      { period_number: 2, status: 'active' },
    ]);
    const timeline = await sql(
      `select c.period_number, c.outcome, k.renewal_period from subscription_charges c
       join checkouts k on k.id = c.checkout_id where c.subscription_id = ?`,
      [s.id],
    );
    expect(timeline).toEqual([{ period_number: 2, outcome: 'succeeded', renewal_period: 2 }]);
    expect(await captured(s.id)).toEqual([]); // nothing is ever charged without a card
    expect(await renewalCheckouts(s.id)).toHaveLength(1);
  }, 60_000);

  it('a sale put again (a retried activity, the same Update id) is recorded once, with the same answer', async () => {
    const s = await subscription(APPROVE, { noCard: true });
    const state = await run(s.id, async (handle) => {
      await kit.env.sleep(await until(addMonth(s.anchor), HOUR));
      const [paying] = await sql('select id from checkouts where subscription_id = ? and renewal_period = 2', [s.id]);
      const paidAt = new Date(await kit.env.currentTimeMs()).toISOString();
      const notice = { checkoutId: paying.id, payment: null, cardTokenId: null, periodStart: paidAt };
      const put = () => handle.executeUpdate(checkoutPaidUpdate, { args: [notice], updateId: paying.id });
      // Twice at once (one Update for the server), then again once the run has moved on to its next.
      expect(await Promise.all([put(), put()])).toEqual([{ accepted: true }, { accepted: true }]);
      expect(await put()).toEqual({ accepted: true });
      return stateOf(handle);
    });
    expect(state).toMatchObject({ status: 'active', periodNumber: 2 });
    const timeline = await sql('select period_number, outcome from subscription_charges where subscription_id = ?', [
      s.id,
    ]);
    expect(timeline).toEqual([{ period_number: 2, outcome: 'succeeded' }]);
  }, 60_000);

  it('no card, unpaid by the deadline: unpaid, and no second checkout for the period', async () => {
    const s = await subscription(APPROVE, { noCard: true });
    const status = await run(s.id, async (handle) => {
      await kit.env.sleep(await until(addMonth(s.anchor), 8 * DAY));
      return (await stateOf(handle)).status;
    });
    expect(status).toBe('unpaid');
    expect(await renewalCheckouts(s.id)).toHaveLength(1);
    expect(await eventTypes(s.organizationId)).toEqual(['subscription.past_due', 'subscription.updated']);
  }, 60_000);

  it('a refused card: the renewal checkout opens on the first refusal, once, while the retries go on', async () => {
    const s = await subscription(DECLINE);
    await run(s.id, async (handle) => {
      await kit.env.sleep(await until(addMonth(s.anchor), 8 * DAY));
      expect((await stateOf(handle)).status).toBe('unpaid');
    });
    const checkouts = await renewalCheckouts(s.id);
    expect(checkouts.map((c) => [c.renewal_period, c.amount])).toEqual([[2, 9_900]]);
  }, 60_000);

  // Last: a test after this one found the time-skipping server's clock no longer skipping (most likely
  // held by the Update on a closed workflow), so it runs at the end.
  it("a sale put again once the subscription's workflow has ended: accepted if it was recorded, refused if not", async () => {
    const s = await subscription(APPROVE, { noCard: true });
    const notice = await run(s.id, async (handle) => {
      await kit.env.sleep(await until(addMonth(s.anchor), HOUR));
      const [paying] = await sql('select id from checkouts where subscription_id = ? and renewal_period = 2', [s.id]);
      const paidAt = new Date(await kit.env.currentTimeMs()).toISOString();
      const notice = { checkoutId: paying.id, payment: null, cardTokenId: null, periodStart: paidAt };
      expect(await handle.executeUpdate(checkoutPaidUpdate, { args: [notice], updateId: paying.id })).toEqual({
        accepted: true,
      });
      return notice;
    }); // the run's end terminates the workflow
    // The activity's retry after its first answer was lost: the sale stands, so its capture must stay.
    const { putSaleToSubscription } = createSubscriptionSaleUpdateActivities({
      orm: kit.orm,
      temporal: kit.env.client,
    });
    const put = (checkoutId: string) =>
      new MockActivityEnvironment().run(putSaleToSubscription, { ...notice, checkoutId, subscriptionId: s.id });
    expect(await put(notice.checkoutId)).toEqual({ accepted: true });
    expect(await put(randomUUID())).toEqual({ accepted: false, reason: 'the subscription has no running workflow' });
  }, 60_000);
});
