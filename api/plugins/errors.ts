import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { isDatabaseError } from '../../db/pool.ts';
import { GRPC_STATUS } from '../../temporal/client.ts';
import { ApiError, RETRY_AFTER_SECONDS, type ErrorBody } from '../../use-cases/errors.ts';

/** Fastify's own errors, mapped to our stable codes. */
const FASTIFY_CODES: Record<string, { status: number; code: string; error: string }> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    status: 415,
    code: 'unsupported_media_type',
    error: 'Content-Type must be application/json',
  },
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, code: 'payload_too_large', error: 'Request body is too large' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, code: 'invalid_request', error: 'Request body is empty' },
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, code: 'invalid_json', error: 'Request body is not valid JSON' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, code: 'invalid_request', error: 'Invalid Content-Length' },
};

/** One error handler decides every error body; a 500 never leaks a stack trace. */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    let status: number;
    let body: ErrorBody;
    const unavailable = err instanceof ApiError ? null : dependencyUnavailable(err);
    if (err instanceof ApiError) {
      status = err.statusCode;
      body = { error: err.message, code: err.code, ...(err.detail ? { detail: err.detail } : {}) };
    } else if (unavailable) {
      // Not our bug: a dependency is down or too slow. The client may retry; the operator needs a warning.
      request.log.warn({ err }, unavailable.error);
      status = 503;
      body = { ...unavailable };
    } else if (hasZodFastifySchemaValidationErrors(err)) {
      status = 400;
      const fields = err.validation.map((v) => {
        const path = v.instancePath.replace(/^\//, '').replaceAll('/', '.') || '(root)';
        return `${err.validationContext ?? 'body'}.${path}: ${v.message}`;
      });
      body = { error: 'Invalid request', detail: fields.join('; '), code: 'validation_error' };
    } else if (err.code && FASTIFY_CODES[err.code]) {
      const known = FASTIFY_CODES[err.code]!;
      status = known.status;
      body = { error: known.error, code: known.code, detail: err.message };
    } else if (err.statusCode === 429) {
      status = 429;
      body = { error: 'Rate limit exceeded', code: 'rate_limited', detail: err.message };
    } else if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
      status = err.statusCode;
      body = { error: err.message, code: 'invalid_request' };
    } else {
      request.log.error({ err }, 'unhandled error');
      status = 500;
      body = { error: 'Internal server error', code: 'internal_error' };
    }
    if (status === 503 && !reply.hasHeader('retry-after')) reply.header('retry-after', String(RETRY_AFTER_SECONDS));
    return reply.status(status).send(body);
  });

  app.setNotFoundHandler((request, reply) => {
    const body: ErrorBody = {
      error: 'Route not found',
      detail: `${request.method} ${request.url}`,
      code: 'route_not_found',
    };
    return reply.status(404).send(body);
  });
}

/**
 * Errors that say a dependency is down rather than that we have a bug: PostgreSQL refusing, dropping
 * or not handing out connections in time, Temporal unreachable or past its deadline. They become 503
 * with Retry-After. Looks through `cause` chains and AggregateErrors (a connect that tried several
 * addresses), since the ORM and the Temporal client wrap what the driver threw.
 */
export function dependencyUnavailable(err: unknown): ErrorBody | null {
  const seen = new Set<unknown>();
  const queue: unknown[] = [err];
  let fromDatabase = false;
  let network = false;
  while (queue.length > 0) {
    const e = queue.shift();
    if (!(e instanceof Error) || seen.has(e)) continue;
    seen.add(e);
    if (isTemporalUnavailable(e)) return UNAVAILABLE.workflow;
    if (isDatabaseConnectionError(e)) return UNAVAILABLE.database;
    fromDatabase ||= isDatabaseError(e);
    network ||= isNetworkError(e);
    const { cause } = e as { cause?: unknown };
    if (cause !== undefined) queue.push(cause);
    if (e instanceof AggregateError) queue.push(...(e.errors as unknown[]));
  }
  if (!network) return null;
  return fromDatabase ? UNAVAILABLE.database : UNAVAILABLE.service;
}

/** The bodies: the cause is logged, never sent (it names internal hosts and ports). */
const UNAVAILABLE = {
  database: {
    error: 'The database is unavailable',
    code: 'database_unavailable',
    detail: `PostgreSQL did not answer; retry in ${RETRY_AFTER_SECONDS} seconds`,
  },
  workflow: {
    error: 'The workflow service is unavailable',
    code: 'workflow_unavailable',
    detail: `Temporal did not answer; retry in ${RETRY_AFTER_SECONDS} seconds`,
  },
  service: {
    error: 'A service this request needs is unavailable',
    code: 'service_unavailable',
    detail: `A dependency did not answer; retry in ${RETRY_AFTER_SECONDS} seconds`,
  },
} as const satisfies Record<string, ErrorBody>;

/** SQLSTATE class 08 (connection exception), 57P01-57P03 (shutting down, crashed, not accepting yet), 53300 (too many connections). */
const UNAVAILABLE_SQLSTATE = /^(08[0-9A-Z]{3}|57P0[123]|53300)$/;

/** What pg and pg-pool say when a connection breaks or cannot be had in time. */
const PG_CONNECTION_MESSAGES = [
  /^Connection terminated/, // unexpectedly, or due to connection timeout
  /^timeout exceeded when trying to connect$/, // pool acquire timeout
  /^Client has encountered a connection error and is not queryable$/,
  /^Connection ended unexpectedly$/,
];

function isDatabaseConnectionError(e: Error): boolean {
  const { code, sqlState } = e as { code?: unknown; sqlState?: unknown };
  if (typeof code === 'string' && UNAVAILABLE_SQLSTATE.test(code)) return true;
  if (typeof sqlState === 'string' && UNAVAILABLE_SQLSTATE.test(sqlState)) return true;
  if (e.name === 'ConnectionException') return true;
  return PG_CONNECTION_MESSAGES.some((pattern) => pattern.test(e.message));
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

function isNetworkError(e: Error): boolean {
  const { code } = e as { code?: unknown };
  return typeof code === 'string' && NETWORK_CODES.has(code);
}

/**
 * A gRPC error of the Temporal client (it carries `details` and `metadata`): UNAVAILABLE (server
 * unreachable), DEADLINE_EXCEEDED (our deadline passed, or the server's), RESOURCE_EXHAUSTED (the
 * server sheds load). An update whose call timed out says so with its own error type.
 */
function isTemporalUnavailable(e: Error): boolean {
  if (e.name === 'WorkflowUpdateRPCTimeoutOrCancelledError') return true;
  const { code, details, metadata } = e as { code?: unknown; details?: unknown; metadata?: unknown };
  if (typeof details !== 'string' || typeof metadata !== 'object' || metadata === null) return false;
  return (
    code === GRPC_STATUS.UNAVAILABLE ||
    code === GRPC_STATUS.DEADLINE_EXCEEDED ||
    code === GRPC_STATUS.RESOURCE_EXHAUSTED
  );
}
