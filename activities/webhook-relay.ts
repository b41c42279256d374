import { log } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { Orm } from '../db/orm.ts';
import { eventsAfter, lockCursor, moveCursor, subscribedEndpoints, type OutboxEvent } from '../db/event/relay.ts';
import { ORGANIZATION_ID } from '../domain/search-attributes.ts';
import { PING_EVENT, webhookWorkflowId } from '../domain/webhooks.ts';
import {
  enqueueNotifications,
  NOTIFICATIONS_PER_ROUND,
  sendDueNotifications,
  type NotificationSenderDeps,
} from './notifications.ts';
import type { DeliveryStart } from '../contracts/webhook-delivery.ts';
import type { WebhookDeliveryWorkflow } from '../contracts/webhook-delivery.ts';
import type { WebhookRelayActivities } from '../contracts/webhook-relay.ts';

/** Events read per pass; a pass that read a full page runs again at once. */
const PAGE = 500;
/** Workflow starts in flight at once during a pass. */
const STARTS_AT_ONCE = 20;

export interface RelayPass {
  events: number;
  deliveries: number;
  /** Notifications queued for the worker's sender (activities/notifications.ts). */
  notifications: number;
  /** More events may wait past this page. */
  full: boolean;
}

/**
 * One pass of the outbox relay: the events committed since the cursor, in (tx, seq) order and only
 * from transactions older than every one still running (so none committed later can land behind the
 * cursor), each fanned out to the organization's enabled endpoints that want its type, as one
 * `webhook:<event>:<endpoint>` workflow per pair, and the members' notifications of those that notify
 * queued (activities/notifications.ts); then the cursor moves past them. Passes serialize on
 * the cursor's row, so any number of workers may run them. A delivery is started before the cursor
 * moves: a pass cut short starts again from the same events, and a start of a pair already started
 * (running or finished) is a no-op.
 */
export async function relayEvents(
  orm: Orm,
  temporal: Client,
  taskQueue: string,
  options: StartOptions = {},
): Promise<RelayPass> {
  return orm.em.fork().transactional(async (tx) => {
    const cursor = await lockCursor(tx);
    if (!cursor) throw new Error('webhook_relay has no cursor row (migration 0019 not applied?)');
    const events = await eventsAfter(tx, cursor, PAGE);
    if (events.length === 0) return { events: 0, deliveries: 0, notifications: 0, full: false };
    const pairs = deliveryPairs(
      events,
      await subscribedEndpoints(
        tx,
        events.map((e) => e.id),
        PING_EVENT,
      ),
    );
    for (let i = 0; i < pairs.length; i += STARTS_AT_ONCE) {
      await Promise.all(pairs.slice(i, i + STARTS_AT_ONCE).map((p) => startDelivery(temporal, taskQueue, options, p)));
    }
    const notifications = await enqueueNotifications(tx, events);
    await moveCursor(tx, events.at(-1)!);
    return { events: events.length, deliveries: pairs.length, notifications, full: events.length === PAGE };
  });
}

/**
 * The deliveries to start, in the events' order. The test event cannot be subscribed to: it goes to
 * the endpoint it names (`endpoint_id`, else its record's `id`), whatever that endpoint's types.
 */
function deliveryPairs(
  events: readonly OutboxEvent[],
  subscribed: readonly { eventId: string; endpointId: string }[],
): DeliveryStart[] {
  return events.flatMap((e) => {
    const named = e.type === PING_EVENT ? (e.data.endpoint_id ?? e.data.id) : undefined;
    return subscribed
      .filter((s) => s.eventId === e.id && (e.type !== PING_EVENT || s.endpointId === named))
      .map((s) => ({ eventId: e.id, endpointId: s.endpointId, organizationId: e.organizationId }));
  });
}

export interface StartOptions {
  /**
   * Eager start: the run's first workflow task comes back in the start's answer, to this process's
   * worker of the webhook queue (the client must share that worker's NativeConnection), instead of
   * through the task queue. It saves a round trip and a poll per delivery; the server falls back to
   * the queue when the worker has no free slot.
   */
  eager?: boolean;
}

/** The relay's start of a delivery: never a second run of a pair, whether the first runs or has ended. */
async function startDelivery(temporal: Client, taskQueue: string, options: StartOptions, d: DeliveryStart) {
  try {
    await temporal.workflow.start<WebhookDeliveryWorkflow>('webhookDeliveryWorkflow', {
      workflowId: webhookWorkflowId(d.eventId, d.endpointId),
      taskQueue,
      args: [d],
      requestEagerStart: options.eager ?? false,
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      typedSearchAttributes: [{ key: ORGANIZATION_ID, value: d.organizationId }],
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}

/**
 * The relay as an activity: passes until the outbox is read up to now, then the notifications due
 * (the Schedule's safety sweep, for a worker whose loops relay or send nothing).
 */
export function createWebhookRelayActivities(deps: {
  orm: Orm;
  temporal?: Client;
  webhookQueue?: string;
  notifications: Omit<NotificationSenderDeps, 'log'>;
}) {
  return {
    async relayWebhookEvents(): Promise<{ events: number; deliveries: number }> {
      const { temporal, webhookQueue } = deps;
      if (!temporal || !webhookQueue) throw new Error('This worker has no Temporal client for the relay');
      const total = { events: 0, deliveries: 0 };
      for (;;) {
        const pass = await relayEvents(deps.orm, temporal, webhookQueue);
        total.events += pass.events;
        total.deliveries += pass.deliveries;
        if (!pass.full) break;
      }
      const sender = { ...deps.notifications, log: (message: string) => log.warn(message) };
      // A bounded number of rounds: what is left is the next sweep's or a worker loop's.
      for (let round = 0; round < 10; round++) {
        if ((await sendDueNotifications(sender)).claimed < NOTIFICATIONS_PER_ROUND) break;
      }
      return total;
    },
  } satisfies Partial<WebhookRelayActivities>;
}
