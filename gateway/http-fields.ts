import { z } from 'zod';

/** Field types the gateway's shapes share: money in integer cents, ISO dates, our references. */
export const cents = z.number().int().nonnegative();
export const positiveCents = z.number().int().positive();
export const currency = z.string().min(3).max(3);
export const date = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'expected YYYY-MM-DD');
export const timestamp = z.string().min(1);
export const reference = z.string().min(1).max(255);

type SnakeCase<S extends string> = S extends `${infer Head}${infer Tail}`
  ? `${Head extends Lowercase<Head> ? Head : `_${Lowercase<Head>}`}${SnakeCase<Tail>}`
  : S;
/** An object's type with its camelCase keys in snake_case (`holderName` → `holder_name`). */
export type SnakeKeys<T> = { [K in keyof T & string as SnakeCase<K>]: T[K] };

function snakeCase(key: string): string {
  return key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/**
 * The snake_case wire twin of a flat camelCase schema (same fields, same checks) and the mapping
 * both ways, for shapes whose wire form differs from the port's only in the case of its keys. The
 * mappings copy the declared fields only, as a hand-written mapping would.
 */
export function snakeCaseTwin<Shape extends z.ZodRawShape>(schema: z.ZodObject<Shape>) {
  type Value = z.output<z.ZodObject<Shape>>;
  const names = Object.keys(schema.shape).map((key) => [key, snakeCase(key)] as const);
  const wire = z.object(Object.fromEntries(names.map(([key, name]) => [name, schema.shape[key]])) as SnakeKeys<Shape>);
  type Wire = z.output<typeof wire>;
  const field = (value: object, key: string) => (value as Record<string, unknown>)[key];
  return {
    wire,
    toWire: (value: Value): Wire => Object.fromEntries(names.map(([key, name]) => [name, field(value, key)])) as Wire,
    fromWire: (value: Wire): Value =>
      Object.fromEntries(names.map(([key, name]) => [key, field(value, name)])) as Value,
  };
}
