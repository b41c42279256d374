import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../app.ts';

/** Placeholder: per-credential limits shared by every API process (filled in by the rate-limit work). */
export async function registerRateLimit(_app: FastifyInstance, _deps: AppDeps): Promise<void> {}
