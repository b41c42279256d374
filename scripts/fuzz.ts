/**
 * `npm run fuzz [-- <schemathesis run options>]`: schemathesis against the whole API, with every
 * check and the coverage, fuzzing and stateful phases, on a stack of its own — a fresh database, a
 * Temporal dev server on a free port, a worker, and the API over HTTPS with the self-signed
 * certificate (which schemathesis verifies). It exits with schemathesis's code: 0 only when no check
 * failed. There is no baseline of tolerated failures: every rule JSON Schema can state is in the
 * document (a break is a 400), and a rule it cannot state is a 422, which valid data may get
 * (scripts/schemathesis.toml). Options after `--` go to `st run` (e.g. `--max-examples 5`, `--seed 1`,
 * `--max-time 120`, `--include-path-regex customers`); credentials reach schemathesis through
 * scripts/schemathesis.toml.
 *
 * The credentials live in three organizations, so that no operation schemathesis calls can take away
 * the credentials of the others: an access token and an API key (organization A), an admin user who
 * owns organization B (a user JWT: organizations, members, dashboard, create-price), and a customer
 * session token for a customer of organization C, which no other credential can reach.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { uuidv7 } from 'uuidv7';
import { hashSecret, maskSecret, newSecret, TOKEN_PREFIX } from '../api/auth/tokens.ts';
import { OAT_SCOPES } from '../domain/api-key-scopes.ts';
import { migrateSimulator } from '@billing/simulated-gateway';
import { dropDatabase, migrate, openOrm, type Orm } from '../db/orm.ts';
import { mintUserJwt } from './seed.ts';
import { insertCustomer } from '../db/customer/customers.ts';
import { insertCustomerSession } from '../db/customer/sessions.ts';
import { insertAccessToken, insertApiKey } from '../db/organization/credentials.ts';
import { insertMembership } from '../db/organization/members.ts';
import { insertOrganization } from '../db/organization/organizations.ts';
import { addAdminUser, upsertUser } from '../db/organization/users.ts';
import { ensureDevCertificate } from './certs.ts';
import { installTools } from './install-tools.ts';
import { freePort, isPortOpen, stopProcess } from './processes.ts';
import { startTemporalDevServer } from './temporal-dev-server.ts';
import { REPO_ROOT, TOOLS_DIR } from './tool-paths.ts';

const SCHEMATHESIS = path.join(TOOLS_DIR, 'venv', 'bin', 'st');
const CONFIG_FILE = path.join(REPO_ROOT, 'scripts', 'schemathesis.toml');
const HOOKS_FILE = path.join(REPO_ROOT, 'scripts', 'schemathesis_hooks.py');
const CERT_FILE = path.join(REPO_ROOT, '.certs', 'localhost.crt');
const LOG_DIR = path.join(TOOLS_DIR, 'fuzz');

const children: ChildProcess[] = [];
const cleanups: (() => Promise<unknown>)[] = [];

async function main(): Promise<number> {
  const stArgs = process.argv.slice(2);
  await installTools();
  await ensureDevCertificate(path.dirname(CERT_FILE));
  await mkdir(LOG_DIR, { recursive: true });

  const run = randomBytes(4).toString('hex');
  const server = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/billing');
  server.pathname = `/billing_fuzz_${run}`;
  const databaseUrl = server.toString();
  await dropDatabase(databaseUrl);
  await migrate(databaseUrl);
  await migrateSimulator(databaseUrl);
  if (!process.env.KEEP_FUZZ_DATABASE) cleanups.push(() => dropDatabase(databaseUrl).catch(() => undefined));

  const temporalPort = await freePort();
  const temporal = await startTemporalDevServer({
    port: temporalPort,
    uiPort: 0,
    ui: false,
    logFile: path.join(LOG_DIR, 'temporal.log'),
  });
  cleanups.push(() => temporal.stop());

  const filesDir = path.join(LOG_DIR, `files-${run}`);
  cleanups.push(() => rm(filesDir, { recursive: true, force: true }));

  const apiPort = await freePort();
  const base = `https://127.0.0.1:${apiPort}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DEPLOYMENT_ENV: 'test',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_TASK_QUEUE: `billing-fuzz-${run}`,
    JWT_SECRET: randomBytes(32).toString('base64url'),
    HOST: '127.0.0.1',
    PORT: String(apiPort),
    TLS_MODE: 'tls',
    TLS_CERT_FILE: CERT_FILE,
    TLS_KEY_FILE: path.join(path.dirname(CERT_FILE), 'localhost.key'),
    // The fuzzer is one client sending thousands of requests a minute; the limit has its own tests.
    RATE_LIMIT_MAX: '10000000',
    // Its uploads go to a folder of this run, not into the developer's own files folder.
    FILES_LOCAL_DIR: filesDir,
  };

  await start('worker', 'worker/main.ts', env, 'worker ready:');
  const api = start('api', 'api/server.ts', env);
  await Promise.race([api, waitForPort(apiPort)]);
  api.catch(() => undefined);

  const credentials = await makeCredentials(databaseUrl, env.JWT_SECRET!);
  console.log(`fuzz: API ${base}, logs in ${path.relative(REPO_ROOT, LOG_DIR)}/`);

  const args = [
    '--config-file',
    CONFIG_FILE,
    'run',
    `${base}/openapi.json`,
    '--checks',
    'all',
    '--phases',
    'coverage,fuzzing,stateful',
    '--tls-verify',
    CERT_FILE,
    ...stArgs,
  ];
  console.log(`fuzz: st ${args.join(' ')}`);
  const st = spawn(SCHEMATHESIS, args, {
    cwd: LOG_DIR,
    stdio: 'inherit',
    env: { ...process.env, ...credentials, SCHEMATHESIS_HOOKS: HOOKS_FILE },
  });
  return new Promise((resolve) => st.once('exit', (code) => resolve(code ?? 1)));
}

/** The four credentials, as the variables scripts/schemathesis.toml reads. */
async function makeCredentials(databaseUrl: string, jwtSecret: string): Promise<Record<string, string>> {
  const orm = await openOrm(databaseUrl, 1);
  try {
    const tokens = await organizationA(orm);
    const adminEmail = `fuzz-admin-${randomBytes(4).toString('hex')}@example.com`;
    await organizationB(orm, adminEmail);
    const customerSession = await organizationC(orm);
    const userJwt = await mintUserJwt(adminEmail, jwtSecret);
    return {
      FUZZ_ACCESS_TOKEN: tokens.oat,
      FUZZ_API_KEY: tokens.apiKey,
      FUZZ_USER_JWT: userJwt,
      FUZZ_CUSTOMER_SESSION: customerSession,
    };
  } finally {
    await orm.close();
  }
}

async function insertFuzzOrganization(orm: Orm, label: string): Promise<string> {
  const id = uuidv7();
  await insertOrganization(orm.em.fork(), {
    id,
    name: `Fuzz ${label.toUpperCase()}`,
    slug: `fuzz-${label}-${id.slice(-8)}`,
    subscriptionSettings: {
      allow_multiple_subscriptions: false,
      allow_customer_updates: true,
      proration_behavior: 'prorate',
    },
    notificationSettings: { new_sale: true, new_subscription: true },
  });
  return id;
}

/** An access token with every scope and an API key with read, write and admin. */
async function organizationA(orm: Orm): Promise<{ oat: string; apiKey: string }> {
  const organizationId = await insertFuzzOrganization(orm, 'a');
  const em = orm.em.fork();
  const oat = newSecret(TOKEN_PREFIX.oat);
  await insertAccessToken(em, {
    organizationId,
    comment: 'fuzz',
    scopes: [...OAT_SCOPES],
    maskedToken: maskSecret(oat, TOKEN_PREFIX.oat),
    tokenHash: hashSecret(oat),
    createdByUserId: null,
  });
  const apiKey = newSecret(TOKEN_PREFIX.apiKeyTest);
  await insertApiKey(em, {
    organizationId,
    name: 'fuzz',
    environment: 'test',
    scopes: ['read', 'write', 'admin'],
    maskedKey: maskSecret(apiKey, TOKEN_PREFIX.apiKeyTest),
    secretHash: hashSecret(apiKey),
    createdByUserId: null,
  });
  return { oat, apiKey };
}

/** An admin user (may create organizations and prices) who owns organization B. */
async function organizationB(orm: Orm, email: string): Promise<void> {
  const organizationId = await insertFuzzOrganization(orm, 'b');
  const em = orm.em.fork();
  await addAdminUser(em, email);
  const userId = await upsertUser(em, `user|${email}`, email);
  await insertMembership(em, { organizationId, userId, role: 'owner' });
}

/** A customer with a session token valid for the whole run. */
async function organizationC(orm: Orm): Promise<string> {
  const organizationId = await insertFuzzOrganization(orm, 'c');
  const em = orm.em.fork();
  const customerId = uuidv7();
  await insertCustomer(em, {
    id: customerId,
    organizationId,
    email: 'fuzz-customer@example.com',
    name: 'Fuzz Customer',
  });
  const token = newSecret(TOKEN_PREFIX.customerSession);
  await insertCustomerSession(
    em,
    { id: uuidv7(), organizationId, customerId, tokenHash: hashSecret(token) },
    12 * 60 * 60 * 1000,
  );
  return token;
}

/**
 * Spawns a process of the stack, its output in the log folder. Resolves once it prints `readyLine`;
 * without one, never resolves. Rejects when it exits first.
 */
function start(name: string, file: string, env: NodeJS.ProcessEnv, readyLine?: string): Promise<void> {
  const log = createWriteStream(path.join(LOG_DIR, `${name}.log`));
  const child = spawn(process.execPath, [path.join(REPO_ROOT, file)], {
    cwd: REPO_ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  child.stdout!.pipe(log);
  child.stderr!.pipe(log);
  return new Promise((resolve, reject) => {
    let seen = '';
    const onData = (chunk: Buffer) => {
      seen = (seen + chunk.toString()).slice(-20_000);
      if (readyLine && seen.includes(readyLine)) {
        child.stdout!.off('data', onData);
        child.off('exit', onExit);
        resolve();
      }
    };
    const onExit = (code: number | null) => reject(new Error(`${name} exited at start (code ${code}):\n${seen}`));
    child.stdout!.on('data', onData);
    child.once('exit', onExit);
  });
}

async function waitForPort(port: number): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (await isPortOpen('127.0.0.1', port)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the API did not listen on port ${port} within 30 s (see ${LOG_DIR}/api.log)`);
}

async function stopAll(): Promise<void> {
  await Promise.all(children.map((child) => stopProcess(child)));
  for (const cleanup of cleanups.reverse()) await cleanup();
}

// Ctrl-C: stop what was started, then go.
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => void stopAll().then(() => process.exit(130)));

let code = 1;
try {
  code = await main();
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
} finally {
  await stopAll();
}
process.exit(code);
