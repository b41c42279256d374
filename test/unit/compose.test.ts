import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';
import { loadConfig, PUBLISHED_SECRETS, type ProcessRole } from '../../config/env.ts';
import * as searchAttributes from '../../domain/search-attributes.ts';
import { REPO_ROOT } from '../../scripts/tool-paths.ts';

/**
 * docker-compose.yml read as Docker Compose reads it: the stack a team with Docker runs has to boot
 * without anyone starting it here (no Docker on the development machines), so what can be checked
 * from the file is checked here.
 */
interface Service {
  image?: string;
  build?: unknown;
  container_name?: string;
  ports?: unknown[];
  command?: string | string[];
  depends_on?: string[] | Record<string, { condition?: string }>;
  environment?: Record<string, string | number | boolean | null> | string[];
  user?: string;
  volumes?: string[];
  healthcheck?: { test?: string | string[] };
}

const compose = parse(readFileSync(path.join(REPO_ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, Service>;
};
const services = compose.services;

function service(name: string): Service {
  const found = services[name];
  if (!found) throw new Error(`docker-compose.yml has no service ${name}`);
  return found;
}

/** A service's `environment` entries as written (a list `NAME=value` or a map); `NAME` alone passes the host's value. */
function environmentEntries(name: string): [string, string | null][] {
  const raw = service(name).environment ?? {};
  if (Array.isArray(raw)) {
    return raw.map((item) => {
      const at = item.indexOf('=');
      return at < 0 ? [item, null] : [item.slice(0, at), item.slice(at + 1)];
    });
  }
  return Object.entries(raw).map(([key, value]) => [key, value === null ? null : String(value)]);
}

/**
 * A service's environment as its process sees it after a bare `docker compose up`: `${NAME:-default}`
 * takes its default, `${NAME}` and `${NAME:?message}` are unset, `$$` is a `$`.
 */
function environmentOf(name: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of environmentEntries(name)) {
    if (value === null) continue;
    const interpolated = value.replace(
      /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?-)([^}]*)|:?\?[^}]*)?\}/g,
      (match, _name, dash?: string, fallback?: string) => (match === '$$' ? '$' : dash ? (fallback ?? '') : '\u0000'),
    );
    if (!interpolated.includes('\u0000')) env[key] = interpolated;
  }
  return env;
}

function commandOf(name: string): string {
  const command = service(name).command ?? '';
  return Array.isArray(command) ? command.join(' ') : command;
}

function dependencies(name: string): Record<string, string> {
  const raw = service(name).depends_on ?? {};
  if (Array.isArray(raw)) return Object.fromEntries(raw.map((d) => [d, 'service_started']));
  return Object.fromEntries(Object.entries(raw).map(([d, v]) => [d, v.condition ?? 'service_started']));
}

/** The variables of docs/configuration.md's Configuration table (not the test-only table after it). */
function documentedVariables(): Set<string> {
  const readme = readFileSync(path.join(REPO_ROOT, 'docs', 'configuration.md'), 'utf8');
  const start = readme.indexOf('\n## Configuration\n');
  const end = readme.indexOf('Variables read only by the tests', start);
  if (start < 0 || end < 0) throw new Error('docs/configuration.md: Configuration table not found');
  const names = new Set<string>();
  for (const line of readme.slice(start, end).split('\n')) {
    const firstCell = /^\|([^|]*)\|/.exec(line)?.[1] ?? '';
    for (const m of firstCell.matchAll(/`([A-Z][A-Z0-9_]*)`/g)) names.add(m[1]!);
  }
  return names;
}

/** Our three processes: the service that runs each, with the entry point of its role. */
const APP_SERVICES: { service: string; role: ProcessRole; entry: string }[] = [
  { service: 'api', role: 'api', entry: 'api/server.ts' },
  { service: 'worker', role: 'worker', entry: 'worker/main.ts' },
  { service: 'migrate', role: 'migrate', entry: 'db/migrate.ts' },
  { service: 'seed', role: 'migrate', entry: 'scripts/seed.ts' },
];

const dockerfile = readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8');

/** The `source:target[:mode]` volume of a service mounted on `target`. */
function volumeOn(name: string, target: string): { source: string; mode: string } | undefined {
  for (const volume of service(name).volumes ?? []) {
    const [source = '', at, mode = 'rw'] = volume.split(':');
    if (at === target) return { source, mode };
  }
  return undefined;
}

/** The Dockerfile's RUN lines before its `USER node` (run as root), joined. */
function rootRunLines(): string {
  const beforeUser = dockerfile.slice(0, dockerfile.search(/^USER node$/m));
  return beforeUser
    .split('\n')
    .filter((line) => line.startsWith('RUN '))
    .join('\n');
}

/**
 * What each role must be given in a container although config/env.ts has a default: the defaults
 * point at 127.0.0.1, which inside a container is the container itself.
 */
const SET_IN_CONTAINERS: Record<ProcessRole, string[]> = {
  migrate: ['DATABASE_URL'],
  worker: ['DATABASE_URL', 'TEMPORAL_ADDRESS', 'TEMPORAL_NAMESPACE', 'TEMPORAL_TASK_QUEUE'],
  api: ['DATABASE_URL', 'TEMPORAL_ADDRESS', 'TEMPORAL_NAMESPACE', 'TEMPORAL_TASK_QUEUE', 'HOST', 'PUBLIC_BASE_URL'],
};

describe('docker-compose.yml', () => {
  it('runs PostgreSQL, Temporal with its schema job and set-up job, the UI, the migration, the API and the worker', () => {
    expect(Object.keys(services)).toEqual(
      expect.arrayContaining([
        'postgres',
        'temporal-schema',
        'temporal',
        'temporal-setup',
        'temporal-ui',
        'migrate',
        'api',
        'worker',
      ]),
    );
  });

  it('runs Temporal from the server image, never the deprecated auto-setup one', () => {
    for (const [name, s] of Object.entries(services)) {
      expect({ service: name, image: s.image ?? '' }).not.toEqual({
        service: name,
        image: expect.stringMatching(/^(docker\.io\/)?temporalio\/auto-setup(:|@|$)/),
      });
    }
    const server = service('temporal').image ?? '';
    expect(server).toMatch(/^temporalio\/server:\d+\.\d+\.\d+$/);
    // The schema the admin-tools image applies is the one its own server version expects.
    const tag = server.split(':')[1];
    expect(service('temporal-schema').image).toBe(`temporalio/admin-tools:${tag}`);
    expect(service('temporal-setup').image).toBe(`temporalio/admin-tools:${tag}`);
  });

  it('creates and upgrades both Temporal databases before the server starts', () => {
    const script = commandOf('temporal-schema');
    for (const [db, dir] of [
      ['temporal', 'temporal'],
      ['temporal_visibility', 'visibility'],
    ] as const) {
      expect(script).toMatch(new RegExp(`--db ${db} create-database\\b`));
      expect(script).toMatch(new RegExp(`--db ${db} setup-schema -v 0\\.0\\b`));
      expect(script).toMatch(new RegExp(`--db ${db} update-schema -d \\S*/${dir}/versioned\\b`));
    }
    expect(script).toContain('/etc/temporal/schema/postgresql/v12');
    expect(environmentOf('temporal-schema')).toMatchObject({ SQL_PLUGIN: 'postgres12', SQL_HOST: 'postgres' });
    expect(dependencies('temporal')).toMatchObject({ 'temporal-schema': 'service_completed_successfully' });
    expect(environmentOf('temporal')).toMatchObject({ DB: 'postgres12', POSTGRES_SEEDS: 'postgres' });
  });

  it('registers the namespace the processes use and every search attribute of domain/search-attributes.ts', () => {
    const setup = environmentOf('temporal-setup');
    const keys = Object.values(searchAttributes);
    expect(keys.every((k) => k.type === 'KEYWORD')).toBe(true);
    expect(commandOf('temporal-setup')).toContain('--type Keyword');
    expect((setup.SEARCH_ATTRIBUTES ?? '').split(/\s+/).sort()).toEqual(keys.map((k) => k.name).sort());
    expect(setup.NAMESPACE).toBe(environmentOf('worker').TEMPORAL_NAMESPACE);
    for (const app of ['api', 'worker']) {
      expect(dependencies(app)).toMatchObject({
        'temporal-setup': 'service_completed_successfully',
        migrate: 'service_completed_successfully',
      });
    }
  });

  it('lets the worker scale: no container name, no published port', () => {
    const worker = service('worker');
    expect(worker.container_name).toBeUndefined();
    expect(worker.ports ?? []).toEqual([]);
  });

  it.each(APP_SERVICES)(
    'runs $entry in $service with every setting its role requires',
    ({ service: name, role, entry }) => {
      expect(commandOf(name)).toContain(entry);
      const env = environmentOf(name);
      for (const variable of SET_IN_CONTAINERS[role])
        expect({ [variable]: env[variable] }).toEqual({ [variable]: expect.any(String) });
      // What the process itself refuses to start without (e.g. the API's JWT secret or JWKS URL).
      expect(() => loadConfig(env, role)).not.toThrow();
      // Addresses name services of this file.
      expect(Object.keys(services)).toContain(new URL(env.DATABASE_URL!).hostname);
      if (env.TEMPORAL_ADDRESS) expect(Object.keys(services)).toContain(env.TEMPORAL_ADDRESS.split(':')[0]);
    },
  );

  it('gives the worker no JWT secret, which it does not use', () => {
    expect(environmentOf('worker')).not.toHaveProperty('JWT_SECRET');
    expect(environmentOf('worker')).not.toHaveProperty('JWT_JWKS_URL');
  });

  it('points the API and the workers at the same database, Temporal namespace and task queue', () => {
    const pick = (name: string) => {
      const env = environmentOf(name);
      return [env.DATABASE_URL, env.TEMPORAL_ADDRESS, env.TEMPORAL_NAMESPACE, env.TEMPORAL_TASK_QUEUE];
    };
    expect(pick('api')).toEqual(pick('worker'));
    expect(environmentOf('migrate').DATABASE_URL).toBe(environmentOf('worker').DATABASE_URL);
  });

  it("sets only variables documented in docs/configuration.md's Configuration table", () => {
    const documented = documentedVariables();
    expect(documented.size).toBeGreaterThan(20);
    for (const { service: name } of APP_SERVICES) {
      const undocumented = environmentEntries(name)
        .map(([variable]) => variable)
        .filter((v) => !documented.has(v));
      expect({ service: name, undocumented }).toEqual({ service: name, undocumented: [] });
    }
  });

  it('prints a first credential: the seed runs after the migration with the JWT secret the API verifies', () => {
    expect(commandOf('seed')).toContain('scripts/seed.ts');
    expect(dependencies('seed')).toMatchObject({ migrate: 'service_completed_successfully' });
    expect(environmentOf('seed').JWT_SECRET).toBe(environmentOf('api').JWT_SECRET);
    expect(environmentOf('seed').DATABASE_URL).toBe(environmentOf('api').DATABASE_URL);
    // `npm run seed` runs the same file, which must do something when run (not only export seedDemo).
    const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(pkg.scripts.seed).toBe('node scripts/seed.ts');
    expect(readFileSync(path.join(REPO_ROOT, 'scripts/seed.ts'), 'utf8')).toMatch(/if \(import\.meta\.main\)/);
  });

  it('hands the API (user node) a TLS key it can read: copied by root into a volume owned by node', () => {
    expect(dockerfile).toMatch(/^USER node$/m);
    const certsDir = path.posix.dirname(environmentOf('api').TLS_KEY_FILE ?? '');
    const mounted = volumeOn('api', certsDir);
    expect(mounted).toEqual({ source: 'certs', mode: 'ro' });
    expect(service('certs').user).toBe('root');
    expect(volumeOn('certs', certsDir)?.source).toBe('certs');
    expect(volumeOn('certs', '/host-certs')).toEqual({ source: './.certs', mode: 'ro' });
    expect(commandOf('certs')).toMatch(/install -o node -g node -m 0400 .*localhost\.key/);
    expect(dependencies('api')).toMatchObject({ certs: 'service_completed_successfully' });
  });

  it('gives the API a FILES_LOCAL_DIR the node user can write: a volume on a folder the image chowns to node', () => {
    const dir = environmentOf('api').FILES_LOCAL_DIR ?? '';
    expect(dir).toMatch(/^\//); // not the default .data/files under /app, which node cannot write
    expect(volumeOn('api', dir)?.mode).toBe('rw');
    expect(rootRunLines()).toMatch(new RegExp(`mkdir -p .*${dir}.*chown node:node .*${dir}`));
  });

  it("keeps the worker's mail outbox in a volume on a folder the image chowns to node (not the container's /tmp)", () => {
    const dir = environmentOf('worker').MAIL_OUTBOX_DIR ?? '';
    expect(dir).toMatch(/^\/var\//);
    expect(volumeOn('worker', dir)?.mode).toBe('rw');
    expect(rootRunLines()).toMatch(new RegExp(`mkdir -p .*${dir}.*chown node:node .*${dir}`));
  });

  it('assumes no nc (nor any other tool) in the Temporal server image: it is waited for with the admin CLI', () => {
    for (const [name, s] of Object.entries(services)) {
      const test = s.healthcheck?.test ?? [];
      expect({ service: name, nc: (Array.isArray(test) ? test : [test]).includes('nc') }).toEqual({
        service: name,
        nc: false,
      });
      // A service_healthy condition needs a healthcheck on the service waited for.
      for (const [dependency, condition] of Object.entries(dependencies(name))) {
        if (condition === 'service_healthy') expect(service(dependency).healthcheck?.test).toBeDefined();
      }
    }
    expect(service('temporal').healthcheck).toBeUndefined();
    expect(commandOf('temporal-setup')).toContain('retry temporal operator cluster health');
    expect(dependencies('temporal-ui')).toMatchObject({ 'temporal-setup': 'service_completed_successfully' });
  });

  it('runs the embedded simulated gateway from the sandbox target; the production image (the last stage) leaves it out', () => {
    for (const name of ['migrate', 'worker', 'api']) {
      expect({ service: name, build: service(name).build }).toEqual({
        service: name,
        build: { context: '.', target: 'sandbox' },
      });
    }
    const stages = [...dockerfile.matchAll(/^FROM (\S+)(?: AS (\S+))?$/gm)].map(([, from, name]) => ({ from, name }));
    expect(stages.at(-1)).toEqual({ from: 'app', name: 'production' });
    const app = dockerfile.slice(dockerfile.indexOf(' AS app\n'), dockerfile.indexOf(' AS sandbox\n'));
    // npm links a workspace it finds at install time, devDependency or not: the package is not there yet.
    expect(app).toMatch(/^COPY package\.json package-lock\.json \.\/\nRUN npm ci --omit=dev/m);
    expect(app).toMatch(/^COPY --from=sources /m);
    expect(app).not.toMatch(/^COPY \. /m);
    expect(dockerfile).toMatch(/ AS sources\n(.*\n)*RUN rm -rf packages\/simulated-gateway\n(.*\n)*FROM .* AS app\n/);
  });

  it("has the worker's simulated gateway post its callbacks to the API service, not to its own 127.0.0.1", () => {
    const worker = loadConfig(environmentOf('worker'), 'worker');
    expect(worker.gateway).toBe('simulator');
    const callback = new URL(worker.gatewayCallbackUrl);
    expect(callback.hostname).toBe('api');
    expect(callback.pathname).toBe('/api/v1/gateway/callbacks');
    expect(callback.port).toBe(environmentOf('api').PORT);
  });
});

describe('the placeholder secret', () => {
  it('is one the configuration refuses in a live deployment', () => {
    const raw = readFileSync(path.join(REPO_ROOT, 'docker-compose.yml'), 'utf8');
    const placeholder = /x-jwt-secret: &jwt-secret \$\{JWT_SECRET:-([^}]+)\}/.exec(raw)?.[1];
    expect(placeholder).toBeDefined();
    expect(PUBLISHED_SECRETS).toContain(placeholder);
  });
});
