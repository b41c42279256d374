import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { loadConfig, ConfigError } from '../config/env.ts';
import { migrate, openOrm } from '../db/orm.ts';
import { migrateGatewayBooks } from '../gateway/index.ts';
import { mintUserJwt, seedDemo } from './seed.ts';
import { ensureDevCertificate } from './certs.ts';
import { DATA_DIR, devEnv, temporalUiPort } from './dev-env.ts';
import { ensureTemporalDevServer } from './temporal-dev-server.ts';
import { REPO_ROOT } from './tool-paths.ts';
import { WORKER_ENV, WORKER_NODE_ARGS } from '../worker/process-settings.ts';

/**
 * `npm start`: the whole stack on this machine with the embedded defaults — database migrated,
 * Temporal dev server (UI on, state kept in .data/), worker and API over HTTPS, a seeded demo
 * organization. Ctrl-C stops everything it started.
 */
const env = devEnv();
let config;
let uiPort;
try {
  config = loadConfig(env);
  uiPort = temporalUiPort(config);
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(err.message);
    process.exit(1);
  }
  throw err;
}

await ensureDevCertificate(path.join(REPO_ROOT, '.certs'));
await migrate(config.DATABASE_URL);
await migrateGatewayBooks(config);
const [host, port] = config.TEMPORAL_ADDRESS.split(':');
const temporal =
  host === '127.0.0.1' || host === 'localhost'
    ? await ensureTemporalDevServer({
        port: Number(port),
        uiPort,
        dbFile: path.join(DATA_DIR, 'temporal.db'),
      })
    : { address: config.TEMPORAL_ADDRESS, uiUrl: null, stop: async () => {} };

const orm = await openOrm(config.DATABASE_URL, 1);
const demo = await seedDemo(orm, config.DEPLOYMENT_ENV);
await orm.close();

/**
 * The worker and the API ride out a PostgreSQL or Temporal restart by themselves. Should one exit
 * anyway (a bug), it is started again after a short pause, growing while it keeps exiting; one that
 * exits five times in a row within a minute of starting stops the stack, as its output will say why.
 */
const children = new Map<string, ChildProcess>();
const MAX_QUICK_EXITS = 5;

function run(name: string, file: string): void {
  let quickExits = 0;
  const start = () => {
    const startedAt = Date.now();
    const worker = file === 'worker/main.ts';
    const child = spawn(process.execPath, [...(worker ? WORKER_NODE_ARGS : []), path.join(REPO_ROOT, file)], {
      cwd: REPO_ROOT,
      env: worker ? { ...env, ...WORKER_ENV } : env,
      stdio: 'inherit',
    });
    children.set(name, child);
    child.on('exit', (code, signal) => {
      if (stopping) return;
      quickExits = Date.now() - startedAt < 60_000 ? quickExits + 1 : 1;
      if (quickExits >= MAX_QUICK_EXITS) {
        console.error(`${name} exited (${signal ?? code}) ${quickExits} times in a row; stopping the stack`);
        void stop(1);
        return;
      }
      const delayMs = Math.min(1000 * 2 ** (quickExits - 1), 15_000);
      console.error(`${name} exited (${signal ?? code}); starting it again in ${delayMs / 1000} s`);
      setTimeout(() => {
        if (!stopping) start();
      }, delayMs);
    });
  };
  start();
}

let stopping = false;
async function stop(code = 0): Promise<void> {
  if (stopping) return;
  stopping = true;
  await Promise.all(
    [...children.values()].map(
      (child) =>
        new Promise((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve(undefined);
          child.once('exit', resolve);
          child.kill('SIGTERM');
        }),
    ),
  );
  await temporal.stop();
  process.exit(code);
}
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());

run('worker', 'worker/main.ts');
run('api', 'api/server.ts');

const jwt = await mintUserJwt(demo.adminEmail, config.JWT_SECRET!);

const base = config.publicBaseUrl;
console.log(`
Billing engine is starting (Ctrl-C stops everything):
  API            ${base}/api/v1/
  API docs       ${base}/docs   (OpenAPI: ${base}/openapi.json)
  Dashboard      ${base}/dashboard/sign-in?token=${jwt}
                 (one click signs the demo admin in; the token leaves the address bar at once)
  Temporal UI    ${temporal.uiUrl ?? '(external Temporal server: ' + temporal.address + ')'}
  Demo org id    ${demo.organizationId}
  Demo API key   ${demo.apiKey}
  Demo OAT       ${demo.oat}
  Admin user JWT ${jwt}
                 (${demo.adminEmail}; mint others with: npm run dev:token -- --email you@example.com --admin)
Try (creating products, checkouts and webhooks, and reading events and metrics, take the access token;
the API key reads products, customers, sales, transactions, subscriptions and checkout links, and
writes customers, transactions, subscriptions and refunds):
  curl -k -H "Authorization: Bearer ${demo.oat}" -H 'content-type: application/json' \\
    -d '{"organization_id":"${demo.organizationId}","name":"T-shirt","prices":[{"type":"one_time","currency":"brl","unit_amount":4990}]}' \\
    ${base}/api/v1/products/
  curl -k -H "X-Service-Api-Key: ${demo.apiKey}" ${base}/api/v1/products/
`);
