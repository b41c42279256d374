import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';
import { loadConfig, type ProcessRole } from '../../config/env.ts';
import { REPO_ROOT } from '../../scripts/tool-paths.ts';

/**
 * docker-compose.prod.yml, .env.example and the Caddyfile read as Docker Compose and Caddy read them
 * (no Docker here: what the files themselves decide is checked). PRODUCTION_COMPOSE_FILE points the checks at
 * another file, e.g. docker-compose.yml, which fails them.
 */
const COMPOSE_FILE = process.env.PRODUCTION_COMPOSE_FILE ?? 'docker-compose.prod.yml';

interface Service {
  image?: string;
  build?: { context?: string; target?: string };
  profiles?: string[];
  container_name?: string;
  ports?: (string | { published?: string | number })[];
  expose?: string[];
  command?: string | string[];
  entrypoint?: string | string[];
  depends_on?: string[] | Record<string, { condition?: string }>;
  environment?: Record<string, string | number | boolean | null> | string[];
  env_file?: string | string[];
  restart?: string;
  volumes?: string[];
  deploy?: { replicas?: string | number };
  healthcheck?: { test?: string | string[]; disable?: boolean };
}

const read = (file: string) => readFileSync(path.join(REPO_ROOT, file), 'utf8');
const composeText = read(COMPOSE_FILE);
const services = (parse(composeText, { merge: true }) as { services: Record<string, Service> }).services;
const caddyfile = read('Caddyfile');
const envExample = read('.env.example');

function service(name: string): Service {
  const found = services[name];
  if (!found) throw new Error(`${COMPOSE_FILE} has no service ${name}`);
  return found;
}

/** `.env.example`'s lines: `NAME=value` set, `# NAME=value` shown with its default (commented). */
function exampleLines(): { name: string; value: string; commented: boolean }[] {
  return [...envExample.matchAll(/^(# )?([A-Z][A-Z0-9_]*)=(.*)$/gm)].map(([, hash, name, value]) => ({
    name: name!,
    value: value!,
    commented: hash !== undefined,
  }));
}

/** The environment a filled-in .env gives: `.env.example`'s set lines, blanks filled by `fill`. */
function dotEnv(fill: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const { name, value, commented } of exampleLines()) {
    if (!commented) env[name] = value === '' ? (fill[name] ?? '') : value;
  }
  return env;
}

/** Compose's interpolation: `${NAME}`, `${NAME:-default}`, `${NAME:?message}` (unset or empty: an error), `$$`. */
function interpolate(value: string, vars: Record<string, string>): string {
  return value.replace(
    /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:-|:\?)([^}]*))?\}/g,
    (match, name?: string, op?: string, arg?: string) => {
      if (match === '$$') return '$';
      const set = vars[name!];
      if (set !== undefined && set !== '') return set;
      if (op === ':-') return arg ?? '';
      if (op === ':?') throw new Error(`${name}: ${arg}`);
      return '';
    },
  );
}

/** A service's `environment` as written (`NAME=value` list or map). */
function environmentEntries(s: Service): [string, string][] {
  const raw = s.environment ?? {};
  if (Array.isArray(raw)) return raw.map((item) => [item.split('=')[0]!, item.slice(item.indexOf('=') + 1)]);
  return Object.entries(raw).map(([key, value]) => [key, String(value)]);
}

/** What a process of `name` sees: its env_file (.env) overridden by its interpolated `environment`. */
function processEnv(name: string, dotenv: Record<string, string>): Record<string, string> {
  const s = service(name);
  const envFiles = [s.env_file ?? []].flat();
  const env: Record<string, string> = envFiles.includes('.env') ? { ...dotenv } : {};
  for (const [key, value] of environmentEntries(s)) env[key] = interpolate(value, dotenv);
  return env;
}

function dependencies(name: string): Record<string, string> {
  const raw = service(name).depends_on ?? {};
  if (Array.isArray(raw)) return Object.fromEntries(raw.map((d) => [d, 'service_started']));
  return Object.fromEntries(Object.entries(raw).map(([d, v]) => [d, v.condition ?? 'service_started']));
}

const joined = (command: string | string[] | undefined) => [command ?? []].flat().join(' ');

/** Variables named in docs/configuration.md's tables (first cells). */
function documentedVariables(): Set<string> {
  const names = new Set<string>();
  for (const line of read('docs/configuration.md').split('\n')) {
    const firstCell = /^\|([^|]*)\|/.exec(line)?.[1] ?? '';
    for (const m of firstCell.matchAll(/`([A-Z][A-Z0-9_]*)`/g)) names.add(m[1]!);
  }
  return names;
}

/** config/env.ts's settings: the keys of its schema. */
function configSettings(): string[] {
  return [...read('config/env.ts').matchAll(/^ {2}([A-Z][A-Z0-9_]*):/gm)].map((m) => m[1]!);
}

/** What a filled-in .env puts where .env.example leaves a blank (none of it a real secret). */
const FILLED: Record<string, string> = {
  DOMAIN: 'billing.example.com',
  ACME_EMAIL: 'ops@example.com',
  POSTGRES_PASSWORD: 'a'.repeat(64),
  TEMPORAL_POSTGRES_PASSWORD: 'b'.repeat(64),
  PUBLIC_BASE_URL: 'https://billing.example.com',
  JWT_JWKS_URL: 'https://idp.example.com/.well-known/jwks.json',
  MERCADOPAGO_ACCESS_TOKEN: 'APP_USR-token',
  MERCADOPAGO_PUBLIC_KEY: 'APP_USR-public-key',
  MERCADOPAGO_WEBHOOK_SECRET: 'webhook-secret',
  GATEWAY_CALLBACK_SECRET: 'c'.repeat(64),
  SMTP_URL: 'smtps://billing:password@smtp.example.com:465',
  MAIL_FROM: 'Billing <billing@example.com>',
};

/** The blanks Compose itself refuses (`${NAME:?…}`), before any process reads .env. */
const STACK_SETTINGS = ['DOMAIN', 'ACME_EMAIL', 'POSTGRES_PASSWORD', 'TEMPORAL_POSTGRES_PASSWORD'];

/** The application's services and the role each one's process loads its settings as. */
const APP_SERVICES: { service: string; role: ProcessRole; entry: string }[] = [
  { service: 'migrate', role: 'migrate', entry: 'db/migrate.ts' },
  { service: 'seed', role: 'migrate', entry: 'scripts/seed.ts' },
  { service: 'worker', role: 'worker', entry: 'worker/main.ts' },
  { service: 'api', role: 'api', entry: 'api/server.ts' },
];

/** Run-to-completion jobs: their health is their exit status, which whatever needs them waits for. */
const oneShots = () => Object.keys(services).filter((name) => services[name]!.restart === 'no');

/**
 * Long-running services without a healthcheck, each with its reason. Temporal's server image is a bare
 * Alpine with temporal-server and no client for its gRPC port; temporal-setup probes it
 * (`temporal operator cluster health`), and everything that needs Temporal waits for temporal-setup.
 */
const UNPROBED: Record<string, string> = { temporal: 'probed by temporal-setup' };

describe(`${COMPOSE_FILE}, the production stack`, () => {
  it('names the image of every service', () => {
    const unnamed = Object.keys(services).filter((name) => !services[name]!.image);
    expect(unnamed).toEqual([]);
  });

  it('runs the application from one image, the production target, which has no simulated gateway', () => {
    const images = new Set(APP_SERVICES.map(({ service: name }) => service(name).image));
    expect(images.size).toBe(1);
    for (const { service: name, entry } of APP_SERVICES) {
      expect({ name, build: service(name).build }).toEqual({ name, build: { context: '.', target: 'production' } });
      expect(joined(service(name).command)).toContain(entry);
    }
  });

  it('has a healthcheck on every long-running service; one-shot jobs are waited for until they succeed', () => {
    const longRunning = Object.keys(services).filter((name) => !oneShots().includes(name));
    const unprobed = longRunning.filter(
      (name) => !services[name]!.healthcheck?.test || services[name]!.healthcheck?.disable,
    );
    expect(unprobed).toEqual(Object.keys(UNPROBED));
    expect(longRunning).toEqual(
      expect.arrayContaining(['postgres', 'temporal-postgres', 'worker', 'api', 'caddy', 'backup']),
    );
    for (const name of Object.keys(services)) {
      for (const [dependency, condition] of Object.entries(dependencies(name))) {
        if (oneShots().includes(dependency))
          expect({ name, dependency, condition }).toEqual({
            name,
            dependency,
            condition: 'service_completed_successfully',
          });
        if (condition === 'service_healthy') expect(service(dependency).healthcheck?.test).toBeDefined();
      }
    }
  });

  it("probes the Node images with node (they have no curl or wget), the worker through Temporal's pollers", () => {
    const api = joined(service('api').healthcheck?.test);
    expect(api).toMatch(/^CMD node -e .*fetch\('http:\/\/127\.0\.0\.1:8080\/healthz'/);
    // TLS_MODE=proxy serves a request only when the proxy says it came over HTTPS.
    expect(api).toContain("'x-forwarded-proto':'https'");
    expect(joined(service('worker').healthcheck?.test)).toBe('CMD node worker/health-check.ts');
    expect(read('worker/health-check.ts')).toMatch(/if \(import\.meta\.main\)/);
  });

  it('fixes no DEPLOYMENT_ENV (nor any other application setting a deployment chooses): .env does', () => {
    expect(composeText).not.toMatch(/DEPLOYMENT_ENV:\s*test/);
    expect(dotEnv().DEPLOYMENT_ENV).toBe('live');
    const containerSettings = [
      'DATABASE_URL',
      'TEMPORAL_ADDRESS',
      'HOST',
      'PORT',
      'TLS_MODE',
      'FILES_LOCAL_DIR',
      'MAIL_OUTBOX_DIR',
    ];
    const settings = new Set(configSettings());
    for (const { service: name } of APP_SERVICES) {
      const fixed = environmentEntries(service(name))
        .map(([key]) => key)
        .filter((key) => settings.has(key) && !containerSettings.includes(key));
      expect({ name, fixed }).toEqual({ name, fixed: [] });
      expect(service(name).env_file).toEqual(['.env']);
    }
  });

  it('runs several API replicas with no fixed host port: Caddy alone faces the network', () => {
    const api = service('api');
    expect(api.ports ?? []).toEqual([]);
    expect(api.container_name).toBeUndefined();
    expect(interpolate(String(api.deploy?.replicas ?? 1), dotEnv(FILLED))).toBe('2');
    const published = Object.entries(services)
      .filter(([, s]) => (s.ports ?? []).some((p) => !String(p).startsWith('127.0.0.1:')))
      .map(([name]) => name);
    expect(published).toEqual(['caddy']);
    expect(service('caddy').ports).toEqual(expect.arrayContaining(['80:80', '443:443']));
  });

  it('puts Caddy in front of the API: automatic certificates for DOMAIN, every replica of api on its port', () => {
    expect(service('caddy').image).toMatch(/^caddy:2\.\d+/);
    const caddyEnv = processEnv('caddy', dotEnv(FILLED));
    expect(caddyEnv).toMatchObject({ DOMAIN: FILLED.DOMAIN, ACME_EMAIL: FILLED.ACME_EMAIL });
    expect(caddyfile).toMatch(/^\{\$DOMAIN\} \{$/m);
    expect(caddyfile).toMatch(/^\s*email \{\$ACME_EMAIL\}$/m);
    // No `tls internal` or certificate file: Caddy's automatic HTTPS obtains and renews the certificate.
    expect(caddyfile).not.toMatch(/^\s*tls\b/m);
    expect(caddyfile).toMatch(/reverse_proxy \{[^]*dynamic a \{[^}]*name api\b[^}]*port (\d+)/);
    const port = /dynamic a \{[^}]*port (\d+)/.exec(caddyfile)?.[1];
    const api = processEnv('api', dotEnv(FILLED));
    expect(api).toMatchObject({ PORT: port, HOST: '0.0.0.0', TLS_MODE: 'proxy' });
    expect(service('api').expose).toEqual([port]);
    expect(service('caddy').volumes).toEqual(
      expect.arrayContaining(['./Caddyfile:/etc/caddy/Caddyfile:ro', 'caddy-data:/data']),
    );
    expect(dependencies('caddy')).toMatchObject({ api: 'service_healthy' });
  });

  it('runs the seed only when asked for (a profile), never on `up`', () => {
    expect(service('seed').profiles).toEqual(['seed']);
    for (const [name, s] of Object.entries(services)) {
      if (!s.profiles) expect({ name, needsSeed: 'seed' in dependencies(name) }).toEqual({ name, needsSeed: false });
    }
  });

  it("keeps Temporal's data on a PostgreSQL server of its own, not the billing database's", () => {
    const filled = dotEnv(FILLED);
    const billingHost = new URL(processEnv('api', filled).DATABASE_URL!).hostname;
    const temporalHost = processEnv('temporal', filled).POSTGRES_SEEDS!;
    expect(processEnv('temporal-schema', filled).SQL_HOST).toBe(temporalHost);
    expect(temporalHost).not.toBe(billingHost);
    const dataVolume = (name: string) =>
      (service(name).volumes ?? []).find((v) => v.endsWith(':/var/lib/postgresql/data'));
    expect(dataVolume(temporalHost)).toBeDefined();
    expect(dataVolume(temporalHost)).not.toBe(dataVolume(billingHost));
    expect(processEnv('temporal', filled).POSTGRES_PWD).not.toBe(processEnv(billingHost, filled).POSTGRES_PASSWORD);
  });

  it('backs the billing database up on a schedule into a volume, keeping BACKUP_KEEP_DAYS', () => {
    const backup = service('backup');
    const filled = dotEnv(FILLED);
    const env = processEnv('backup', filled);
    const billingUrl = new URL(processEnv('api', filled).DATABASE_URL!);
    expect(backup.image).toBe(service(billingUrl.hostname).image); // pg_dump of the server's own version
    expect(env).toMatchObject({ PGHOST: billingUrl.hostname, PGDATABASE: 'billing', PGUSER: billingUrl.username });
    expect(env.PGPASSWORD).toBe(decodeURIComponent(billingUrl.password));
    const script = interpolate(joined(backup.command), {}); // as the container's shell gets it
    expect(script).toMatch(/pg_dump --format=custom/);
    expect(script).toMatch(/find \/backups .* -mtime "\+\$BACKUP_KEEP_DAYS" -delete/);
    expect(script).toMatch(/sleep "\$\(\(BACKUP_INTERVAL_HOURS \* 3600\)\)"/);
    expect(backup.volumes).toEqual(['billing-backups:/backups']);
    expect(backup.restart).toBe('unless-stopped');
  });

  it('documents every ${VARIABLE} of the compose file and the Caddyfile in .env.example and docs/configuration.md', () => {
    const used = new Set([
      ...[...composeText.matchAll(/(?<!\$)\$\{([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]!),
      ...[...caddyfile.matchAll(/\{\$([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]!),
    ]);
    expect(used.size).toBeGreaterThan(5);
    const inExample = new Set(exampleLines().map((l) => l.name));
    const documented = documentedVariables();
    const missing = [...used].filter((v) => !inExample.has(v) || !documented.has(v));
    expect(missing).toEqual([]);
  });

  it('lists every setting of config/env.ts in .env.example, or sets it in the compose file for its own services', () => {
    const inExample = new Set(exampleLines().map((l) => l.name));
    const setByCompose = new Set(
      APP_SERVICES.flatMap(({ service: name }) => environmentEntries(service(name)).map(([k]) => k)),
    );
    const documented = documentedVariables();
    // Behind Caddy (TLS_MODE=proxy) the API holds no certificate: .env.example says they are unused.
    const unused = ['TLS_CERT_FILE', 'TLS_KEY_FILE'];
    expect(processEnv('api', dotEnv(FILLED)).TLS_MODE).toBe('proxy');
    const missing = configSettings().filter((v) => !inExample.has(v) && !setByCompose.has(v) && !unused.includes(v));
    expect(missing).toEqual([]);
    expect([...inExample].filter((v) => !documented.has(v))).toEqual([]);
  });

  it('holds no secret in .env.example: every secret is left blank', () => {
    const secrets = exampleLines().filter((l) => /SECRET|PASSWORD|TOKEN|_KEY\b|_KEY_ID|SMTP_URL/.test(l.name));
    expect(secrets.length).toBeGreaterThan(5);
    expect(secrets.filter((l) => l.value !== '')).toEqual([]);
  });

  it.each(APP_SERVICES)(
    'refuses to start $service until .env is filled in, then starts it live',
    ({ service: name, role }) => {
      // As copied: the blanks are refused by config/env.ts, naming what to set.
      const stackOnly = Object.fromEntries(STACK_SETTINGS.map((v) => [v, FILLED[v]!]));
      expect(() => loadConfig(processEnv(name, dotEnv(stackOnly)), role)).toThrow(/PUBLIC_BASE_URL/);
      const config = loadConfig(processEnv(name, dotEnv(FILLED)), role);
      expect(config.DEPLOYMENT_ENV).toBe('live');
      expect(config.gateway).toBe('mercadopago');
      expect(config.publicBaseUrl).toBe(`https://${FILLED.DOMAIN}`);
    },
  );

  it('keeps the live refusals: a placeholder secret or no callback secret stops the API', () => {
    const env = processEnv('api', dotEnv(FILLED));
    expect(() => loadConfig({ ...env, GATEWAY_CALLBACK_SECRET: undefined }, 'api')).toThrow(
      /GATEWAY_CALLBACK_SECRET: required/,
    );
    expect(() =>
      loadConfig({ ...env, JWT_JWKS_URL: undefined, JWT_SECRET: 'change-me-change-me-change-me-change-me' }, 'api'),
    ).toThrow(/JWT_SECRET: a secret published in this repository/);
  });

  it('refuses to start the stack without its own settings (Compose :? on every password, DOMAIN and image)', () => {
    for (const name of [...STACK_SETTINGS, 'BILLING_IMAGE']) {
      expect(composeText).toMatch(new RegExp(`\\$\\{${name}:\\?`));
    }
    expect(composeText).not.toMatch(/POSTGRES_PASSWORD: postgres\b/);
  });

  it('keeps .env out of git and out of the image', () => {
    expect(read('.gitignore').split('\n')).toContain('.env');
    expect(read('.dockerignore').split('\n')).toContain('.env');
  });
});
