import {
  AsyncLocalStorage,
  defaultPayloadConverter,
  type Headers,
  type WorkflowInterceptorsFactory,
} from '@temporalio/workflow';
import { ACTOR_HEADER, SYSTEM_ACTOR, type Actor } from '../contracts/actor.ts';

/**
 * The actor's way through a workflow (contracts/actor.ts): a run's own steps act for whoever started
 * it, each signal's and Update's handler for whoever sent it, and what they schedule (activities,
 * signals to other workflows, children) carries that actor on. A workflow whose run is the system's
 * own work (a subscription's renewals, a checkout's payment) runs its body in `asSystem`.
 * Registered with the bundle (worker/bundle.ts); headers are not part of the commands a replay checks.
 */

const storage = new AsyncLocalStorage<Actor>();

const actorIn = (headers: Headers): Actor =>
  headers[ACTOR_HEADER] ? defaultPayloadConverter.fromPayload<Actor>(headers[ACTOR_HEADER]) : SYSTEM_ACTOR;

const withActor = (headers: Headers): Headers => ({
  ...headers,
  [ACTOR_HEADER]: defaultPayloadConverter.toPayload(storage.getStore() ?? SYSTEM_ACTOR),
});

/** Runs a workflow's body as the system: its own steps are nobody's request. */
export function asSystem<T>(work: () => Promise<T>): Promise<T> {
  return storage.run(SYSTEM_ACTOR, work);
}

export const interceptors: WorkflowInterceptorsFactory = () => ({
  inbound: [
    {
      execute: (input, next) => storage.run(actorIn(input.headers), () => next(input)),
      handleSignal: (input, next) => storage.run(actorIn(input.headers), () => next(input)),
      handleUpdate: (input, next) => storage.run(actorIn(input.headers), () => next(input)),
    },
  ],
  outbound: [
    {
      scheduleActivity: (input, next) => next({ ...input, headers: withActor(input.headers) }),
      scheduleLocalActivity: (input, next) => next({ ...input, headers: withActor(input.headers) }),
      signalWorkflow: (input, next) => next({ ...input, headers: withActor(input.headers) }),
      startChildWorkflowExecution: (input, next) => next({ ...input, headers: withActor(input.headers) }),
    },
  ],
});
