import type { Client } from '@temporalio/client';
import type { Sql } from './checkout-books.ts';
import { heldAtMandateGatesColumns, MANDATE_GATE_NAMES, type MandateGateName } from './mandate-gates.ts';

/**
 * What crash tests read around an organization's Pix Automático cycle charges (period 2 of each
 * subscription, decision 0096): the simulated gateway's books (gateway_sim) against our own tables,
 * and the workflows' histories.
 */

/** The gateway's charge of a subscription's period 2 (its reference is our key, mandateChargeKey). */
const periodTwoCharge = `gateway_sim.mandate_charges g
  where g.reference = 'subscription:' || s.id::text || ':period:2:mandate-charge'`;

export interface MandateProgress {
  total: number;
  /** Subscriptions whose period-2 charge the gateway has (a cobr at the payer's bank). */
  sent: number;
  /** …of which our mandate_charges has a row, and a completed one. */
  recordedCharges: number;
  settledCharges: number;
  /** Subscriptions moved into period 2 (the paid period recorded). */
  recorded: number;
  /** Statements that write what the gates hold, open in this database right now, running or held. */
  inFlight: number;
  /** Statements waiting at each gate (see mandate-gates.ts). */
  held: Record<MandateGateName, number>;
}

export async function mandateProgressOf(sql: Sql, organizationId: string): Promise<MandateProgress> {
  const [row] = await sql(
    `select count(*)::int as total,
            count(*) filter (where exists (select 1 from ${periodTwoCharge}))::int as sent,
            count(*) filter (where c.status is not null)::int as "recordedCharges",
            count(*) filter (where c.status = 'completed')::int as "settledCharges",
            count(*) filter (where s.period_number >= 2)::int as recorded,
            (select count(*)::int from pg_stat_activity
              where datname = current_database() and state = 'active' and pid <> pg_backend_pid()
                and (query ilike 'insert into sales%' or query ilike '%"mandate_charges"%'
                     or query ilike 'insert into gateway_sim.attempts%')) as "inFlight",
            ${heldAtMandateGatesColumns(organizationId)}
       from subscriptions s
       left join mandate_charges c on c.subscription_id = s.id and c.period = 2
      where s.organization_id = ?`,
    [organizationId],
  );
  const counts = row as Record<string, number>;
  const held = Object.fromEntries(MANDATE_GATE_NAMES.map((gate) => [gate, counts[gate]!])) as Record<
    MandateGateName,
    number
  >;
  for (const gate of MANDATE_GATE_NAMES) delete counts[gate];
  return { ...(counts as unknown as Omit<MandateProgress, 'held'>), held };
}

export interface MandateBooks {
  id: string;
  status: string;
  periodNumber: number;
  /** The gateway's charges (cobr) of the subscription's mandate: due date, amount, status, paid attempts. */
  gatewayCharges: { due: string; amount: number; status: string; paidAttempts: number }[];
  /** The create-charge calls the gateway carried out (ran) and answered from its key (replayed). */
  gatewayRuns: number;
  gatewayReplays: number;
  /** Our mandate_charges rows, and whether each names the gateway's charge. */
  charges: { period: number; amount: number; status: string; sameAsGateway: boolean }[];
  /** Renewal sales (no checkout) and their sum; our transactions of the gateway's charges and their sum. */
  sales: number;
  saleAmount: number;
  transactions: number;
  transactionAmount: number;
  /** The outbox's events of the subscription's charges and renewal sales, counted by type. */
  events: Record<string, number>;
}

/** Per subscription of the organization: the gateway's books beside ours. */
export async function mandateBooksOf(sql: Sql, organizationId: string): Promise<MandateBooks[]> {
  return sql(
    `select s.id::text as id, s.status, s.period_number as "periodNumber",
            coalesce((select json_agg(json_build_object('due', g.due_date::text, 'amount', g.amount::int,
                        'status', g.status, 'paidAttempts',
                        (select count(*)::int from gateway_sim.mandate_attempts a where a.charge_id = g.id and a.status = 'paid'))
                        order by g.due_date)
                      from gateway_sim.mandate_charges g where g.mandate_id = m.gateway_mandate_id), '[]') as "gatewayCharges",
            (select count(*)::int from gateway_sim.attempts a where a.operation = 'create_mandate_charge'
              and a.key like 'subscription:' || s.id::text || ':%' and a.outcome = 'ran') as "gatewayRuns",
            (select count(*)::int from gateway_sim.attempts a where a.operation = 'create_mandate_charge'
              and a.key like 'subscription:' || s.id::text || ':%' and a.outcome = 'replayed') as "gatewayReplays",
            coalesce((select json_agg(json_build_object('period', c.period, 'amount', c.amount::int, 'status', c.status,
                        'sameAsGateway', exists (select 1 from gateway_sim.mandate_charges g
                                                  where g.id = c.gateway_charge_id and g.mandate_id = m.gateway_mandate_id))
                        order by c.period)
                      from mandate_charges c where c.subscription_id = s.id), '[]') as charges,
            (select count(*)::int from sales x where x.subscription_id = s.id and x.checkout_id is null) as sales,
            (select coalesce(sum(x.amount), 0)::int from sales x where x.subscription_id = s.id and x.checkout_id is null)
              as "saleAmount",
            (select count(*)::int from transactions t join gateway_sim.mandate_charges g on g.id = t.gateway_transaction_id
              where g.mandate_id = m.gateway_mandate_id) as transactions,
            (select coalesce(sum(t.amount), 0)::int from transactions t
               join gateway_sim.mandate_charges g on g.id = t.gateway_transaction_id
              where g.mandate_id = m.gateway_mandate_id) as "transactionAmount",
            (select coalesce(jsonb_object_agg(e.type, e.n), '{}') from (
               select type, count(*)::int as n from events
                where organization_id = s.organization_id and data->>'subscription_id' = s.id::text
                  and (type like 'mandate.charge_%' or type like 'sale.%')
                group by type) e) as events
       from subscriptions s
       join mandates m on m.subscription_id = s.id
      where s.organization_id = ?
      order by s.id`,
    [organizationId],
  );
}

export interface MandateTraces {
  /** Activity executions that took more than one attempt (one lost with a worker times out), by type. */
  retriedActivities: Record<string, number>;
  /** Workflow tasks lost with a worker (timed out) and run again elsewhere. */
  lostWorkflowTasks: number;
  /**
   * Paid periods whose record (recordRenewal, a local activity run inside the workflow task that got
   * the settled charge) was lost with that task and run again by the next one.
   */
  recordingsRunAgain: number;
}

/** The activity type of a local activity's marker (the SDK core's JSON details), or null for another marker. */
function localActivityType(marker: { markerName?: string | null; details?: Record<string, any> | null }) {
  if (marker.markerName !== 'core_local_activity') return null;
  const data = marker.details?.data?.payloads?.[0]?.data as Uint8Array | undefined;
  return data
    ? ((JSON.parse(Buffer.from(data).toString('utf8')) as { activity_type?: string }).activity_type ?? null)
    : null;
}

/** What the charging runs' histories (given by workflow id and run id) say the crashes did. */
export async function mandateTraces(
  client: Client,
  runs: { workflowId: string; runId: string }[],
): Promise<MandateTraces> {
  const traces: MandateTraces = { retriedActivities: {}, lostWorkflowTasks: 0, recordingsRunAgain: 0 };
  for (const { workflowId, runId } of runs) {
    const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    const typeOf = new Map<string, string>();
    let settled = false;
    let lostAfterSettled = false;
    for (const event of history.events ?? []) {
      const scheduled = event.activityTaskScheduledEventAttributes;
      if (scheduled) typeOf.set(String(event.eventId), scheduled.activityType?.name ?? '?');
      const started = event.activityTaskStartedEventAttributes;
      if (started && (started.attempt ?? 1) > 1) {
        const type = typeOf.get(String(started.scheduledEventId)) ?? '?';
        traces.retriedActivities[type] = (traces.retriedActivities[type] ?? 0) + 1;
      }
      const completed = event.activityTaskCompletedEventAttributes;
      if (completed && typeOf.get(String(completed.scheduledEventId)) === 'readMandateCharge') settled = true;
      if (event.workflowTaskTimedOutEventAttributes) {
        traces.lostWorkflowTasks += 1;
        if (settled) lostAfterSettled = true;
      }
      const marker = event.markerRecordedEventAttributes;
      if (marker && localActivityType(marker) === 'recordRenewal' && lostAfterSettled) traces.recordingsRunAgain += 1;
    }
  }
  return traces;
}
