import type { RouteDeps } from '../api/route-deps.ts';

/**
 * A request's own EntityManager (`deps.orm.em.fork()`), handed to the use-cases it calls. A page never
 * reads through it itself: pages/ imports neither db/ nor the ORM (.dependency-cruiser.cjs).
 */
export type RequestEm = ReturnType<RouteDeps['orm']['em']['fork']>;
