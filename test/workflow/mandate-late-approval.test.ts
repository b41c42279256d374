import { describe, expect, it } from '@jest/globals';
import { defaultPayloadConverter } from '@temporalio/common';
import { uuidv7 } from 'uuidv7';
import { mandateAnswerSignal, type MandateWorkflowInput } from '../../contracts/mandate.ts';
import type { PixPayerPersona } from '../../contracts/pix-automatico.ts';
import { changeSubscriptionUpdate } from '../../contracts/subscription.ts';
import { mandateWorkflowStart } from '../../temporal/workflow-starts.ts';
import { APPROVE, DAY, stateOf, useSubscriptionWorkflows, type Handle } from '../helpers/subscription-workflows.ts';
import { waitFor } from '../helpers/processes.ts';

/**
 * (Its own file, so its own time-skipping server: after mandate.test.ts's runs on one server its
 * approval hung.) A mandate asked of an existing manual subscription's payer (decision 0098): its own workflow creates
 * it at the simulated gateway and records it at once, waits for the payer (journey 2's QR code, journey
 * 1's request that expires), and hands an approved one to the subscription's workflow, whose next
 * period is then charged through it. Time-skipping server, real activities, database and simulator.
 */
const PREFIX = 'mandate-late-approval-test';
const kit = useSubscriptionWorkflows(PREFIX);
const { sql, subscription, run, row } = kit;

/** A manual subscription (a kept card) whose customer has the name and CPF a mandate's debtor needs. */
async function manualSubscription() {
  const s = await subscription(APPROVE);
  await sql(`update customers set tax_id = '{"type":"cpf","number":"12345678909"}'::jsonb where id = ?`, [
    (await row(s.id)).customer_id,
  ]);
  return { ...s, customerId: (await row(s.id)).customer_id as string };
}

/** Starts the mandate's workflow on the subscription's worker (as the API does) and waits for its row. */
async function askForMandate(
  sub: Handle,
  s: Awaited<ReturnType<typeof manualSubscription>>,
  journey: MandateWorkflowInput['journey'],
  answerInMs: number,
) {
  const mandateId = uuidv7();
  const answerBy = new Date((await kit.env.currentTimeMs()) + answerInMs).toISOString();
  const input: MandateWorkflowInput = {
    mandateId,
    organizationId: s.organizationId,
    subscriptionId: s.id,
    customerId: s.customerId,
    journey,
    answerBy,
  };
  // As the API starts it: its id, search attributes and memo.
  const handle = await sub.client.start('mandateWorkflow', mandateWorkflowStart(`${PREFIX}-${s.id}`, input));
  // Recorded in its created state before the payer says anything.
  const created = await waitFor(
    async () => (await sql('select * from mandates where id = ?', [mandateId]))[0] as Record<string, any> | undefined,
    { what: `mandate ${mandateId} recorded`, timeoutMs: 30_000 },
  );
  return { handle, created, mandateId, answerBy };
}

/** The payer answers in their bank's app (the simulator, on workflow time), and the gateway's notice reaches the workflow. */
async function payerAnswers(handle: Handle, gatewayMandateId: string, persona: PixPayerPersona) {
  const at = new Date(await kit.env.currentTimeMs());
  const realClock = kit.sim.now;
  kit.sim.now = () => at;
  try {
    await kit.sim.authorizeMandate(gatewayMandateId, persona);
  } finally {
    kit.sim.now = realClock;
  }
  // A workflow that read the answer already has ended: the notice then finds nothing to wake.
  await handle.signal(mandateAnswerSignal).catch(() => undefined);
}

/**
 * The workflow's outcome once it has completed: waited for without unlocking the test server's time
 * (as awaiting a result does), so that the subscription's timers do not run ahead meanwhile.
 */
async function outcomeOf(handle: Handle): Promise<unknown> {
  const completed = await waitFor(
    async () =>
      (await handle.fetchHistory()).events?.find((e) => e.workflowExecutionCompletedEventAttributes)
        ?.workflowExecutionCompletedEventAttributes,
    { what: `${handle.workflowId} to complete`, timeoutMs: 30_000 },
  );
  return defaultPayloadConverter.fromPayload(completed.result!.payloads![0]!);
}

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
