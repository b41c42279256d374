import base from '../../jest.config.js';

/**
 * The opt-in browser suite against a real service (npm run test:mercadopago-sandbox:browser): the hosted
 * checkout with the real MercadoPago.js in Chromium, on the whole stack (the database and Temporal of
 * the default run's global set-up). Its files end in `.live-browser.ts`, which no other run picks up.
 */
export default {
  ...base,
  rootDir: '../..',
  testMatch: ['<rootDir>/test/live/**/*.live-browser.ts'],
  // MercadoPago.js loads, its Secure Fields answer and the sandbox approves in seconds, at times more.
  testTimeout: 180_000,
};
