import base from '../../jest.config.js';

/**
 * The opt-in suites that call a real service (npm run test:mercadopago-sandbox). Their files end in
 * `.live.ts`, which the default run's testMatch (`*.test.ts`) never picks up, and they need neither
 * the database nor Temporal: no global set-up or teardown here.
 */
const { globalSetup: _setup, globalTeardown: _teardown, ...shared } = base;

export default {
  ...shared,
  rootDir: '../..',
  testMatch: ['<rootDir>/test/live/**/*.live.ts'],
  // A sandbox answers in seconds, and the payments search is polled while its index catches up.
  testTimeout: 120_000,
};
