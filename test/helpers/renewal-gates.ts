import pg from 'pg';
import { pgArray } from '../../db/sql.ts';

/**
 * Gates that hold an organization's subscription renewals at the moments a crash hurts most, as
 * checkoutGates does for checkouts: each is a trigger that takes a shared advisory lock, which the
 * gates' own connection holds exclusively while the gate is closed. A closed gate keeps the waiting
 * statement open in PostgreSQL, on a connection of the process that sent it; killed, that process
 * leaves it to run into the lost connection once the gate opens.
 *
 * - `charges`: a renewal charge waits right after the gateway committed its capture, before the
 *   chargeRenewal activity returns (at the simulator's trace of the attempt, gateway_sim.attempts,
 *   which it writes after the call's own transaction). The activity's own transaction, holding the
 *   subscription's row lock, stays open meanwhile.
 * - `recordings`: recordRenewal waits in its transaction just before the renewal's sale row is written
 *   (its transaction and charge rows written, the subscription row locked), for the subscriptions in
 *   `holdRecordings` (default: all); let through, or not held, each waits a random moment up to
 *   `recordingDelaySeconds`, so they commit one by one.
 */
export type RenewalGateName = 'charges' | 'recordings';
export const RENEWAL_GATE_NAMES: readonly RenewalGateName[] = ['charges', 'recordings'];

export interface Gate {
  close(): Promise<void>;
  open(): Promise<void>;
}

export interface RenewalGates extends Record<RenewalGateName, Gate> {
  openAll(): Promise<void>;
  /** Opens them all, drops the triggers and closes the gates' connection. */
  remove(): Promise<void>;
}

const gateKey = (organizationId: string, gate: RenewalGateName) => `test-renewal-gate:${gate}:${organizationId}`;

export async function renewalGates(
  databaseUrl: string,
  organizationId: string,
  options: { recordingDelaySeconds: number; holdRecordings?: string[] },
): Promise<RenewalGates> {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: 'test-renewal-gates' });
  await client.connect();
  const org = `'${organizationId}'::uuid`;
  const wait = (gate: RenewalGateName) =>
    `perform pg_advisory_xact_lock_shared(hashtext('${gateKey(organizationId, gate)}'));`;
  const triggers: Record<RenewalGateName, { table: string; on: string; when: string; body: string }> = {
    charges: {
      table: 'gateway_sim.attempts',
      // renewalChargeKey: subscription:<id>:period:<n>:try:<n>
      on: 'before insert on gateway_sim.attempts',
      when: `new.outcome = 'ran' and new.operation = 'charge_card' and new.key like 'subscription:%:period:%'`,
      body: `if exists (select 1 from subscriptions where id::text = split_part(new.key, ':', 2) and organization_id = ${org})
             then ${wait('charges')} end if;`,
    },
    recordings: {
      table: 'sales',
      // A renewal's sale: the subscription's, with no checkout.
      on: 'before insert on sales',
      when: `new.organization_id = ${org} and new.subscription_id is not null and new.checkout_id is null`,
      body: `${
        options.holdRecordings
          ? `if new.subscription_id = any('${pgArray(options.holdRecordings)}'::uuid[]) then ${wait('recordings')} end if;`
          : wait('recordings')
      } perform pg_sleep(random() * ${Number(options.recordingDelaySeconds)});`,
    },
  };
  const suffix = organizationId.replaceAll('-', '');
  const nameOf = (gate: RenewalGateName) => `test_renewal_gate_${gate}_${suffix}`;
  for (const gate of RENEWAL_GATE_NAMES) {
    const t = triggers[gate];
    await client.query(
      `create function ${nameOf(gate)}() returns trigger language plpgsql as $$ begin ${t.body} return new; end $$`,
    );
    await client.query(
      `create trigger ${nameOf(gate)} ${t.on} for each row when (${t.when}) execute function ${nameOf(gate)}()`,
    );
  }

  const gate = (name: RenewalGateName): Gate => {
    const key = gateKey(organizationId, name);
    let closed = false;
    return {
      async close() {
        if (closed) return;
        await client.query('select pg_advisory_lock(hashtext($1))', [key]);
        closed = true;
      },
      async open() {
        if (!closed) return;
        await client.query('select pg_advisory_unlock(hashtext($1))', [key]);
        closed = false;
      },
    };
  };
  const gates = Object.fromEntries(RENEWAL_GATE_NAMES.map((name) => [name, gate(name)])) as Record<
    RenewalGateName,
    Gate
  >;
  const openAll = async () => {
    for (const name of RENEWAL_GATE_NAMES) await gates[name].open();
  };
  return {
    ...gates,
    openAll,
    async remove() {
      await openAll();
      for (const name of RENEWAL_GATE_NAMES) {
        await client.query(`drop trigger if exists ${nameOf(name)} on ${triggers[name].table}`);
        await client.query(`drop function if exists ${nameOf(name)}()`);
      }
      await client.end();
    },
  };
}

/** SQL columns counting, per gate, the statements waiting at it now (each named after its gate). */
export function heldAtRenewalGatesColumns(organizationId: string): string {
  return RENEWAL_GATE_NAMES.map(
    (gate) => `(select count(*)::int from pg_locks l
        where l.locktype = 'advisory' and not l.granted
          and l.database = (select oid from pg_database where datname = current_database())
          and l.objid::bigint = (hashtext('${gateKey(organizationId, gate)}')::bigint & 4294967295)) as "${gate}"`,
  ).join(',\n');
}
