import os from 'node:os';
import path from 'node:path';

/** Settings of the test run: its own database, its own Temporal dev server and task queue. */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/billing_test';
/**
 * The database of the time-skipping tests (test/workflow's kits): their workflows run on a test server
 * of their own, so no process of the run's dev server may see their records. Otherwise the run's worker
 * (its hourly sweep Schedule, its outbox relay) would start workflows of its own for them on its real
 * clock: renewals of subscriptions whose periods the test server skipped, deliveries of their events,
 * load and writes behind the tests' backs.
 */
export const TEST_TIME_SKIPPING_DATABASE_URL =
  process.env.TEST_TIME_SKIPPING_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/billing_test_time_skipping';
export const TEST_TEMPORAL_PORT = Number(process.env.TEST_TEMPORAL_PORT ?? 7244);
export const TEST_TEMPORAL_ADDRESS = `127.0.0.1:${TEST_TEMPORAL_PORT}`;
/**
 * Named after the run's database: each worker claims its queue for its database (decision 0083), and a
 * fresh database per run on a reused dev server (TEST_TEMPORAL_PORT) needs a queue of its own.
 */
export const TEST_TASK_QUEUE = `billing-test-${new URL(TEST_DATABASE_URL).pathname.slice(1)}`;
export const TEST_JWT_SECRET = 'test-secret-for-hs256-user-jwts-0123456789';
/** The worker's mail outbox (MAIL_OUTBOX_DIR): a temporary folder of the run's own, named after its database. */
export const TEST_MAIL_OUTBOX_DIR = path.join(os.tmpdir(), `${new URL(TEST_DATABASE_URL).pathname.slice(1)}-mail`);

/** The environment the API and worker under test read through loadConfig. */
export function testEnv(overrides: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    DEPLOYMENT_ENV: 'test',
    LOG_LEVEL: 'silent',
    DATABASE_URL: TEST_DATABASE_URL,
    TEMPORAL_ADDRESS: TEST_TEMPORAL_ADDRESS,
    TEMPORAL_TASK_QUEUE: TEST_TASK_QUEUE,
    JWT_SECRET: TEST_JWT_SECRET,
    HOST: '127.0.0.1',
    PORT: '0',
    TLS_CERT_FILE: '.certs/localhost.crt',
    TLS_KEY_FILE: '.certs/localhost.key',
    // High enough that only the rate-limit tests, which lower it, ever see a 429.
    RATE_LIMIT_MAX: '100000',
    MAIL_OUTBOX_DIR: TEST_MAIL_OUTBOX_DIR,
    ...overrides,
  };
}
