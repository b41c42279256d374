import { defaultPayloadConverter } from '@temporalio/common';
import { uuidv7 } from 'uuidv7';
import { mandateAnswerSignal, type MandateWorkflowInput } from '../../contracts/mandate.ts';
import type { PixPayerPersona } from '../../contracts/pix-automatico.ts';
import { mandateWorkflowStart } from '../../temporal/workflow-starts.ts';
import { waitFor } from './processes.ts';
import { APPROVE, type Handle, type useSubscriptionWorkflows } from './subscription-workflows.ts';

/**
 * The steps of a mandate asked of a manual subscription's payer (decision 0098), on the time-skipping
 * kit of `useSubscriptionWorkflows(prefix)`: the subscription, the API's start of the mandate's
 * workflow, the payer's answer on workflow time, and the workflow's outcome.
 */
export function mandateRequests(kit: ReturnType<typeof useSubscriptionWorkflows>, PREFIX: string) {
  const { sql, subscription, row } = kit;

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

  return { manualSubscription, askForMandate, payerAnswers, outcomeOf };
}
