import type { Client } from '@temporalio/client';
import { relayEvents } from '../activities/webhook-relay.ts';
import { listen, type Listener } from '../db/listen.ts';
import type { Orm } from '../db/orm.ts';
import { startWakeableLoop } from './wakeable-loop.ts';

/**
 * Every commit that writes events wakes the relay; a pass costs its own transaction of six statements,
 * so a pass waits this long once woken and takes the events of the commits around it in one (a
 * checkout commits three times). A webhook leaves that much later.
 */
const RELAY_SETTLE_MS = 25;
/**
 * Under a steady stream of commits (a sale every few tens of milliseconds), passes start at least this
 * far apart, so each takes the events of several sales: a pass per sale was a fifth of the worker's
 * statements (docs/performance.md, 2026-11-27). A commit after a quiet spell still leaves within RELAY_SETTLE_MS.
 */
const RELAY_SPACING_MS = 100;

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
  /** How long opening the LISTEN connection may take (DATABASE_CONNECT_TIMEOUT_MS). */
  connectTimeoutMs?: number;
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
  let listener: Listener | null = null;

  async function listenForEvents(): Promise<void> {
    const opened = await listen(deps.databaseUrl, 'billing_events', {
      applicationName: 'billing-webhook-relay',
      connectTimeoutMs: deps.connectTimeoutMs,
      onNotification: () => loop.poke(),
      onLost: (err) => {
        if (stopped || listener !== opened) return;
        deps.log(`webhook relay: listening connection lost (${err.message}); reconnecting`);
        listener = null;
        loop.poke(); // reconnect now, not at the next poll
      },
    });
    if (stopped) return void (await opened.close());
    listener = opened;
    loop.poke(); // events may have come while no connection listened
  }

  const loop = startWakeableLoop(
    deps.pollMs,
    async () => {
      if (!listener)
        await listenForEvents().catch((err: Error) => deps.log(`webhook relay: cannot listen (${err.message})`));
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
    RELAY_SPACING_MS,
  );

  return {
    async stop() {
      stopped = true;
      await loop.stop();
      await listener?.close();
    },
  };
}
