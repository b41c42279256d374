import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import dbAccess from './eslint-db-access.js';
import tableOwners from './eslint-table-owners.js';
import tableOwnerBacklog from './db/table-owner-backlog.json' with { type: 'json' };

/** The application's code (README.md, Layout) and its scripts: tests and benches may reach the database as they like. */
export const APPLICATION = [
  'domain',
  'config',
  'contracts',
  'db',
  'gateway',
  'mailer',
  'storage',
  'temporal',
  'use-cases',
  'activities',
  'workflows',
  'api',
  'pages',
  'worker',
  'scripts',
].map((folder) => `${folder}/**/*.ts`);

export default tseslint.config(
  { ignores: ['node_modules/', '.tools/', '.data/', '.certs/', 'coverage/', 'test-artifacts/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        URL: 'readonly',
        Buffer: 'readonly',
        crypto: 'readonly',
        AbortController: 'readonly',
        TextEncoder: 'readonly',
        NodeJS: 'readonly',
        globalThis: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  // The pages' own scripts run in the browser.
  {
    files: ['pages/assets/**/*.js'],
    languageOptions: {
      sourceType: 'script',
      globals: {
        document: 'readonly',
        navigator: 'readonly',
        fetch: 'readonly',
        location: 'readonly',
        window: 'readonly',
        FormData: 'readonly',
      },
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  // One way to the database: entities and MikroORM's typed Kysely, opened by db/kysely.ts
  // (docs/decisions/0003-one-way-to-the-database.md).
  {
    files: APPLICATION,
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    plugins: { 'db-access': dbAccess },
    rules: {
      'db-access/no-raw-sql': 'error',
      'no-restricted-imports': [
        'error',
        ...['pg', 'pg-pool', 'pg-cursor', 'kysely', 'knex', 'postgres'].map((name) => ({
          name,
          message:
            "The pg client and Kysely are opened only in db/ (kysely.ts, listen.ts): use the typed Kysely (kyselyOf, prepared, and db/kysely.ts's sql) or listen().",
        })),
      ],
    },
  },
  // One owner per table: only db/<object>/ names its tables in SQL or writes its entities (eslint-table-owners.js).
  {
    files: APPLICATION,
    plugins: { 'table-owners': tableOwners },
    rules: { 'table-owners/owner-only': ['error', { backlog: tableOwnerBacklog }] },
  },
  // MikroORM's typed Kysely, opened in one place (db/kysely.ts) typed from the entities.
  { files: ['db/kysely.ts'], rules: { 'db-access/no-raw-sql': 'off' } },
  // pg's options and errors (pool.ts, config.ts), the LISTEN connections (listen.ts).
  {
    files: ['db/pool.ts', 'db/config.ts', 'db/kysely.ts', 'db/listen.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
  // The simulated gateway (packages/simulated-gateway, dev and tests only) stands in for an external
  // gateway: its books are its own (schema gateway_sim, its own pg pool and migrations), outside the
  // engine's table owners; the engine's db/ and api/ are out of its reach.
  {
    files: ['packages/simulated-gateway/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+(db|api|pages|activities|workflows|use-cases|worker)/',
              message: 'The simulated gateway imports nothing of the engine but the gateway port, protocol and domain.',
            },
          ],
        },
      ],
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true, IIFEs: true }],
      'max-lines': ['error', { max: 400, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    // Issue 21, §5: a long function becomes a short main that names its steps. Production code only
    // (not test/, bench/ or examples/). Both rules count code, not blank lines or comments, so that
    // neither ever argues against a comment that says why.
    files: APPLICATION,
    // Generated from the OpenAPI document by `npm run client:types`, never edited by hand.
    ignores: ['api/openapi-types.ts'],
    rules: {
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true, IIFEs: true }],
      'max-lines': ['error', { max: 400, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    // Issue 32, section 3: a workflow reads top to bottom, so its files and functions are counted whole,
    // comments and blank lines included: no file over 400 lines, no function over 60.
    files: ['workflows/**/*.ts'],
    rules: {
      'max-lines-per-function': ['error', { max: 60, skipBlankLines: false, skipComments: false, IIFEs: true }],
      'max-lines': ['error', { max: 400, skipBlankLines: false, skipComments: false }],
    },
  },
);
