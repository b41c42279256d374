import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { SignJWT } from 'jose';
import { loadConfig, ConfigError } from '../config/env.ts';
import { migrate, openOrm } from '../db/orm.ts';
import { seedDemo } from '../db/seed.ts';
import { ensureDevCertificate } from './certs.ts';
import { DATA_DIR, devEnv } from './dev-env.ts';
import { ensureTemporalDevServer, REPO_ROOT } from './tools.ts';

/**
 * `npm start`: the whole stack on this machine with the embedded defaults — database migrated,
 * Temporal dev server (UI on, state kept in .data/), worker and API over HTTPS, a seeded demo
 * organization. Ctrl-C stops everything it started.
 */
const env = devEnv();
let config;
try {
  config = loadConfig(env);
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(err.message);
    process.exit(1);
  }
  throw err;
}

await ensureDevCertificate(path.join(REPO_ROOT, '.certs'));
await migrate(config.DATABASE_URL);
const [host, port] = config.TEMPORAL_ADDRESS.split(':');
const temporal =
  host === '127.0.0.1' || host === 'localhost'
    ? await ensureTemporalDevServer({
        port: Number(port),
        uiPort: Number(port) + 1000,
        dbFile: path.join(DATA_DIR, 'temporal.db'),
      })
    : { address: config.TEMPORAL_ADDRESS, uiUrl: null, stop: async () => {} };

const orm = await openOrm(config.DATABASE_URL, 1);
const demo = await seedDemo(orm, config.DEPLOYMENT_ENV);
await orm.close();

const children: ChildProcess[] = [];
function run(name: string, file: string): ChildProcess {
  const child = spawn(process.execPath, [path.join(REPO_ROOT, file)], { cwd: REPO_ROOT, env, stdio: 'inherit' });
  child.on('exit', (code, signal) => {
    if (!stopping) {
      console.error(`${name} exited (${signal ?? code}); stopping the stack`);
      void stop(1);
    }
  });
  children.push(child);
  return child;
}

let stopping = false;
async function stop(code = 0): Promise<void> {
  if (stopping) return;
  stopping = true;
  await Promise.all(
    children.map(
      (child) =>
        new Promise((resolve) => {
          if (child.exitCode !== null) return resolve(undefined);
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

const jwt = await new SignJWT({ email: demo.adminEmail })
  .setProtectedHeader({ alg: 'HS256' })
  .setSubject(`user|${demo.adminEmail}`)
  .setIssuedAt()
  .setExpirationTime('12h')
  .sign(new TextEncoder().encode(config.JWT_SECRET!));

const base = config.publicBaseUrl;
console.log(`
Billing engine is starting (Ctrl-C stops everything):
  API            ${base}/api/v1/
  API docs       ${base}/docs   (OpenAPI: ${base}/openapi.json)
  Temporal UI    ${temporal.uiUrl ?? '(external Temporal server: ' + temporal.address + ')'}
  Demo org id    ${demo.organizationId}
  Demo API key   ${demo.apiKey}
  Demo OAT       ${demo.oat}
  Admin user JWT ${jwt}
                 (${demo.adminEmail}; mint others with: npm run dev:token -- --email you@example.com --admin)
Try: curl -k -H "X-Service-Api-Key: ${demo.apiKey}" ${base}/api/v1/products/
`);
