import { AsyncLocalStorage } from 'node:async_hooks';
import { SYSTEM_ACTOR, type Actor } from '../contracts/actor.ts';

/**
 * The actor of the work under way in this process (an API request, an activity), so that an event
 * records who acted without every write passing it along. A holder, not the actor itself: an API
 * request enters its context before it knows its credential, and the authentication fills it in.
 */
const storage = new AsyncLocalStorage<{ actor: Actor }>();

/** Who acts now: the context's actor, else the system (a workflow's own step, a sweep, a relay). */
export function currentActor(): Actor {
  return storage.getStore()?.actor ?? SYSTEM_ACTOR;
}

/** Runs `work` as `actor` (an activity, with the actor its workflow sent). */
export function actingAs<T>(actor: Actor, work: () => T): T {
  return storage.run({ actor }, work);
}

/**
 * Runs `work` (the rest of an API request) in a context whose actor `identify` sets once the request's
 * credential is known; until then, and without a credential, the actor is `fallback`.
 */
export function withActorHolder<T>(fallback: Actor, work: (identify: (actor: Actor) => void) => T): T {
  const holder = { actor: fallback };
  return storage.run(holder, () => work((actor) => (holder.actor = actor)));
}
