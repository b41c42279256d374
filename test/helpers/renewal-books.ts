import type { Client } from '@temporalio/client';
import type { Sql } from './checkout-books.ts';
import { heldAtRenewalGatesColumns, RENEWAL_GATE_NAMES, type RenewalGateName } from './renewal-gates.ts';

/**
 * What crash tests read around an organization's subscription renewals (period 2 of each): the
 * simulated gateway's ledger (gateway_sim) against our own tables, and the workflows' histories.
 */

export interface RenewalProgress {
  total: number;
  /** Subscriptions with a capture of their own (reference = subscription id) in the gateway's ledger. */
  captured: number;
  /** Subscriptions moved into period 2. */
  recorded: number;
  capturedNotRecorded: number;
  /** Sale inserts open in this database right now, running or held (tests run one at a time). */
  recordingsInFlight: number;
  /** Statements waiting at each gate (see renewal-gates.ts). */
  held: Record<RenewalGateName, number>;
}

export async function renewalProgressOf(sql: Sql, organizationId: string): Promise<RenewalProgress> {
  const [row] = await sql(
    `select count(*)::int as total,
            count(*) filter (where cap.n > 0)::int as captured,
            count(*) filter (where s.period_number >= 2)::int as recorded,
            count(*) filter (where cap.n > 0 and s.period_number < 2)::int as "capturedNotRecorded",
            (select count(*)::int from pg_stat_activity
              where datname = current_database() and state = 'active' and pid <> pg_backend_pid()
                and query ilike 'insert into sales%') as "recordingsInFlight",
            ${heldAtRenewalGatesColumns(organizationId)}
       from subscriptions s
       cross join lateral (
         select count(*) as n from gateway_sim.transactions t
           join gateway_sim.ledger l on l.transaction_id = t.id and l.kind = 'capture'
          where t.reference = s.id::text) cap
      where s.organization_id = ?`,
    [organizationId],
  );
  const counts = row as Record<string, number>;
  const held = Object.fromEntries(RENEWAL_GATE_NAMES.map((gate) => [gate, counts[gate]!])) as Record<
    RenewalGateName,
    number
  >;
  for (const gate of RENEWAL_GATE_NAMES) delete counts[gate];
  return { ...(counts as unknown as Omit<RenewalProgress, 'held'>), held };
}

export interface RenewalBooks {
  id: string;
  status: string;
  periodNumber: number;
  /** Transactions the gateway made for the subscription (reference = its id: the renewals only). */
  gatewayTransactions: number;
  /** Capture rows in the gateway's ledger, their sum and their idempotency keys. */
  captures: number;
  capturedAmount: number;
  captureKeys: string[];
  refunds: number;
  /** The renewal timeline (subscription_charges); recorded: it has its transaction. */
  charges: { period: number; try: number; amount: number; outcome: string; recorded: boolean }[];
  /** Sales with no checkout (renewals), and their sum. */
  sales: number;
  saleAmount: number;
  /** Rows in our transactions table for the gateway's transactions of the subscription. */
  transactions: number;
  /** The outbox's events of the subscription and of its sales, counted by type. */
  events: Record<string, number>;
}

/** Per subscription of the organization: the gateway's ledger beside our tables. */
export async function renewalBooksOf(sql: Sql, organizationId: string): Promise<RenewalBooks[]> {
  return sql(
    `select s.id::text as id, s.status, s.period_number as "periodNumber",
            (select count(*)::int from gateway_sim.transactions t where t.reference = s.id::text) as "gatewayTransactions",
            coalesce(l.captures, 0)::int as captures, coalesce(l.captured, 0)::int as "capturedAmount",
            coalesce(l.keys, '{}') as "captureKeys", coalesce(l.refunds, 0)::int as refunds,
            coalesce((select json_agg(json_build_object('period', c.period_number, 'try', c.try_number,
                        'amount', c.amount::int, 'outcome', c.outcome, 'recorded', c.transaction_id is not null)
                        order by c.period_number, c.try_number)
                      from subscription_charges c where c.subscription_id = s.id), '[]') as charges,
            (select count(*)::int from sales x where x.subscription_id = s.id and x.checkout_id is null) as sales,
            (select coalesce(sum(x.amount), 0)::int from sales x where x.subscription_id = s.id and x.checkout_id is null)
              as "saleAmount",
            (select count(*)::int from transactions x join gateway_sim.transactions t on t.id = x.gateway_transaction_id
              where t.reference = s.id::text) as transactions,
            (select coalesce(jsonb_object_agg(e.type, e.n), '{}') from (
               select type, count(*)::int as n from events
                where organization_id = s.organization_id
                  and (data->>'subscription_id' = s.id::text or (type like 'subscription.%' and data->>'id' = s.id::text))
                group by type) e) as events
       from subscriptions s
       left join lateral (
         select count(*) filter (where l.kind = 'capture') as captures,
                sum(l.amount) filter (where l.kind = 'capture') as captured,
                array_agg(l.idempotency_key order by l.id) filter (where l.kind = 'capture') as keys,
                count(*) filter (where l.kind = 'refund') as refunds
           from gateway_sim.transactions t join gateway_sim.ledger l on l.transaction_id = t.id
          where t.reference = s.id::text) l on true
      where s.organization_id = ?
      order by s.id`,
    [organizationId],
  );
}

/** Renewal charges the gateway answered from its idempotency record (a retry with the same key). */
export async function gatewayReplaysOf(sql: Sql, organizationId: string): Promise<number> {
  const [row] = await sql(
    `select count(distinct a.key)::int as n from gateway_sim.attempts a
       join subscriptions s on a.key like 'subscription:' || s.id::text || ':period:%'
      where s.organization_id = ? and a.operation = 'charge_card' and a.outcome = 'replayed'`,
    [organizationId],
  );
  return row!.n as number;
}

export interface RenewalTraces {
  /** Activity executions that took more than one attempt (one lost with a worker times out), by type. */
  retriedActivities: Record<string, number>;
  /** Workflow tasks lost with a worker (timed out) and run again elsewhere. */
  lostWorkflowTasks: number;
  /**
   * Renewals whose record (a local activity, run inside the workflow task that got the charge's
   * answer) was lost with that task and run again by the next one: a workflow task timed out between
   * the charge's answer and the record's marker.
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

/** What the renewing runs' histories (given by workflow id and run id) say the crashes did. */
export async function renewalTraces(client: Client, runs: { workflowId: string; runId: string }[]) {
  const traces: RenewalTraces = { retriedActivities: {}, lostWorkflowTasks: 0, recordingsRunAgain: 0 };
  for (const { workflowId, runId } of runs) {
    const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    const typeOf = new Map<string, string>();
    let charged = false;
    let lostAfterCharge = false;
    for (const event of history.events ?? []) {
      const scheduled = event.activityTaskScheduledEventAttributes;
      if (scheduled) typeOf.set(String(event.eventId), scheduled.activityType?.name ?? '?');
      const started = event.activityTaskStartedEventAttributes;
      if (started && (started.attempt ?? 1) > 1) {
        const type = typeOf.get(String(started.scheduledEventId)) ?? '?';
        traces.retriedActivities[type] = (traces.retriedActivities[type] ?? 0) + 1;
      }
      const completed = event.activityTaskCompletedEventAttributes;
      if (completed && typeOf.get(String(completed.scheduledEventId)) === 'chargeRenewal') charged = true;
      if (event.workflowTaskTimedOutEventAttributes) {
        traces.lostWorkflowTasks += 1;
        if (charged) lostAfterCharge = true;
      }
      const marker = event.markerRecordedEventAttributes;
      if (marker && localActivityType(marker) === 'recordRenewal' && lostAfterCharge) traces.recordingsRunAgain += 1;
    }
  }
  return traces;
}
