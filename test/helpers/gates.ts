import pg from 'pg';

/**
 * Gates that hold an organization's statements at chosen moments, so a crash test can kill a process
 * exactly there (checkoutGates, renewalGates). Each gate is a trigger that takes a shared advisory lock,
 * which the gates' own connection holds exclusively while the gate is closed. A closed gate keeps the
 * waiting statement open in PostgreSQL, on a connection of the process that sent it; killed, that
 * process leaves it to run into the lost connection (a transaction rolls back) once the gate opens.
 */
export interface Gate {
  close(): Promise<void>;
  open(): Promise<void>;
}

export type Gates<N extends string> = Record<N, Gate> & {
  openAll(): Promise<void>;
  /** Opens them all, drops the triggers and closes the gates' connection. */
  remove(): Promise<void>;
};

/** A row trigger: `on` is `before <insert|update> on <table>`; `body` runs when `when` holds. */
export interface GateTrigger {
  on: string;
  when: string;
  body: string;
}

/** The advisory lock (a hashtext of this) a gate's trigger waits on. */
const gateKey = (kind: string, organizationId: string, gate: string) => `test-${kind}-gate:${gate}:${organizationId}`;

/**
 * Installs the gates of `kind` for the organization, open. `triggers` builds each gate's trigger from
 * the statement that waits at it.
 */
export async function installGates<N extends string>(
  databaseUrl: string,
  kind: string,
  organizationId: string,
  triggers: (waitAt: (gate: N) => string) => Record<N, GateTrigger>,
): Promise<Gates<N>> {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: `test-${kind}-gates` });
  await client.connect();
  const waitAt = (gate: N) =>
    `perform pg_advisory_xact_lock_shared(hashtext('${gateKey(kind, organizationId, gate)}'));`;
  const defined = triggers(waitAt);
  const names = Object.keys(defined) as N[];
  const nameOf = (gate: N) => `test_${kind}_gate_${gate}_${organizationId.replaceAll('-', '')}`;
  for (const gate of names) {
    const t = defined[gate];
    await client.query(
      `create function ${nameOf(gate)}() returns trigger language plpgsql as $$ begin ${t.body} return new; end $$`,
    );
    await client.query(
      `create trigger ${nameOf(gate)} ${t.on} for each row when (${t.when}) execute function ${nameOf(gate)}()`,
    );
  }

  const gate = (name: N): Gate => {
    const key = gateKey(kind, organizationId, name);
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
  const gates = Object.fromEntries(names.map((name) => [name, gate(name)])) as Record<N, Gate>;
  const openAll = async () => {
    for (const name of names) await gates[name].open();
  };
  return {
    ...gates,
    openAll,
    async remove() {
      await openAll();
      for (const name of names) {
        const table = defined[name].on.replace(/^before \w+ on /, '');
        await client.query(`drop trigger if exists ${nameOf(name)} on ${table}`);
        await client.query(`drop function if exists ${nameOf(name)}()`);
      }
      await client.end();
    },
  };
}

/** SQL columns counting, per gate, the statements waiting at it now (each named after its gate). */
export function heldAtGatesColumns(kind: string, organizationId: string, names: readonly string[]): string {
  return names
    .map(
      (gate) => `(select count(*)::int from pg_locks l
        where l.locktype = 'advisory' and not l.granted
          and l.database = (select oid from pg_database where datname = current_database())
          and l.objid::bigint = (hashtext('${gateKey(kind, organizationId, gate)}')::bigint & 4294967295)) as "${gate}"`,
    )
    .join(',\n');
}
