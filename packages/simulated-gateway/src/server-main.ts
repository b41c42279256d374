import { z } from 'zod';
import { DEV_GATEWAY_CALLBACK_SECRET } from '../../../config/env.ts';
import { openSimulatorPool } from './database.ts';
import { migrateSimulator } from './migrate.ts';
import { buildGatewayServer, GatewayFaults } from './server.ts';
import { SimulatedGateway } from './simulator.ts';
import { ENGINE_PIX_WINDOW } from './simulator-fidelity.ts';

/**
 * `npm run gateway:sim`: the simulated gateway as a standalone HTTP server on 127.0.0.1, for running
 * the API with GATEWAY=http against something that behaves like the real gateway. Its books are the
 * simulator's (schema gateway_sim of DATABASE_URL). Plain HTTP: it only listens on loopback.
 */
const env = z
  .object({
    DATABASE_URL: z.url().default('postgres://postgres@127.0.0.1:5432/billing'),
    GATEWAY_SERVER_PORT: z.coerce.number().int().min(0).max(65535).default(8444),
    /** The key clients send as `Authorization: Bearer …`; the API's GATEWAY_API_KEY. */
    GATEWAY_API_KEY: z.string().min(1).default('sim_gateway_key'),
    /** Where the simulator posts payment callbacks (our API's callback endpoint; the BCB's webhooks to `<it>/bcb/…`), and their secret. */
    GATEWAY_CALLBACK_URL: z.url().default('https://127.0.0.1:8443/api/v1/gateway/callbacks'),
    GATEWAY_CALLBACK_SECRET: z.string().min(16).default(DEV_GATEWAY_CALLBACK_SECRET),
    /** `1` enables fault injection (`POST /v1/_faults`). */
    GATEWAY_SERVER_FAULTS: z.enum(['0', '1']).default('0'),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  })
  .parse(process.env);

// Its books' tables first (its own migrations). Then connections are opened on first use and replaced
// when PostgreSQL drops them: the server outlives a database restart, answering 503 meanwhile.
await migrateSimulator(env.DATABASE_URL);
const pool = openSimulatorPool(env.DATABASE_URL, { max: 5, applicationName: 'billing-gateway-sim' });
// The engine's pix range (a checkout's last half hour asks less than Mercado Pago's floor): simulator-fidelity.ts.
const gateway = new SimulatedGateway(
  pool,
  { callbackUrl: env.GATEWAY_CALLBACK_URL, callbackSecret: env.GATEWAY_CALLBACK_SECRET },
  { pixExpiryWindow: ENGINE_PIX_WINDOW },
);
// The BCB's webhooks of recs and cobrs go to our endpoint beside the callbacks' (`…/callbacks/bcb/rec`,
// `…/cobr`; decision 0103), as PUT /webhookrec and /webhookcobr would register them.
gateway.bcbWebhooks.rec = gateway.bcbWebhooks.cobr = `${env.GATEWAY_CALLBACK_URL.replace(/\/+$/, '')}/bcb`;
const server = buildGatewayServer({
  gateway,
  apiKey: env.GATEWAY_API_KEY,
  sandbox: gateway,
  simulatorFaults: gateway.faults,
  logger: { level: env.LOG_LEVEL },
  ...(env.GATEWAY_SERVER_FAULTS === '1' ? { faults: new GatewayFaults() } : {}),
});

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void (async () => {
      await server.close();
      await pool.end();
      process.exit(0);
    })();
  });
}

await server.listen({ host: '127.0.0.1', port: env.GATEWAY_SERVER_PORT });
