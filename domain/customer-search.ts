import { escapeLike } from './like-patterns.ts';

/**
 * Finding customers by a piece of text (GET /customers and GET /sales `query`): a customer matches when
 * its e-mail or its name contains the text, case-insensitively, the text's `%`, `_` and `\` taken
 * literally. An empty text searches nothing, so it matches everyone.
 */

/** The customer fields a search reads. */
export const CUSTOMER_SEARCH_FIELDS = ['email', 'name'] as const;

/** The ILIKE pattern of "contains `query`", or null when there is nothing to search for. */
export function customerSearchPattern(query: string | undefined): string | null {
  return query === undefined || query === '' ? null : `%${escapeLike(query)}%`;
}
