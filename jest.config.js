/** Jest runs TypeScript through SWC as native ESM (MikroORM 7 is ESM-only). */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      { jsc: { parser: { syntax: 'typescript' }, target: 'es2024' }, module: { type: 'es6' } },
    ],
  },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
  // Generous: hooks start API and worker processes (a workflow bundle each), slow on a loaded 2-core machine.
  testTimeout: 120_000,
  reporters: ['default', '<rootDir>/test/summary-reporter.js'],
};
