/**
 * A PostgreSQL array literal for a raw-SQL parameter. MikroORM expands a JS array parameter into a
 * list of values (for `in (?)`), so arrays travel as one literal and are cast in the query: `?::text[]`.
 */
export function pgArray(values: readonly string[]): string {
  return `{${values.map((v) => `"${v.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`).join(',')}}`;
}
