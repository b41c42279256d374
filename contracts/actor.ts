/**
 * Who made a change an event records: a credential of the API (an API key, an organization access
 * token, a user's JWT, a customer's session or, with no credential, the buyer on a public page), or
 * the system (a workflow acting on its own: a renewal, a sweep, a gateway's notice). It travels from
 * the API's request into the workflows and activities it starts, signals or updates as a Temporal
 * header (temporal/actor-headers.ts, workflows/actor-interceptors.ts).
 */
export type ActorType = 'api_key' | 'access_token' | 'user' | 'customer' | 'system';

export interface Actor {
  type: ActorType;
  /** The credential's id (API key, access token), the user's or the customer's; null for the system or an anonymous buyer. */
  id: string | null;
}

export const SYSTEM_ACTOR: Actor = { type: 'system', id: null };

/** The Temporal header that carries the actor of a start, signal, Update or activity. */
export const ACTOR_HEADER = 'billing-actor';
