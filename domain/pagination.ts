/** List conventions of the spec: page/limit pagination and `sorting` with a leading '-' for descending. */

export interface PageRequest {
  page: number;
  limit: number;
}

export const DEFAULT_PAGE_LIMIT = 10;
export const MAX_PAGE_LIMIT = 100;

function assertPositiveInteger(name: string, n: number): void {
  if (!Number.isSafeInteger(n) || n < 1) throw new RangeError(`${name} must be a positive integer`);
}

/** Rows to skip for a 1-based page. */
export function pageOffset(p: PageRequest): number {
  assertPositiveInteger('page', p.page);
  assertPositiveInteger('limit', p.limit);
  return (p.page - 1) * p.limit;
}

/**
 * Number of the last page. Returns 1 (not 0) when totalCount is 0 so that
 * page 1 is always a valid page: an empty list is one empty page.
 */
export function maxPage(totalCount: number, limit: number): number {
  if (!Number.isSafeInteger(totalCount) || totalCount < 0)
    throw new RangeError('totalCount must be a non-negative integer');
  assertPositiveInteger('limit', limit);
  return Math.max(1, Math.ceil(totalCount / limit));
}

export type Sorting = { field: string; direction: 'asc' | 'desc' };

/**
 * Parses `sorting` (e.g. "-created_at"). Absent input uses `fallback`, which follows
 * the same syntax. Anything else outside the document's enum (a field outside `allowed`,
 * an empty or padded value) is an error, so it never reaches an ORDER BY.
 */
export function parseSorting(
  sorting: string | undefined,
  allowed: readonly string[],
  fallback: string,
): Sorting | { error: string } {
  // `?sorting=` is sent, not absent: the document's enum has no empty value (issue 33 §7).
  const raw = sorting ?? fallback;
  const desc = raw.startsWith('-');
  const field = desc ? raw.slice(1) : raw;
  if (!allowed.includes(field)) {
    return {
      error: `sorting must be one of ${allowed.join(', ')} (prefix with '-' for descending)`,
    };
  }
  return { field, direction: desc ? 'desc' : 'asc' };
}
