import type { Client } from '@temporalio/client';
import pg from 'pg';
import { relayEvents } from '../activities/webhook-relay.ts';
import type { Orm } from '../db/orm.ts';
import { startWakeableLoop } from './wakeable-loop.ts';

/**
 * Every commit that writes events wakes the relay; a pass costs its own transaction of six statements,
 * so a pass waits this long once woken and takes the events of the commits around it in one (a
 * checkout commits three times). A webhook leaves that much later.
 */
const RELAY_SETTLE_MS = 25;

export interface RelayLoop {
  stop(): Promise<void>;
}

/**
 * The worker's outbox relay: LISTENs for the events trigger's notification (sent at each commit that
 * wrote events) and runs a relay pass (activities/webhook-relay.ts), again at once while one finds a
 * full page or a notification came during it, and every `pollMs` in any case (a notification is lost
 * while the listening connection is down). Failures are logged and retried on the next wake-up; the
 * `webhook-relay` Schedule covers a worker that relays nothing at all.
 */
export function startRelayLoop(deps: {
  databaseUrl: string;
  orm: Orm;
  temporal: Client;
  webhookQueue: string;
  /** `temporal` shares the connection of this process's worker of `webhookQueue` (activities/webhook-relay.ts). */
  eager?: boolean;
  pollMs: number;
  log: (message: string) => void;
  /** A pass queued notifications (the worker's sender sends them). */
  onNotifications?: () => void;
}): RelayLoop {
  let stopped = false;
  let listener: pg.Client | null = null;

  async function listen(): Promise<void> {
    const client = new pg.Client({ connectionString: deps.databaseUrl, application_name: 'billing-webhook-relay' });
    client.on('notification', () => loop.poke());
    const lost = (why: string) => {
      if (stopped || listener !== client) return;
      deps.log(`webhook relay: listening connection lost (${why}); reconnecting`);
      listener = null;
      client.end().catch(() => undefined);
      loop.poke(); // reconnect now, not at the next poll
    };
    client.on('error', (err) => lost(err.message));
    client.on('end', () => lost('ended'));
    await client.connect();
    await client.query('listen billing_events');
    listener = client;
    loop.poke(); // events may have come while no connection listened
  }

  const loop = startWakeableLoop(
    deps.pollMs,
    async () => {
      if (!listener) await listen().catch((err: Error) => deps.log(`webhook relay: cannot listen (${err.message})`));
      try {
        const pass = await relayEvents(deps.orm, deps.temporal, deps.webhookQueue, { eager: deps.eager });
        if (pass.notifications > 0) deps.onNotifications?.();
        return { more: pass.full };
      } catch (err) {
        deps.log(`webhook relay: pass failed (${err instanceof Error ? err.message : String(err)})`);
        return { more: false };
      }
    },
    RELAY_SETTLE_MS,
  );

  return {
    async stop() {
      stopped = true;
      await loop.stop();
      await listener?.end().catch(() => undefined);
    },
  };
}
