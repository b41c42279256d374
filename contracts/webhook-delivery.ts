import { defineSignal } from '@temporalio/workflow';

/**
 * What the workflow of one event's delivery to one endpoint (workflows/webhook-delivery.ts) is called
 * by and calls: its input, its signal, and the activity it runs (WebhookDeliveryActivities).
 */

export interface WebhookDeliveryInput extends DeliveryStart {
  /** Started by hand (a redelivery): its attempts are marked so. */
  manual?: boolean;
  /** The redelivery that started this run, whose attemptNow signal (sent with the start) it ignores. */
  requestId?: string;
}

/** A redelivery (its request id) asked for while this delivery is on: it tries (again) now. */
export const attemptNowSignal = defineSignal<[string]>('attemptNow');

export interface DeliveryStart {
  eventId: string;
  endpointId: string;
  organizationId: string;
}

export interface AttemptInput extends DeliveryStart {
  /** 1-based, within this run; with the run id it keys the attempt's record. */
  attempt: number;
  runId: string;
  manual: boolean;
  /** The workflow's time of the attempt (a test clock's, under time skipping). */
  at: string;
  /** When the next attempt will be, should this one fail; null: this is the last. */
  nextAttemptAt: string | null;
  /**
   * Run inside the workflow's task (a local activity): made only if one of the endpoint's slots is free
   * within a second, else `busy` (the run then waits for one as a regular activity, holding no workflow
   * task meanwhile).
   */
  onlyIfFree?: boolean;
}

/** `busy`: not attempted (the endpoint's slots were taken and the input said onlyIfFree). */
export type AttemptOutcome = 'succeeded' | 'failed' | 'gone' | 'busy';

/** The delivery workflow as its starters see it (the relay, a redelivery by hand). */
export type WebhookDeliveryWorkflow = (input: WebhookDeliveryInput) => Promise<{ outcome: AttemptOutcome }>;

/** The activity the delivery workflow runs (activities/webhook-deliveries.ts). */
export interface WebhookDeliveryActivities {
  attemptWebhookDelivery(input: AttemptInput): Promise<{ outcome: AttemptOutcome; statusCode: number | null }>;
}
