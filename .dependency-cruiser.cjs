/* global module */
/**
 * The layers of README.md (Layout): each imports only from those above it, and no import cycle
 * anywhere (type imports included). `npm run lint` runs it (`npm run lint:layers`).
 */
const ADAPTERS = ['db', 'gateway', 'mailer', 'storage'];
const layer = (name, ...may) => ({ name, folders: name.split('|'), may });
const LAYERS = [
  layer('domain'),
  layer('config', 'domain'),
  layer('contracts', 'domain'),
  layer(ADAPTERS.join('|'), 'domain', 'config', 'contracts', ...ADAPTERS),
  layer('temporal', 'domain', 'config', 'contracts', ...ADAPTERS),
  layer('use-cases', 'domain', 'config', 'contracts', ...ADAPTERS, 'temporal'),
  layer('activities', 'domain', 'config', 'contracts', ...ADAPTERS, 'temporal', 'use-cases'),
  layer('workflows', 'domain', 'contracts'),
  layer('api', 'domain', 'config', 'contracts', ...ADAPTERS, 'temporal', 'use-cases'),
  // The pages use the API's auth, plugins and schemas; api/ mounts them in one place (the rules below).
  // No adapter: their data comes through use-cases/ or the API (rule pages-reach-data-through-use-cases).
  layer('pages', 'domain', 'config', 'contracts', 'use-cases', 'api'),
  // worker/ (the top) may import every layer.
];
const ALL = [...new Set(LAYERS.flatMap((l) => l.folders)), 'worker', 'scripts', 'bench', 'test', 'examples'];

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'An import cycle (type imports count): break it by moving the shared part into a module of its own.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'api-mounts-pages-once',
      comment:
        'api/ imports pages/ only in api/app.ts, and there only pages/plugin.ts: the pages stay a plugin of their own.',
      severity: 'error',
      from: { path: '^api/' },
      to: { path: '^pages/', pathNot: '^pages/plugin[.]ts$' },
    },
    {
      name: 'pages-plugin-mounted-by-the-app',
      comment: 'pages/plugin.ts is registered by api/app.ts alone.',
      severity: 'error',
      from: { path: '^api/', pathNot: '^api/app[.]ts$' },
      to: { path: '^pages/plugin[.]ts$' },
    },
    {
      name: 'pages-reach-data-through-use-cases',
      comment:
        'pages/ read and change data only through the use-case functions the REST routes call (use-cases/, api/) ' +
        'or the API in process: no repository, entity or SQL (db/), and no ORM or query builder of their own ' +
        '(issue 32 section 4, docs/decisions/0059).',
      severity: 'error',
      from: { path: '^pages/' },
      to: { path: ['^db/', 'node_modules/(@mikro-orm|kysely|pg)/'] },
    },
    {
      name: 'entities-only-in-repositories',
      comment:
        "The entities are the repositories' own (one owner per table, issue 32 section 1, docs/decisions/0057): " +
        'code outside db/ reads and writes records through db/<object>/ functions, never an entity of its own. ' +
        'A type import (a wire schema checked against its entity) is allowed.',
      severity: 'error',
      from: { path: `^(${LAYERS.flatMap((l) => l.folders).join('|')}|worker)/`, pathNot: '^db/' },
      to: { path: '^db/entities/', dependencyTypesNot: ['type-only'] },
    },
    ...LAYERS.map((l) => ({
      name: `layer-${l.name}`,
      comment: `${l.name}/ imports only from ${l.may.length ? l.may.join(', ') : 'itself'} (README.md, Layout).`,
      severity: 'error',
      from: { path: `^(${l.name})/` },
      to: {
        path: `^(${ALL.join('|')})/`,
        // api/app.ts mounts the pages' plugin (the two rules above keep it to that one import).
        pathNot: [`^(${[...l.folders, ...l.may].join('|')})/`, ...(l.name === 'api' ? ['^pages/plugin[.]ts$'] : [])],
      },
    })),
    {
      name: 'no-io-in-rules-and-workflows',
      comment:
        'domain/, contracts/ and workflows/ run in the deterministic workflow sandbox or are pure rules: no Node core module, no I/O library.',
      severity: 'error',
      from: { path: '^(domain|contracts|workflows)/' },
      to: {
        dependencyTypes: ['core'],
      },
    },
    {
      name: 'workflow-sdk-only',
      comment:
        'contracts/ and workflows/ use Temporal through @temporalio/workflow (and the deterministic @temporalio/common) only.',
      severity: 'error',
      from: { path: '^(contracts|workflows)/' },
      to: { dependencyTypes: ['npm', 'npm-dev'], pathNot: 'node_modules/@temporalio/(workflow|common)/' },
    },
    {
      name: 'simulator-only-on-demand',
      comment:
        'The engine loads the simulated gateway (a devDependency, left out of the production install) only by a ' +
        'dynamic import where GATEWAY=simulator (gateway/index.ts): never a static import, type imports included.',
      severity: 'error',
      from: { path: `^(${LAYERS.flatMap((l) => l.folders).join('|')}|worker)/` },
      to: { path: '^(packages/simulated-gateway|node_modules/@billing/simulated-gateway)/', dynamic: false },
    },
    {
      name: 'simulator-outside-the-engine',
      comment:
        "The simulated gateway stands for an external one: of the engine it uses the gateway's port and protocol " +
        '(gateway/), domain/ and config/ only, never the database code, use cases, activities, workflows or API.',
      severity: 'error',
      from: { path: '^packages/' },
      to: { path: `^(${ALL.join('|')})/`, pathNot: '^(gateway|domain|config)/' },
    },
    {
      name: 'no-temporal-client-in-domain',
      comment: 'domain/ is pure: no Temporal client, worker or activity context, no ORM, no HTTP.',
      severity: 'error',
      from: { path: '^domain/' },
      to: { path: 'node_modules/(@temporalio/(client|worker|activity|testing)|@mikro-orm|pg|fastify|undici)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // The workspace package's entry points are named by its package.json `exports` (TypeScript files).
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'default'] },
  },
};
