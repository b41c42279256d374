import type { InferEntity } from '@mikro-orm/core';

/**
 * The wire schemas (zod, snake_case, ISO timestamps) are checked against the entities, the one
 * declaration of each record (issue 32, §2): a field the schema shares with its entity must carry the
 * entity's type as it goes on the wire, or one of them a narrower form of the other (a JSON column the
 * wire spells out, an enum the entity spells out), and every other field must be named as derived.
 */

type SnakeCase<S extends string> = S extends `${infer Head}${infer Tail}`
  ? `${Head extends Lowercase<Head> ? Head : `_${Lowercase<Head>}`}${SnakeCase<Tail>}`
  : S;

/** A value as the wire carries it: a timestamp as an ISO string, an absent optional as null. */
type OnTheWire<V> = V extends Date ? string : V extends undefined ? null : V;

/** The entity's record as the wire names and types it. */
export type WireOf<Entity> = {
  [K in keyof InferEntity<Entity> & string as SnakeCase<K>]-?: OnTheWire<InferEntity<Entity>[K]>;
};

/** The schema's fields that disagree with the entity: not its, or of another type. */
export type WireMismatches<Wire, Entity, Derived extends string = never> = {
  [K in Exclude<keyof Wire, Derived>]: K extends keyof WireOf<Entity>
    ? [WireOf<Entity>[K]] extends [Wire[K]]
      ? never
      : [Wire[K]] extends [WireOf<Entity>[K]]
        ? never
        : K
    : K;
}[Exclude<keyof Wire, Derived>];

/** `true` when the wire record agrees with the entity; otherwise the names of the fields that do not. */
export type AgreesWith<Wire, Entity, Derived extends string = never> = [WireMismatches<Wire, Entity, Derived>] extends [
  never,
]
  ? true
  : { disagreeing: WireMismatches<Wire, Entity, Derived> };

/** The snake_case wire name of an entity property, for the runtime half of the check. */
export function wireName(property: string): string {
  return property.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}
