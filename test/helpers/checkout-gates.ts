import pg from 'pg';
import { pgArray } from '../../db/sql.ts';

/**
 * Gates that hold an organization's card checkouts at the moments a crash hurts most, so a test can
 * kill a process exactly there. Each gate is a trigger that takes a shared advisory lock, which the
 * gates' own connection holds exclusively while the gate is closed. A closed gate keeps the waiting
 * statement open in PostgreSQL, on a connection of the process that sent it; killed, that process
 * leaves it to run into the lost connection (a transaction rolls back) once the gate opens.
 *
 * - `tokenizations`: the API's tokenization of the buyer's card waits right after the gateway stored
 *   the token, before the route sends the Update (at the simulator's trace of the attempt,
 *   gateway_sim.attempts, which it writes after the call's own transaction).
 * - `confirmations`: preparing a confirmation waits in its transaction as it marks the checkout
 *   confirmed (the Update not yet accepted, nothing charged).
 * - `charges`: a card charge waits right after the gateway committed its capture, before the
 *   chargeCard activity returns (at the attempt's trace, as for tokenizations).
 * - `recordings`: a recording waits in its transaction just before the sale row is written (its
 *   customer and transaction rows written, the checkout row locked); once let through, each waits a
 *   random moment up to `recordingDelaySeconds`, so they commit one by one rather than all at once.
 */
export type GateName = 'tokenizations' | 'confirmations' | 'charges' | 'recordings';
export const GATE_NAMES: readonly GateName[] = ['tokenizations', 'confirmations', 'charges', 'recordings'];

export interface Gate {
  close(): Promise<void>;
  open(): Promise<void>;
}

export interface CheckoutGates extends Record<GateName, Gate> {
  openAll(): Promise<void>;
  /** Opens them all, drops the triggers and closes the gates' connection. */
  remove(): Promise<void>;
}

/** The advisory lock (a hashtext of this) a gate's trigger waits on. */
const gateKey = (organizationId: string, gate: GateName) => `test-gate:${gate}:${organizationId}`;

export async function checkoutGates(
  databaseUrl: string,
  organizationId: string,
  options: {
    recordingDelaySeconds: number;
    /** The checkouts a gate holds, when not all of the organization's. */
    only?: Partial<Record<GateName, string[]>>;
  },
): Promise<CheckoutGates> {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: 'test-checkout-gates' });
  await client.connect();
  const org = `'${organizationId}'::uuid`;
  /** Waits at the gate, when the checkout (an id expression) is one the gate holds. */
  const wait = (gate: GateName, checkoutId: string) => {
    const only = options.only?.[gate];
    const lock = `perform pg_advisory_xact_lock_shared(hashtext('${gateKey(organizationId, gate)}'));`;
    return only ? `if ${checkoutId} = any('${pgArray(only)}'::uuid[]) then ${lock} end if;` : lock;
  };
  /** A gateway call of one of the organization's checkouts, keyed `checkout:<id>:<step>:…`, that has run. */
  const gatewayCall = (gate: GateName, step: string) => ({
    on: 'before insert on gateway_sim.attempts',
    when: `new.outcome = 'ran' and new.key like 'checkout:%:${step}:%'`,
    body: `if exists (select 1 from checkouts where id::text = split_part(new.key, ':', 2) and organization_id = ${org})
           then ${wait(gate, "split_part(new.key, ':', 2)::uuid")} end if;`,
  });
  const suffix = organizationId.replaceAll('-', '');
  const triggers: Record<GateName, { on: string; when: string; body: string }> = {
    tokenizations: gatewayCall('tokenizations', 'card'),
    confirmations: {
      on: 'before update on checkouts',
      when: `old.status = 'open' and new.status = 'confirmed' and new.organization_id = ${org}`,
      body: wait('confirmations', 'new.id'),
    },
    charges: gatewayCall('charges', 'charge'),
    recordings: {
      on: 'before insert on sales',
      when: `new.organization_id = ${org}`,
      body: `${wait('recordings', 'new.checkout_id')}
             perform pg_sleep(random() * ${Number(options.recordingDelaySeconds)});`,
    },
  };
  const nameOf = (gate: GateName) => `test_gate_${gate}_${suffix}`;
  for (const gate of GATE_NAMES) {
    const t = triggers[gate];
    await client.query(
      `create function ${nameOf(gate)}() returns trigger language plpgsql as $$ begin ${t.body} return new; end $$`,
    );
    await client.query(
      `create trigger ${nameOf(gate)} ${t.on} for each row when (${t.when}) execute function ${nameOf(gate)}()`,
    );
  }

  const gate = (name: GateName): Gate => {
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
  const gates = Object.fromEntries(GATE_NAMES.map((name) => [name, gate(name)])) as Record<GateName, Gate>;
  const openAll = async () => {
    for (const name of GATE_NAMES) await gates[name].open();
  };
  return {
    ...gates,
    openAll,
    async remove() {
      await openAll();
      for (const name of GATE_NAMES) {
        const table = triggers[name].on.replace(/^before \w+ on /, '');
        await client.query(`drop trigger if exists ${nameOf(name)} on ${table}`);
        await client.query(`drop function if exists ${nameOf(name)}()`);
      }
      await client.end();
    },
  };
}

/** SQL columns counting, per gate, the statements waiting at it now (each named after its gate). */
export function heldAtGatesColumns(organizationId: string): string {
  return GATE_NAMES.map(
    (gate) => `(select count(*)::int from pg_locks l
        where l.locktype = 'advisory' and not l.granted
          and l.database = (select oid from pg_database where datname = current_database())
          and l.objid::bigint = (hashtext('${gateKey(organizationId, gate)}')::bigint & 4294967295)) as "${gate}"`,
  ).join(',\n');
}
