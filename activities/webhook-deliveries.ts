import { lookup } from 'node:dns';
import { Context } from '@temporalio/activity';
import { Webhook } from 'standardwebhooks';
import { Agent, request } from 'undici';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Orm } from '../db/orm.ts';
import { eventEnvelope, insertEvents } from '../db/event/events.ts';
import {
  cancelDelivery,
  deliverySource,
  insertAttempt,
  openDelivery,
  recordDeliveryAttempt,
} from '../db/event/webhook-deliveries.ts';
import { clearFailing, disableEndpoint, markFailing, webhookRecord } from '../db/event/webhook-endpoints.ts';
import {
  DISABLE_AFTER_FAILING_MS,
  isSuccessStatus,
  publicAddressRefusal,
  type DeploymentEnv,
} from '../domain/webhooks.ts';
import type { AttemptInput, AttemptOutcome } from '../contracts/webhook-delivery.ts';
import type { WebhookDeliveryActivities } from '../contracts/webhook-delivery.ts';

/** A delivery's HTTP call gives up after this long (headers and body alike). */
const TIMEOUT_MS = 15_000;
/** What is kept of the endpoint's answer. */
const EXCERPT_BYTES = 1024;
/** Calls to one endpoint at once from one worker: a slow endpoint holds at most this many slots. */
const PER_ENDPOINT = 4;
/** A regular attempt's heartbeat (its timeout is in workflows/webhook-delivery.ts). */
const HEARTBEAT_EVERY_MS = 5_000;
/** How long an attempt run inside a workflow task waits for one of them before it gives way (`busy`). */
const LOCAL_SLOT_WAIT_MS = 1000;

/**
 * One attempt at delivering an event to an endpoint: signed per Standard Webhooks (`webhook-id` is the
 * event's id on every attempt), posted with a 15 s timeout, only a 2xx counted, the attempt recorded
 * with its status, latency and a bounded excerpt of the answer. The endpoint's address is checked
 * after DNS, at the connection itself (no second lookup a rebinding could answer differently).
 * An endpoint failing for DISABLE_AFTER_FAILING_MS is disabled, with an event to its owner.
 */
export function createWebhookDeliveryActivities(deps: { orm: Orm; env: DeploymentEnv }) {
  const agent = new Agent({ connect: { lookup: guardedLookup(deps.env), timeout: TIMEOUT_MS } });
  const busy = new Map<string, number>();
  const waiting = new Map<string, (() => void)[]>();

  /**
   * One of the endpoint's slots, once one is free; null if none is within `waitMs`. A wait ends with
   * its activity's cancellation (its timeout, or a worker shutting down): `cancelled` rejects, and the
   * waiter leaves the queue, so an attempt Temporal has given up on never posts later.
   */
  async function slot(endpointId: string, waitMs: number, cancelled: AbortSignal): Promise<(() => void) | null> {
    const deadline = Date.now() + waitMs;
    while ((busy.get(endpointId) ?? 0) >= PER_ENDPOINT) {
      if (Date.now() >= deadline) return null;
      cancelled.throwIfAborted();
      await new Promise<void>((resolve, reject) => {
        const queue = waiting.get(endpointId) ?? [];
        waiting.set(endpointId, queue);
        const leave = () => {
          clearTimeout(timer);
          cancelled.removeEventListener('abort', abandon);
          // Out of the queue, so that a slot freed later wakes a waiter still waiting.
          const at = queue.indexOf(wake);
          if (at >= 0) queue.splice(at, 1);
          if (queue.length === 0 && waiting.get(endpointId) === queue) waiting.delete(endpointId);
        };
        const timer = waitMs === Infinity ? undefined : setTimeout(() => (leave(), resolve()), deadline - Date.now());
        const abandon = () => (leave(), reject(cancelled.reason as Error));
        const wake = () => {
          clearTimeout(timer);
          cancelled.removeEventListener('abort', abandon);
          resolve();
        };
        cancelled.addEventListener('abort', abandon, { once: true });
        queue.push(wake);
      });
    }
    busy.set(endpointId, (busy.get(endpointId) ?? 0) + 1);
    return () => {
      const left = (busy.get(endpointId) ?? 1) - 1;
      if (left === 0) busy.delete(endpointId);
      else busy.set(endpointId, left);
      const queue = waiting.get(endpointId);
      const next = queue?.shift();
      if (queue?.length === 0) waiting.delete(endpointId);
      next?.();
    };
  }

  return {
    attemptWebhookDelivery: (input: AttemptInput) => heartbeating(() => attempt(input)),
  } satisfies Partial<WebhookDeliveryActivities>;

  async function attempt(input: AttemptInput): Promise<{ outcome: AttemptOutcome; statusCode: number | null }> {
    const target = await loadTarget(deps.orm.em.fork(), input);
    if (!target) return { outcome: 'gone', statusCode: null };
    const cancelled = Context.current().cancellationSignal;
    const release = await slot(input.endpointId, input.onlyIfFree ? LOCAL_SLOT_WAIT_MS : Infinity, cancelled);
    if (!release) return { outcome: 'busy', statusCode: null };
    const started = performance.now();
    let statusCode: number | null = null;
    let excerpt: string | null = null;
    let error: string | null = null;
    try {
      const now = new Date();
      const headers = signedHeaders(target, now);
      const res = await request(target.url, {
        method: 'POST',
        body: target.payload,
        headers: { 'content-type': 'application/json', 'user-agent': 'billing-engine-webhooks/1', ...headers },
        dispatcher: agent,
        headersTimeout: TIMEOUT_MS,
        bodyTimeout: TIMEOUT_MS,
      });
      statusCode = res.statusCode;
      excerpt = await readExcerpt(res.body);
    } catch (err) {
      error = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    } finally {
      release();
    }
    const latencyMs = Math.round(performance.now() - started);
    const succeeded = statusCode !== null && isSuccessStatus(statusCode);
    await record(deps.orm, target, input, { statusCode, latencyMs, succeeded, excerpt, error });
    return { outcome: succeeded ? 'succeeded' : 'failed', statusCode };
  }
}

/**
 * A regular attempt heartbeats while it waits for a slot and for the endpoint: should its worker die,
 * Temporal gives the attempt to another within the heartbeat timeout (workflows/webhook-delivery.ts),
 * not at the end of its two minutes. A local one cannot heartbeat (its workflow task is its lease).
 */
async function heartbeating<T>(run: () => Promise<T>): Promise<T> {
  const context = Context.current();
  const timer = context.info.isLocal ? undefined : setInterval(() => context.heartbeat(), HEARTBEAT_EVERY_MS);
  try {
    return await run();
  } finally {
    clearInterval(timer);
  }
}

interface Target {
  deliveryId: string;
  organizationId: string;
  endpointId: string;
  url: string;
  secrets: string[];
  eventId: string;
  payload: string;
}

/**
 * The event's payload and the endpoint's URL and signing secrets, the delivery's row made if it is the
 * first attempt; null (and the delivery canceled) when the endpoint was deleted or disabled meanwhile.
 */
async function loadTarget(em: EntityManager, input: AttemptInput): Promise<Target | null> {
  const at = new Date(input.at);
  const source = await deliverySource(em, input.eventId, input.endpointId);
  const deliveryId = await openDelivery(em, { ...input, at });
  if (!source?.live) {
    await cancelDelivery(em, deliveryId);
    return null;
  }
  const overlap = source.previousSecret && source.previousSecretExpiresAt && source.previousSecretExpiresAt > at;
  return {
    deliveryId,
    organizationId: source.organizationId,
    endpointId: input.endpointId,
    url: source.url,
    secrets: [source.secret, ...(overlap ? [source.previousSecret!] : [])],
    eventId: source.eventId,
    payload: JSON.stringify(eventEnvelope({ ...source, id: source.eventId })),
  };
}

/** Standard Webhooks' headers; during a secret's rotation both secrets sign (space-separated). */
function signedHeaders(t: Target, now: Date): Record<string, string> {
  const signatures = t.secrets.map((secret) => new Webhook(secret).sign(t.eventId, now, t.payload));
  return {
    'webhook-id': t.eventId,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  };
}

async function readExcerpt(body: AsyncIterable<Buffer> & { destroy(): void }): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= EXCERPT_BYTES) break; // the rest is not read (the connection is closed)
  }
  body.destroy();
  return Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8');
}

interface AttemptResult {
  statusCode: number | null;
  latencyMs: number;
  succeeded: boolean;
  excerpt: string | null;
  error: string | null;
}

/**
 * The attempt's row (once, however often the activity is retried), the delivery's state and the
 * endpoint's health: a success clears `failing_since`; a failure sets it, and one failing for long
 * enough disables the endpoint with `webhook_endpoint.disabled` in the same transaction.
 */
async function record(orm: Orm, t: Target, input: AttemptInput, r: AttemptResult): Promise<void> {
  const at = new Date(input.at);
  await orm.em.fork().transactional(async (tx) => {
    const recorded = await insertAttempt(tx, {
      deliveryId: t.deliveryId,
      runId: input.runId,
      number: input.attempt,
      manual: input.manual,
      attemptedAt: at,
      statusCode: r.statusCode,
      latencyMs: r.latencyMs,
      succeeded: r.succeeded,
      responseExcerpt: r.excerpt,
      error: r.error,
    });
    if (!recorded) return; // recorded by an earlier try of this activity
    const status = r.succeeded ? 'succeeded' : input.nextAttemptAt === null ? 'failed' : 'pending';
    const nextAttemptAt = r.succeeded || input.nextAttemptAt === null ? null : new Date(input.nextAttemptAt);
    await recordDeliveryAttempt(tx, t.deliveryId, { status, at, nextAttemptAt, succeeded: r.succeeded });
    if (r.succeeded) {
      await clearFailing(tx, t.endpointId);
      return;
    }
    const endpoint = await markFailing(tx, t.endpointId, at);
    const failingMs = at.getTime() - endpoint.failingSince.getTime();
    if (endpoint.enabled && failingMs >= DISABLE_AFTER_FAILING_MS) {
      const reason = `every delivery failed for ${Math.floor(failingMs / 3_600_000)} hours`;
      const disabled = await disableEndpoint(tx, t.endpointId, reason, at);
      // The endpoint as its GET answers it: disabled_reason and failing_since say why.
      await insertEvents(tx, t.organizationId, [['webhook_endpoint.disabled', webhookRecord(disabled)]]);
    }
  });
}

/** dns.lookup that refuses, in production, a host resolving to any non-public address (the SSRF guard). */
function guardedLookup(env: DeploymentEnv): typeof lookup {
  return ((hostname: string, options: object, callback: (...args: unknown[]) => void) => {
    lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err);
      const list = addresses as { address: string; family: number }[];
      const refusal = publicAddressRefusal(
        list.map((a) => a.address),
        env,
      );
      if (refusal) return callback(new Error(`Endpoint ${hostname} ${refusal}`));
      if ((options as { all?: boolean }).all) return callback(null, list);
      return callback(null, list[0]!.address, list[0]!.family);
    });
  }) as typeof lookup;
}
