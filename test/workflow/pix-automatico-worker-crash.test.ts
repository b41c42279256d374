import { describe, expect, it } from '@jest/globals';
import { Context as activityContext } from '@temporalio/activity';
import { GatewayError, type PaymentGateway } from '../../gateway/port.ts';
import { addMonth, APPROVE, DAY, stateOf, useSubscriptionWorkflows } from '../helpers/subscription-workflows.ts';

/**
 * A Pix Automático cycle's charge whose answer is lost (decision 0096): the payer's bank has created the
 * charge, and the sendMandateCharge activity dies before recording it, as it does when its worker is
 * killed between the gateway's commit and our write. Temporal runs the activity again, and it must find
 * the same charge under the same key: one charge at the payer's bank for the due date, one in our books,
 * the period paid once. (The gateway's answer is lost in the activity, on the time-skipping server; the
 * SIGKILL of a worker process on the dev server is pix-automatico-worker-kill.test.ts's.)
 */
const kit = useSubscriptionWorkflows('pix-automatico-worker-crash');
const { sql } = kit;

const START = new Date('2195-03-10T15:00:00.000Z');

/**
 * The simulator on workflow time (as the kit's runs see it), whose first createMandateCharge commits at
 * the payer's bank and then fails as a connection cut after the call does: the caller cannot know.
 */
function losingFirstAnswer(): { gateway: PaymentGateway; lost: () => number } {
  let lost = 0;
  const sim = kit.sim;
  const gateway = new Proxy(sim, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        const at = activityContext.current().info.currentAttemptScheduledTimestampMs;
        target.now = () => new Date(at);
        const answer = await value.apply(target, args);
        if (name === 'createMandateCharge' && lost++ === 0) {
          throw new GatewayError('The connection was reset after the request was sent', true);
        }
        return answer;
      };
    },
  });
  return { gateway, lost: () => lost };
}

describe('Pix Automático: a cycle charge whose answer is lost', () => {
  it('is sent again under the same key: one charge at the payer’s bank, one in our books, the period paid once', async () => {
    const s = await kit.subscription(APPROVE, { start: START, billing: 'pix_automatico' });
    const { gateway, lost } = losingFirstAnswer();
    const due = addMonth(START, 1);
    const final = await kit.run(
      s.id,
      async (handle) => {
        await kit.env.sleep(due.getTime() + 3 * DAY - (await kit.env.currentTimeMs()));
        return stateOf(handle);
      },
      gateway,
    );
    // The first answer was lost and the activity ran again (two calls).
    expect(lost()).toBe(2);
    expect(final).toMatchObject({ periodNumber: 2, status: 'active' });
    const atBank = await sql(
      `select due_date::text as due, status from gateway_sim.mandate_charges where mandate_id = ?`,
      [s.mandateId],
    );
    expect(atBank).toEqual([{ due: '2195-04-10', status: 'completed' }]);
    const ours = await sql(`select period, status from mandate_charges where subscription_id = ? order by period`, [
      s.id,
    ]);
    expect(ours).toEqual([{ period: 2, status: 'completed' }]);
    const [sales] = await sql(
      'select count(*)::int as n, sum(amount)::int as total from sales where subscription_id = ?',
      [s.id],
    );
    expect(sales).toEqual({ n: 1, total: 9_900 });
    const [created] = await sql(
      `select count(*)::int as n from events where organization_id = ? and type = 'mandate.charge_created'`,
      [s.organizationId],
    );
    expect(created.n).toBe(1);
  }, 120_000);
});
