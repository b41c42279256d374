import { appendFileSync } from 'node:fs';
import net from 'node:net';

/**
 * A counting proxy in front of PostgreSQL: the stack's processes connect to it instead of the server,
 * and it reads what each client sends (the frontend half of the wire protocol, never the answers)
 * to count the statements executed, by kind (their first keyword), and the transactions: an explicit
 * one per `begin`, an implicit one per statement outside a transaction block. A connection that has
 * touched the simulated gateway's tables (`gateway_sim.`) is the gateway's: its statements are
 * counted apart, as a real gateway's work is not ours. pg_stat_statements would need a restart of a
 * shared server; this needs nothing of it.
 */
export interface StatementCounts {
  /** Executed statements by first keyword (select, insert, update, delete, with, begin, commit, …). */
  byKind: Record<string, number>;
  statements: number;
  transactions: number;
}

export interface PgCounter {
  port: number;
  /** Counts so far: the engine's connections, and the simulated gateway's. */
  read(): { engine: StatementCounts; gateway: StatementCounts };
  close(): Promise<void>;
}

interface ConnectionState {
  gateway: boolean;
  inBlock: boolean;
  counts: StatementCounts;
  statements: Map<string, string>;
  portals: Map<string, string>;
}

const empty = (): StatementCounts => ({ byKind: {}, statements: 0, transactions: 0 });
const STATEMENT_LOG = process.env.BENCH_PG_LOG;
const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;

function kindOf(sql: string): string {
  const word = /^\s*(?:\/\*[\s\S]*?\*\/\s*)*([a-zA-Z]+)/.exec(sql)?.[1]?.toLowerCase() ?? 'other';
  return word === 'start' ? 'begin' : word === 'end' ? 'commit' : word;
}

/** A NUL-terminated string at `offset`; the string and the offset past it. */
function cstring(buf: Buffer, offset: number): [string, number] {
  const end = buf.indexOf(0, offset);
  return [buf.toString('utf8', offset, end), end + 1];
}

function executed(state: ConnectionState, sql: string): void {
  if (sql.includes('gateway_sim.')) state.gateway = true;
  const kind = kindOf(sql);
  // Which statements, when the counts alone do not say: one line each, with its time and side (BENCH_PG_LOG).
  if (STATEMENT_LOG) {
    const line = `${Date.now()} ${state.gateway ? 'gateway' : 'engine'} ${sql.replace(/\s+/g, ' ').slice(0, 200)}\n`;
    appendFileSync(STATEMENT_LOG, line);
  }
  const c = state.counts;
  c.byKind[kind] = (c.byKind[kind] ?? 0) + 1;
  c.statements++;
  if (kind === 'begin') {
    state.inBlock = true;
    c.transactions++;
  } else if (kind === 'commit' || kind === 'rollback') {
    if (!/^\s*rollback\s+to/i.test(sql)) state.inBlock = false;
  } else if (!state.inBlock) c.transactions++;
}

/** One frontend message (type byte, then its body without the length). */
function message(state: ConnectionState, type: string, body: Buffer): void {
  if (type === 'Q') {
    // A simple query may hold several statements; the engine's hold one each.
    executed(state, cstring(body, 0)[0]);
  } else if (type === 'P') {
    const [name, at] = cstring(body, 0);
    state.statements.set(name, cstring(body, at)[0]);
  } else if (type === 'B') {
    const [portal, at] = cstring(body, 0);
    state.portals.set(portal, state.statements.get(cstring(body, at)[0]) ?? '');
  } else if (type === 'E') {
    executed(state, state.portals.get(cstring(body, 0)[0]) ?? '');
  }
}

export async function startPgCounter(target: { host: string; port: number }): Promise<PgCounter> {
  const connections: ConnectionState[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const state: ConnectionState = {
      gateway: false,
      inBlock: false,
      counts: empty(),
      statements: new Map(),
      portals: new Map(),
    };
    connections.push(state);
    const upstream = net.connect(target.port, target.host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => (s === client ? upstream : client).destroy());
    }
    upstream.pipe(client);
    let pending: Buffer = Buffer.alloc(0);
    let startup = true;
    client.on('data', (chunk: Buffer) => {
      upstream.write(chunk);
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      for (;;) {
        if (startup) {
          if (pending.length < 8) break;
          const length = pending.readInt32BE(0);
          if (pending.length < length) break;
          const code = pending.readInt32BE(4);
          startup = code === SSL_REQUEST || code === GSSENC_REQUEST;
          pending = pending.subarray(length);
          continue;
        }
        if (pending.length < 5) break;
        const length = pending.readInt32BE(1);
        if (pending.length < 1 + length) break;
        message(state, String.fromCharCode(pending[0]!), pending.subarray(5, 1 + length));
        pending = pending.subarray(1 + length);
      }
    });
    client.on('end', () => upstream.end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;

  const sum = (of: ConnectionState[]): StatementCounts => {
    const total = empty();
    for (const { counts } of of) {
      total.statements += counts.statements;
      total.transactions += counts.transactions;
      for (const [k, n] of Object.entries(counts.byKind)) total.byKind[k] = (total.byKind[k] ?? 0) + n;
    }
    return total;
  };
  return {
    port,
    read: () => ({
      engine: sum(connections.filter((c) => !c.gateway)),
      gateway: sum(connections.filter((c) => c.gateway)),
    }),
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
