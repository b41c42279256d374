import type { Headers } from '@temporalio/common';
import { defaultPayloadConverter } from '@temporalio/common';
import type { WorkflowClientInterceptor } from '@temporalio/client';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { ACTOR_HEADER, type Actor } from '../contracts/actor.ts';
import { actingAs, currentActor } from '../db/actor-context.ts';

/**
 * The actor's way through Temporal, on the process side: every start, signal and Update this process
 * sends carries the actor it runs as (an API request's credential, an activity's actor), and every
 * activity runs as the actor its workflow sent (workflows/actor-interceptors.ts decides which).
 */

const withActor = (headers: Headers): Headers => ({
  ...headers,
  [ACTOR_HEADER]: defaultPayloadConverter.toPayload(currentActor()),
});

/** The client's side: the current actor on each start, signal and Update. */
export const actorClientInterceptor: WorkflowClientInterceptor = {
  startWithDetails: (input, next) => next({ ...input, headers: withActor(input.headers) }),
  signal: (input, next) => next({ ...input, headers: withActor(input.headers) }),
  signalWithStart: (input, next) => next({ ...input, headers: withActor(input.headers) }),
  startUpdate: (input, next) => next({ ...input, headers: withActor(input.headers) }),
};

/** The worker's side: an activity runs as the actor in its header (the system when there is none). */
export const actorActivityInterceptor: ActivityInterceptorsFactory = () => ({
  inbound: {
    execute: (input, next) => {
      const payload = input.headers[ACTOR_HEADER];
      const actor = payload ? defaultPayloadConverter.fromPayload<Actor>(payload) : null;
      return actor ? actingAs(actor, () => next(input)) : next(input);
    },
  },
});
