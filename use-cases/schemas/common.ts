import { z } from 'zod';
import { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT, maxPage, pageOffset, parseSorting } from '../../domain/pagination.ts';
import { badRequest } from '../errors.ts';

export const errorBody = z.object({
  error: z.string(),
  detail: z.string().optional(),
  code: z.string(),
});

const described = (description: string) => errorBody.meta({ description });

/**
 * 400 and 422, as the spec's table names them: 400 "invalid request" is a request this document itself
 * refuses (a missing or unknown field, a wrong type, a broken pattern, a variant's field in another);
 * 422 "validation error" is a well-formed request that a rule the document cannot state in JSON Schema
 * refuses — a rule between fields, of the clock, of check digits, or of the data already stored.
 */
const INVALID_REQUEST = 'Invalid request: the request breaks this document (the detail names the field)';
const VALIDATION_ERROR =
  'Validation error: the request is well-formed, but a rule between its fields, of the clock, of check digits ' +
  'or of the stored data refuses it; `code` says which rule, the detail names the field';

/** The error responses every authenticated route can answer with, for the OpenAPI document. */
export const errorResponses = {
  400: described(INVALID_REQUEST),
  401: described('Missing, invalid or expired credential'),
  403: described('The credential lacks the scope or role this operation needs'),
  404: described('No such record visible to this credential'),
  409: described(
    'In conflict with the state of the record, or with a request still running under the same Idempotency-Key',
  ),
  422: described(VALIDATION_ERROR),
  429: described('Rate limit exceeded; see Retry-After'),
} as const;

/** The 422 of an operation, with the codes of the rules it checks (other 422s, e.g. a reused Idempotency-Key, may occur). */
export function validationErrors(rules: Record<string, string>) {
  const listed = Object.entries(rules)
    .map(([code, rule]) => `\`${code}\`: ${rule}`)
    .join('; ');
  return described(`${VALIDATION_ERROR}. ${listed}.`);
}

/**
 * How the document marks a CPF or CNPJ: `format: cpf-cnpj` (11 or 14 digits, punctuation allowed,
 * check digits verified by the server). Not a standard format: clients see a string; the fuzz run
 * teaches it to schemathesis (scripts/schemathesis_hooks.py).
 */
export const TAX_ID_FORMAT = {
  format: 'cpf-cnpj',
  description: 'CPF (11 digits) or CNPJ (14 digits); check digits verified',
};

/**
 * An email address as the document's `format: email` means it (RFC 5321): at most 254 characters, at
 * most 64 before the @. `maxLength` can lower the 254.
 */
export function emailAddress(maxLength = 254) {
  return z
    .email()
    .max(maxLength)
    .refine((value) => value.lastIndexOf('@') <= 64, 'the part before @ is longer than 64 characters');
}

/** An object key of a free-form object: no NUL (jsonb cannot hold one), at most 100 characters. */
export const objectKey = z
  .string()
  .max(100)
  // eslint-disable-next-line no-control-regex -- refusing U+0000 is the point of this pattern
  .regex(/^[^\u0000]*$/);
/**
 * A value of a free-form object, any JSON. The request's NUL rule (api/plugins/protocol.ts) holds at
 * every level, and jsonb could not store it otherwise, so a NUL is refused rather than stored altered:
 * the document states it on the component FREE_VALUE names (api/plugins/openapi-document.ts), which
 * refers to itself. Parsed as unknown: the protocol hook has already walked it, without recursion.
 */
export const FREE_VALUE = 'FreeFormValue';
export const freeValue = z.unknown().meta({ $ref: `#/components/schemas/${FREE_VALUE}` });
export const metadata = z.record(objectKey, freeValue);

/**
 * Free text that must not be blank: trimmed, then at least one character. The document states it as a
 * pattern (a character that is neither white space nor NUL), because JSON Schema cannot say "after
 * trimming"; without it a client would read a lone tab as valid.
 */
export const nonBlank = (max: number) =>
  z
    .string()
    // The length is the document's, of the string as sent; the blank check is of the trimmed one.
    .max(max)
    .trim()
    .min(1)
    // eslint-disable-next-line no-control-regex -- refusing U+0000 is part of the rule
    .regex(/^[^\u0000]*[^\s\u0000\ufeff][^\u0000]*$/);
export const uuid = z.uuid();

/**
 * page, limit (a limit above 100 is a 400, not silently clamped) and sorting by one of `sortable`
 * (`-` first for descending). The document lists the sorting values; the route's orderBy answers any
 * other with 400 "Invalid sorting", naming them.
 */
export function listQuery(sortable: readonly [string, ...string[]], defaultLimit = DEFAULT_PAGE_LIMIT) {
  const values = sortable.flatMap((field) => [field, `-${field}`]);
  return z.object({
    page: z.coerce.number().int().min(1).default(1),
    limit: z.coerce.number().int().min(1).max(MAX_PAGE_LIMIT).default(defaultLimit),
    sorting: z
      .string()
      .meta({ enum: values, description: `Field to sort by; a leading - sorts descending` })
      .optional(),
  });
}

export const booleanQuery = z.enum(['true', 'false']).transform((v) => v === 'true');

export function paginated<T extends z.ZodType>(item: T) {
  return z.object({
    items: z.array(item),
    pagination: z.object({ total_count: z.number().int(), max_page: z.number().int() }),
  });
}

export function pageOf<T>(items: T[], totalCount: number, limit: number) {
  return { items, pagination: { total_count: totalCount, max_page: maxPage(totalCount, limit) } };
}

export { pageOffset };

/**
 * Turns `sorting` (e.g. `-created_at`) into a MikroORM orderBy. `columns` maps wire names to entity
 * properties; anything else is a 400 naming the allowed fields.
 */
export function orderBy(sorting: string | undefined, columns: Record<string, string>, fallback: string) {
  const parsed = parseSorting(sorting, Object.keys(columns), fallback);
  if ('error' in parsed) throw badRequest('Invalid sorting', parsed.error);
  return { [columns[parsed.field]!]: parsed.direction, id: parsed.direction } as Record<string, 'asc' | 'desc'>;
}

/** The direction of a plain-SQL list sorted by created_at alone (`sorting`: created_at or -created_at). */
export function createdAtDirection(sorting: string | undefined): 'asc' | 'desc' {
  const parsed = parseSorting(sorting, ['created_at'], '-created_at');
  if ('error' in parsed) throw badRequest('Invalid sorting', parsed.error);
  return parsed.direction === 'asc' ? 'asc' : 'desc';
}

/** A timestamp as the API writes it; a plain-SQL row's text timestamp is taken too. */
export const iso = (d: Date | null | undefined) =>
  d ? (d instanceof Date ? d.toISOString() : new Date(d).toISOString()) : null;

const UUID_FORMAT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A malformed id names no record: routes answer it with 404 like any other unknown id. */
export const isUuid = (value: string) => UUID_FORMAT.test(value);
