import { readFile } from 'node:fs/promises';
import { loadConfigOrExit } from '../config/env.ts';
import { openOrm } from '../db/orm.ts';
import { openGateway } from '../gateway/index.ts';
import { createTemporalClient } from '../temporal/client.ts';
import { buildApp } from './app.ts';

const config = loadConfigOrExit('api');
// Neither PostgreSQL nor Temporal is connected to here: both are reached on first use and reconnected
// by themselves, so the API starts, and stays up, while either is down (it answers 503 meanwhile).
const orm = await openOrm(config.DATABASE_URL, config.DATABASE_POOL_MAX, {
  connectTimeoutMs: config.DATABASE_CONNECT_TIMEOUT_MS,
  applicationName: 'billing-api',
});
const temporal = createTemporalClient(config);
const tls =
  config.TLS_MODE === 'tls'
    ? { cert: await readFile(config.TLS_CERT_FILE), key: await readFile(config.TLS_KEY_FILE) }
    : undefined;
const { gateway, close: closeGateway } = await openGateway(config, 'billing-api');
const app = await buildApp({ config, orm, temporal, gateway, ...(tls ? { tls } : {}) });

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    if (stopping) return;
    stopping = true;
    void (async () => {
      await app.close();
      await temporal.connection.close();
      await closeGateway();
      await orm.close();
      process.exit(0);
    })();
  });
}

await app.listen({ host: config.HOST, port: config.PORT });
