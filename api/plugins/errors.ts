import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { ApiError, type ErrorBody } from '../errors.ts';

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
    if (err instanceof ApiError) {
      status = err.statusCode;
      body = { error: err.message, code: err.code, ...(err.detail ? { detail: err.detail } : {}) };
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
