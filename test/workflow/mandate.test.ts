import { describe, expect, it } from '@jest/globals';
import { temporal } from '@temporalio/proto';
import { MANDATE_EXPIRY_GRACE_MS } from '../../domain/mandate-requests.ts';
import { DAY, stateOf, useSubscriptionWorkflows } from '../helpers/subscription-workflows.ts';
import { recordHistory } from '../helpers/histories.ts';
import { waitFor } from '../helpers/processes.ts';
import { mandateRequests } from '../helpers/mandate-requests.ts';

/**
 * A mandate asked of an existing manual subscription's payer (decision 0098): its own workflow creates
 * it at the simulated gateway and records it at once, waits for the payer (journey 2's QR code, journey
 * 1's request that expires), and hands an approved one to the subscription's workflow, whose next
 * period is then charged through it. Time-skipping server, real activities, database and simulator.
 */
const PREFIX = 'mandate-workflow-test';
const kit = useSubscriptionWorkflows(PREFIX);
const { sql, run, row } = kit;
const { EventType } = temporal.api.enums.v1;

const { manualSubscription, askForMandate, payerAnswers, outcomeOf } = mandateRequests(kit, PREFIX);

const mandateEvents = async (organizationId: string) =>
  (
    await sql(`select type from events where organization_id = ? and type like 'mandate.%' order by created_at, id`, [
      organizationId,
    ])
  ).map((e) => e.type);

describe('a mandate asked of a manual subscription’s payer', () => {
  it('rejected, leaves the subscription manual; its replacement, approved, bills the next period through it', async () => {
    const s = await manualSubscription();
    const periodEnd = new Date((await row(s.id)).current_period_end).getTime();
    await run(s.id, async (sub) => {
      const first = await askForMandate(sub, s, 'qr_code', 7 * DAY);
      expect(first.created).toMatchObject({ status: 'created', journey: 'journey_2', subscription_id: s.id });
      expect(first.created.qr_code).toEqual(expect.stringContaining('rec:'));
      await payerAnswers(first.handle, first.created.gateway_mandate_id, 'rejects_authorization');
      expect(await outcomeOf(first.handle)).toBe('rejected');
      expect(await stateOf(sub)).toMatchObject({ billing: 'manual' });
      expect((await row(s.id)).recurrence_billing).toBe('manual');

      // The rejected one ended: the subscription may ask again.
      const second = await askForMandate(sub, s, 'qr_code', 7 * DAY);
      await payerAnswers(second.handle, second.created.gateway_mandate_id, 'approves');
      expect(await outcomeOf(second.handle)).toBe('approved');
      await recordHistory(kit.env.client, 'mandate-approved', second.handle.workflowId);
      await waitFor(async () => (await row(s.id)).recurrence_billing === 'pix_automatico', {
        what: 'the subscription to adopt the mandate',
        timeoutMs: 30_000,
      });

      // The next period: charged through the mandate, not the card, and paid.
      await kit.env.sleep(periodEnd + 3 * DAY - (await kit.env.currentTimeMs()));
      expect(await stateOf(sub)).toMatchObject({ billing: 'pix_automatico', periodNumber: 2, status: 'active' });
    });

    const mandates = await sql(
      'select status, journey, rejection_code from mandates where subscription_id = ? order by created_at',
      [s.id],
    );
    expect(mandates).toEqual([
      { status: 'rejected', journey: 'journey_2', rejection_code: 'AP13' },
      { status: 'approved', journey: 'journey_2', rejection_code: null },
    ]);
    const charges = await sql(
      'select period, status, amount::int as amount from mandate_charges where subscription_id = ?',
      [s.id],
    );
    expect(charges).toEqual([{ period: 2, status: 'completed', amount: 9_900 }]);
    // Period 2 was paid once, through the mandate: one sale of it, and no card charge.
    const [sales] = await sql(`select count(*)::int as n from sales where subscription_id = ?`, [s.id]);
    expect(sales.n).toBe(1);
    expect(await kit.captured(s.id)).toEqual([]);
    expect(await mandateEvents(s.organizationId)).toEqual([
      'mandate.created',
      'mandate.rejected',
      'mandate.created',
      'mandate.approved',
      'mandate.charge_created',
      'mandate.charge_paid',
    ]);
  }, 120_000);

  it('journey 1: a request the payer answers after it expired is expired, and the subscription stays manual', async () => {
    const s = await manualSubscription();
    await run(s.id, async (sub) => {
      const asked = await askForMandate(sub, s, 'request', 2 * DAY);
      expect(asked.created).toMatchObject({ status: 'created', journey: 'journey_1', qr_code: null });
      expect(asked.created.request).toMatchObject({ status: 'sent', expiresAt: asked.answerBy });
      // Past the request's expiry (its deadline read done, its grace not over), the payer tries to approve.
      await kit.env.sleep(Date.parse(asked.answerBy) + MANDATE_EXPIRY_GRACE_MS / 2 - (await kit.env.currentTimeMs()));
      await payerAnswers(asked.handle, asked.created.gateway_mandate_id, 'approves');
      expect(await outcomeOf(asked.handle)).toBe('expired');

      // The workflow waited for the answer: a timer until the request's expiry, then the gateway read.
      const { events } = await asked.handle.fetchHistory();
      const timers = events!.filter((e: { eventType?: unknown }) => e.eventType === EventType.EVENT_TYPE_TIMER_STARTED);
      expect(timers.length).toBeGreaterThan(0);
      expect(await stateOf(sub)).toMatchObject({ billing: 'manual' });
    });
    expect(await sql('select status from mandates where subscription_id = ?', [s.id])).toEqual([{ status: 'expired' }]);
    expect((await row(s.id)).recurrence_billing).toBe('manual');
    expect(await mandateEvents(s.organizationId)).toEqual(['mandate.created', 'mandate.expired']);
  }, 120_000);

  it('journey 1: a request nobody answers is reported expired by the gateway at its deadline, not withdrawn', async () => {
    const s = await manualSubscription();
    await run(s.id, async (sub) => {
      const asked = await askForMandate(sub, s, 'request', 2 * DAY);
      expect(await asked.handle.result()).toBe('expired');
      expect(await stateOf(sub)).toMatchObject({ billing: 'manual' });
    });
    expect(
      await sql('select status, cancelled_by, cancellation_code from mandates where subscription_id = ?', [s.id]),
    ).toEqual([{ status: 'expired', cancelled_by: null, cancellation_code: null }]);
    expect((await row(s.id)).recurrence_billing).toBe('manual');
    expect(await mandateEvents(s.organizationId)).toEqual(['mandate.created', 'mandate.expired']);
  }, 120_000);

  it('a QR code nobody answers is withdrawn by the receiver a grace after its deadline', async () => {
    const s = await manualSubscription();
    await run(s.id, async (sub) => {
      const asked = await askForMandate(sub, s, 'qr_code', DAY);
      expect(await asked.handle.result()).toBe('cancelled');
    });
    expect(
      await sql('select status, cancelled_by, cancellation_code from mandates where subscription_id = ?', [s.id]),
    ).toEqual([{ status: 'cancelled', cancelled_by: 'receiver', cancellation_code: 'SLCR' }]);
    expect((await row(s.id)).recurrence_billing).toBe('manual');
  }, 120_000);
});
