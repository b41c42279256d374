import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../app.ts';

/** Placeholder: Idempotency-Key on every POST (filled in by the idempotency work). */
export function registerIdempotency(_app: FastifyInstance, _deps: AppDeps): void {}
