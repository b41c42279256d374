import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { WorkflowUpdateStage } from '@temporalio/client';
import {
  changeSubscriptionUpdate,
  checkoutPaidUpdate,
  type CheckoutSaleVerdict,
} from '../../contracts/subscription.ts';
import { PAYMENT_ISSUE } from '../../domain/search-attributes.ts';
import { MANDATE_BILLED } from '../../workflows/subscription-handlers.ts';
import {
  addMonth,
  APPROVE,
  DAY,
  stateOf,
  useSubscriptionWorkflows,
  type Handle,
} from '../helpers/subscription-workflows.ts';
import { waitFor } from '../helpers/processes.ts';

/**
 * How a Pix Automático subscription's workflow meets what comes from outside its cycles (decision 0096),
 * on the time-skipping server. A checkout's sale: its mandate pays its periods, so the sale is refused
 * at once (and its checkout gives the capture back), as a gateway-billed subscription's is, never left
 * waiting until the subscription ends. A revocation: the charge on its way is cancelled at the gateway
 * with the mandate, and our books read it back; a charge the payer's bank settled as the revocation came
 * is given back as its pix's devolução (decision 0099).
 */
const kit = useSubscriptionWorkflows('subscription-pix-automatico-ends-test');
const { sql, subscription, run, until, charges } = kit;

/** The sale's verdict, or `hung` when the Update has not returned after 15 s of real time. */
async function putSale(handle: Handle, checkoutId: string): Promise<CheckoutSaleVerdict | 'hung'> {
  const periodStart = new Date(await kit.env.currentTimeMs()).toISOString();
  const notice = { checkoutId, payment: null, cardTokenId: null, periodStart };
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<'hung'>((resolve) => (timer = setTimeout(() => resolve('hung'), 15_000)));
  try {
    return await Promise.race([
      handle.executeUpdate(checkoutPaidUpdate, { args: [notice], updateId: checkoutId }),
      hung,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

describe("a checkout's sale put to a Pix Automático subscription", () => {
  it('is refused at once, in its first period and after the mandate paid the next, and moves nothing', async () => {
    const s = await subscription(APPROVE, { billing: 'pix_automatico' });
    const [first, second] = [randomUUID(), randomUUID()];
    const verdicts = await run(s.id, async (handle) => {
      const before = await putSale(handle, first);
      expect(await stateOf(handle)).toMatchObject({ status: 'active', periodNumber: 1 });
      // The mandate pays period 2 on its due date (the first period's end); the run carried on as new.
      await kit.env.sleep(await until(addMonth(s.anchor), DAY));
      expect(await stateOf(handle)).toMatchObject({ status: 'active', periodNumber: 2 });
      const after = await putSale(handle, second);
      return { before, after, state: await stateOf(handle) };
    });
    const refused = { accepted: false, reason: MANDATE_BILLED };
    expect(verdicts).toMatchObject({ before: refused, after: refused, state: { periodNumber: 2 } });
    // Only the mandate's charge entered a period: neither checkout is on the timeline.
    expect(await charges(s.id)).toEqual([
      { period_number: 2, try_number: 1, amount: 9_900, outcome: 'succeeded', decline_reason: null },
    ]);
    const fromCheckouts = await sql(
      'select count(*)::int as n from subscription_charges where subscription_id = ? and checkout_id is not null',
      [s.id],
    );
    expect(fromCheckouts).toEqual([{ n: 0 }]);
  }, 90_000);
});

describe('a Pix Automático subscription revoked while its period charge is on its way', () => {
  it('cancels the mandate and with it the charge, and our books show both cancelled', async () => {
    const s = await subscription(APPROVE, { billing: 'pix_automatico' });
    const charge = () =>
      sql(
        `select c.period, c.status, m.status as mandate_status from mandate_charges c
         join mandates m on m.id = c.mandate_id where c.subscription_id = ?`,
        [s.id],
      );
    const status = await run(s.id, async (handle) => {
      // Sent four days before its due date (the first period's end); settled on that day.
      await kit.env.sleep(await until(addMonth(s.anchor), -2 * DAY));
      const [sent] = await waitFor(async () => (await charge()).length > 0 && charge(), {
        what: 'the period charge to be sent',
        timeoutMs: 15_000,
      });
      expect(sent).toMatchObject({ period: 2, mandate_status: 'approved' });
      expect(['created', 'active']).toContain(sent!.status);
      await handle.executeUpdate(changeSubscriptionUpdate, { args: ['revoke'] });
      return handle.result();
    });
    expect(status).toBe('canceled');
    expect(await charge()).toEqual([{ period: 2, status: 'cancelled', mandate_status: 'cancelled' }]);
    const events = await sql(
      `select type from events where organization_id = ? and type like 'mandate.charge%' order by created_at, id`,
      [s.organizationId],
    );
    expect(events.map((e) => e.type)).toEqual(['mandate.charge_created', 'mandate.charge_failed']);
    expect(await charges(s.id)).toEqual([]); // nothing was paid, nothing refused: the period was never due
  }, 90_000);
});

describe('a Pix Automático subscription revoked as its paid period charge is read', () => {
  it('gives the period back to the payer as the paid pix’s devolução, with no PaymentIssue', async () => {
    const s = await subscription(APPROVE, { billing: 'pix_automatico' });
    // The charge's read holds once the payer's bank has settled it, until the revocation is accepted.
    let reached!: () => void;
    let release!: () => void;
    const atRead = new Promise<void>((resolve) => (reached = resolve));
    const released = new Promise<void>((resolve) => (release = resolve));
    const read = kit.sim.getMandateCharge.bind(kit.sim);
    kit.sim.getMandateCharge = async (chargeId) => {
      const charge = await read(chargeId);
      if (charge?.status === 'completed') {
        reached();
        await released;
      }
      return charge;
    };
    let ended;
    try {
      ended = await run(s.id, async (handle) => {
        const skipping = kit.env.sleep(await until(addMonth(s.anchor), DAY));
        await atRead;
        const revoking = await handle.startUpdate(changeSubscriptionUpdate, {
          args: ['revoke'],
          waitForStage: WorkflowUpdateStage.ACCEPTED,
        });
        release();
        await revoking.result();
        await skipping;
        const result = await handle.result();
        return { result, issue: (await handle.describe()).typedSearchAttributes.get(PAYMENT_ISSUE) ?? null };
      });
    } finally {
      delete (kit.sim as { getMandateCharge?: unknown }).getMandateCharge;
    }
    expect(ended).toEqual({ result: 'canceled', issue: null });
    // The money: the period's R$ 99,00 given back at the gateway, against the paid attempt.
    const given = await sql(
      `select r.amount::int as amount, r.status from gateway_sim.mandate_refunds r
         join gateway_sim.mandate_charges g on g.id = r.charge_id
         join mandate_charges c on c.gateway_charge_id = g.id
        where c.subscription_id = ?`,
      [s.id],
    );
    expect(given).toEqual([{ amount: 9_900, status: 'refunded' }]);
    const [payment] = await sql(
      `select t.status, t.refunded_amount::int as refunded, sa.status as sale_status from sales sa
         join transactions t on t.id = sa.transaction_id where sa.subscription_id = ?`,
      [s.id],
    );
    expect(payment).toEqual({ status: 'refunded', refunded: 9_900, sale_status: 'refunded' });
    expect((await charges(s.id)).map((c) => [c.period_number, c.outcome])).toEqual([[2, 'refunded']]);
  }, 90_000);
});
