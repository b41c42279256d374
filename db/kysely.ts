import type { EntityManager, PostgreSqlConnection } from '@mikro-orm/postgresql';
import { MikroKyselyPlugin, type EntityName, type InferKyselyDB } from '@mikro-orm/sql';
import { sql, type Compilable, type Expression, type Kysely, type RawBuilder } from 'kysely';
import type { Pool } from 'pg';
import { markDatabaseError } from './pool.ts';
import type { entities } from './entities/index.ts';

/**
 * The one typed SQL builder (MikroORM's own Kysely): its tables and columns are the entities', by their
 * property names, so a row comes back in the entity's shape and a record is declared once. Bound to
 * the EntityManager's transaction when `em` is inside one. Values are converted as the entities' types
 * say (a `bigint('number')` column comes back a number, a timestamp a Date), as an entity read would.
 */
const NAMING = { columnNamingStrategy: 'property', convertValues: true } as const;
export type Database = InferKyselyDB<(typeof entities)[number], typeof NAMING>;

export function kyselyOf(em: EntityManager): Kysely<Database> {
  return em.getKysely(NAMING) as unknown as Kysely<Database>;
}

/**
 * A hot statement on one entity's table, written once with the typed builder, compiled once, and then
 * sent as a named prepared statement (parsed and planned once per connection, each call sending only
 * its parameters). A `kyselyOf` statement costs some 300 µs more than the statement itself here (the
 * builder, the plugin and MikroORM's connection on every call); this pays them at the first call only.
 * Its rows come back as `kyselyOf`'s do (property names, values converted as the entity says), through
 * a converter made once from the entity's metadata; a column that is not the entity's (an expression
 * the statement names) comes as PostgreSQL sent it, as with the plugin. `build` receives the arguments
 * as placeholders, each of which must end up as one parameter of the statement as it is (values the
 * builder writes itself are constants of the statement). The statement runs on its own, outside any
 * transaction.
 */
export function prepared<T extends object, A extends unknown[], R>(
  name: string,
  entity: EntityName<T>,
  build: (db: Kysely<Database>, ...args: A) => Compilable<R>,
): (em: EntityManager, ...args: A) => Promise<R[]> {
  const prepared = new WeakMap<object, Promise<PreparedStatement>>();
  return async (em, ...args) => {
    const connection = em.getConnection();
    let statement = prepared.get(connection);
    if (!statement) prepared.set(connection, (statement = prepare(em, name, entity, build, args.length)));
    const { pool, text, parameters, convert } = await statement.catch((err: unknown) => {
      prepared.delete(connection); // not connected yet: the next call tries again
      throw markDatabaseError(err);
    });
    try {
      const values = parameters.map((p) => ('index' in p ? args[p.index] : p.value));
      const { rows } = await pool.query<Record<string, unknown>>({ name, text, values });
      // The rows of the typed statement `build` returns, as its result type says.
      return rows.map(convert) as R[];
    } catch (err) {
      throw markDatabaseError(err);
    }
  };
}

/** A prepared statement's first row, or undefined. */
export function firstRow<A extends unknown[], R>(
  statement: (em: EntityManager, ...args: A) => Promise<R[]>,
): (em: EntityManager, ...args: A) => Promise<R | undefined> {
  return async (em, ...args) => (await statement(em, ...args))[0];
}

interface PreparedStatement {
  pool: Pool;
  text: string;
  /** For each parameter of the statement, the index of the argument it takes, or its constant value. */
  parameters: ({ index: number } | { value: unknown })[];
  convert: (row: Record<string, unknown>) => Record<string, unknown>;
}

async function prepare<T extends object, A extends unknown[], R>(
  em: EntityManager,
  name: string,
  entity: EntityName<T>,
  build: (db: Kysely<Database>, ...args: A) => Compilable<R>,
  arity: number,
): Promise<PreparedStatement> {
  const fork = em.fork();
  const db = fork.getKysely().withPlugin(new MikroKyselyPlugin(fork, NAMING)) as unknown as Kysely<Database>;
  const placeholders = Array.from({ length: arity }, (_, i) => `\u0000argument ${i}\u0000`);
  // Placeholders only travel as parameters, whatever the arguments' types (checked just below).
  const query = build(db, ...(placeholders as unknown as A)).compile();
  // Each parameter is an argument (its index) or a constant of the statement (kept as compiled).
  const parameters = query.parameters.map((value) => {
    const index = placeholders.indexOf(value as string);
    return index >= 0 ? { index } : { value };
  });
  const pool = await (em.getConnection() as PostgreSqlConnection).getNativeClient();
  return { pool, text: query.sql, parameters, convert: rowConverter(fork, name, entity) };
}

/** Column names to property names, each value converted as MikroORM's `convertValues` does. */
function rowConverter<T extends object>(em: EntityManager, name: string, entity: EntityName<T>) {
  const platform = em.getPlatform();
  const timezone = platform.getTimezone();
  // As MikroORM reads a timestamp: a text without an offset is in the configured timezone.
  const parseDate = (value: string | number) =>
    !timezone ||
    timezone === 'local' ||
    typeof value === 'number' ||
    value.includes('+') ||
    value.lastIndexOf('-') > 10 ||
    value.endsWith('Z')
      ? platform.parseDate(value)
      : platform.parseDate(value + timezone);
  const byColumn = new Map<string, { property: string; read: (value: unknown) => unknown }>();
  for (const prop of em.getMetadata(entity).props) {
    const read = (value: unknown): unknown => {
      if (value == null) return value;
      if (prop.customType) return prop.customType.convertToJSValue(value, platform);
      if (prop.runtimeType === 'boolean') return !!value;
      if (prop.runtimeType === 'Date' && (typeof value === 'string' || typeof value === 'number')) {
        return parseDate(value);
      }
      return value;
    };
    for (const column of prop.fieldNames ?? []) byColumn.set(column, { property: prop.name, read });
  }
  return (row: Record<string, unknown>) => {
    const out: Record<string, unknown> = {};
    for (const column in row) {
      const known = byColumn.get(column);
      if (known) out[known.property] = known.read(row[column]);
      else out[column] = row[column];
    }
    return out;
  };
}

/** The database's clock plus `ms` milliseconds (a value or an expression): leases and expiries use one clock. */
export function nowPlusMs(ms: number | Expression<number>): RawBuilder<Date> {
  return sql<Date>`now() + cast(${ms} as integer) * interval '1 millisecond'`;
}

/** The milliseconds from the database's clock until `at` (a timestamp column), 0 once it has passed. */
export function msUntil(at: Expression<Date>): RawBuilder<number> {
  return sql<number>`greatest(0, ceil(extract(epoch from (${at} - now())) * 1000))::integer`;
}
/** What the repositories use of Kysely itself: its raw fragments and its row types (the client stays here). */
export { sql } from 'kysely';
export type { ExpressionBuilder, Insertable, Kysely, Selectable, Updateable } from 'kysely';
