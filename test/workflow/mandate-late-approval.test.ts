import { describe, expect, it } from '@jest/globals';
import { changeSubscriptionUpdate } from '../../contracts/subscription.ts';
import { DAY, stateOf, useSubscriptionWorkflows } from '../helpers/subscription-workflows.ts';
import { waitFor } from '../helpers/processes.ts';
import { mandateRequests } from '../helpers/mandate-requests.ts';

/**
 * (Its own file, so its own time-skipping server: after mandate.test.ts's runs on one server its
 * approval hung.) A mandate asked of an existing manual subscription's payer (decision 0098): its own workflow creates
 * it at the simulated gateway and records it at once, waits for the payer (journey 2's QR code, journey
 * 1's request that expires), and hands an approved one to the subscription's workflow, whose next
 * period is then charged through it. Time-skipping server, real activities, database and simulator.
 */
const PREFIX = 'mandate-late-approval-test';
const kit = useSubscriptionWorkflows(PREFIX);
const { sql, run, row } = kit;

const { manualSubscription, askForMandate, payerAnswers, outcomeOf } = mandateRequests(kit, PREFIX);

describe('a mandate approved too late for the next period', () => {
  it('waits for the one after; the subscription revoked first, it is cancelled', async () => {
    const s = await manualSubscription();
    const periodEnd = new Date((await row(s.id)).current_period_end).getTime();
    await run(s.id, async (sub) => {
      // A day before the period ends: its charge could no longer be sent in time.
      await kit.env.sleep(periodEnd - DAY - (await kit.env.currentTimeMs()));
      const asked = await askForMandate(sub, s, 'qr_code', 7 * DAY);
      await payerAnswers(asked.handle, asked.created.gateway_mandate_id, 'approves');
      expect(await outcomeOf(asked.handle)).toBe('approved');
      expect(await stateOf(sub)).toMatchObject({ billing: 'manual', mandateApproved: true, periodNumber: 1 });
      await sub.executeUpdate(changeSubscriptionUpdate, { args: ['revoke'] });
      await waitFor(
        async () =>
          (await sql('select status from mandates where id = ?', [asked.mandateId]))[0].status === 'cancelled',
        {
          what: 'the approved mandate to be cancelled with its subscription',
          timeoutMs: 30_000,
        },
      );
    });
    // It bills from the period after the next (the next period's due date, in Brasília, had passed its window).
    const nextDue = new Date(periodEnd - 3 * 3_600_000).toISOString().slice(0, 10);
    const [m] = await sql('select start_date::text as start, cancelled_by from mandates where subscription_id = ?', [
      s.id,
    ]);
    expect(m.start > nextDue).toBe(true);
    expect(m.cancelled_by).toBe('receiver');
    expect((await row(s.id)).recurrence_billing).toBe('manual');
  }, 60_000);
});
