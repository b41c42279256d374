import { expect } from '@jest/globals';

/** Raw SQL on a test database; rows are loosely typed. */
export type Sql = (query: string, params?: unknown[]) => Promise<any[]>;

/** A query whose rows a refused request must leave as they were (no row changed, added or removed). */
export type Watched = [query: string, params: unknown[]];

/**
 * Runs `refused`, a request the API must turn down, between two reads of the `watched` rows and
 * asserts they are the same: a denial writes nothing, it does not only answer with the right status.
 * Returns what `refused` returned, for the caller's checks of the answer.
 */
export async function expectNothingWritten<T>(sql: Sql, watched: Watched[], refused: () => Promise<T>): Promise<T> {
  const read = () => Promise.all(watched.map(([query, params]) => sql(query, params)));
  const before = await read();
  const result = await refused();
  const after = await read();
  watched.forEach(([query], i) => expect({ query, rows: after[i] }).toEqual({ query, rows: before[i] }));
  return result;
}
