/**
 * How a worker process is started, wherever it runs (`npm run worker`, `npm start`, Docker, the
 * benchmarks), so its memory stays bounded in a renewal storm (docs/performance.md): V8's young
 * generation capped at 4 MB per semi-space in each isolate (the main one and each workflow thread's;
 * the default grows to 16–32 MB each), and glibc's malloc held to two arenas (otherwise the Rust core's
 * and the threads' allocations spread over an arena per thread and fragment as the storm goes on).
 * The same two settings are written out in package.json's `worker` script and docker-compose.yml.
 */
export const WORKER_NODE_ARGS = ['--max-semi-space-size=4'];
export const WORKER_ENV = { MALLOC_ARENA_MAX: '2' };
