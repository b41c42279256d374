import pg from 'pg';
import { markDatabaseError, pgConnectionOptions, type ConnectionOptions } from './pool.ts';

/**
 * The one exception to "entities and the typed Kysely, on MikroORM's pool"
 * (docs/decisions/0003-one-way-to-the-database.md): a LISTEN holds its own connection for as long as
 * it listens, and a pooled one would be handed to other statements (and lose its LISTEN) when released. Every LISTEN of ours opens it here: the API's credential
 * revocations (api/auth/credential-cache.ts) and the worker's outbox relay (worker/webhook-relay.ts).
 */
export interface Listener {
  /** Ends the connection; `onLost` is not called for it. */
  close(): Promise<void>;
}

export interface ListenOptions extends Pick<ConnectionOptions, 'connectTimeoutMs' | 'applicationName'> {
  onNotification(payload: string | undefined): void;
  /**
   * The connection broke or PostgreSQL ended it (a restart, pg_terminate_backend): notifications sent
   * from now on are lost until the caller listens again. Called at most once.
   */
  onLost(err: Error): void;
}

/** A plain identifier, so the statement reads `listen <channel>` as pg_stat_activity shows it. */
const CHANNEL = /^[a-z_][a-z0-9_]*$/;

/** Opens a connection that LISTENs on `channel`; it rejects (and leaves nothing open) when it cannot. */
export async function listen(databaseUrl: string, channel: string, options: ListenOptions): Promise<Listener> {
  if (!CHANNEL.test(channel)) throw new Error(`Not a channel name: ${channel}`);
  const client = new pg.Client({ connectionString: databaseUrl, ...pgConnectionOptions(options) });
  let state: 'opening' | 'open' | 'done' = 'opening';
  const lost = (err: Error) => {
    if (state !== 'open') return; // an error while opening rejects below; after close() nothing is lost
    state = 'done';
    client.end().catch(() => undefined);
    options.onLost(err);
  };
  // Without a listener, an 'error' event would kill the process.
  client.on('error', lost);
  client.on('end', () => lost(new Error('the connection ended')));
  client.on('notification', (msg) => {
    if (state === 'open') options.onNotification(msg.payload);
  });
  try {
    await client.connect();
    await client.query(`listen ${channel}`);
  } catch (err) {
    state = 'done';
    await client.end().catch(() => undefined);
    throw markDatabaseError(err);
  }
  state = 'open';
  return {
    async close() {
      state = 'done';
      await client.end().catch(() => undefined);
    },
  };
}
