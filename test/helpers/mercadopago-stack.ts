import { afterAll, beforeAll } from '@jest/globals';
import type { Client } from '@temporalio/client';
import type { NativeConnection, Worker } from '@temporalio/worker';
import { openOrm, type Orm } from '../../db/orm.ts';
import { createTemporalClient } from '../../temporal/client.ts';
import { createWorker } from '../../worker/worker.ts';
import type { SimulatedGateway } from '@billing/simulated-gateway';
import { startApi, type TestApi } from './api.ts';
import { useGatewayServer, type GatewayServerStack } from './gateway-server.ts';

export interface MercadoPagoStack {
  api: TestApi;
  temporal: Client;
}

export interface SimulatorStack extends MercadoPagoStack {
  sim: SimulatedGateway;
}

/**
 * The API and a worker of the calling test file's own task queue, both in this process with
 * GATEWAY=mercadopago, their calls to Mercado Pago answered by the file's stateful fake
 * (test/helpers/mercadopago-fake.ts, over undici's MockAgent). Started before the file's tests (the
 * returned object is filled then) and stopped after them; `env` adds to the API's configuration.
 */
export function mercadoPagoStack(queue: string, env: Record<string, string> = {}): MercadoPagoStack {
  return ownQueueStack(queue, {
    GATEWAY: 'mercadopago',
    MERCADOPAGO_ACCESS_TOKEN: 'TEST-fake-access-token',
    ...env,
  });
}

/**
 * The API and a worker of the calling test file's own task queue, both in this process, configured by
 * `env` (the gateway among it): for a file whose configuration the shared worker process does not have.
 * `env` may be a function, read when the stack starts (a gateway server's address known by then).
 */
export function ownQueueStack(
  queue: string,
  env: Record<string, string> | (() => Record<string, string>) = {},
): MercadoPagoStack {
  const stack = {} as MercadoPagoStack;
  let orm: Orm | undefined;
  let workers: Worker[] = [];
  let connection: NativeConnection | undefined;
  let running: Promise<unknown> | undefined;
  beforeAll(async () => {
    stack.api = await startApi({
      TEMPORAL_TASK_QUEUE: queue,
      LOG_LEVEL: 'silent',
      ...(typeof env === 'function' ? env() : env),
    });
    stack.temporal = createTemporalClient(stack.api.config);
    orm = await openOrm(stack.api.config.DATABASE_URL, 6);
    ({ workers, connection } = await createWorker(stack.api.config, {
      orm,
      gateway: stack.api.gateway,
      temporal: stack.temporal,
      config: stack.api.config,
    }));
    running = Promise.all(workers.map((w) => w.run()));
  }, 120_000);
  afterAll(async () => {
    for (const w of workers) if (w.getState() === 'RUNNING') w.shutdown();
    await running;
    await connection?.close();
    await orm?.close();
    await stack.temporal?.connection.close();
    await stack.api?.close();
  });
  return stack;
}

/**
 * ownQueueStack over GATEWAY=http, talking to the standalone simulated-gateway server (useGatewayServer)
 * with `apiKey`; the simulator behind that server posts its signed callbacks to this API, as a deployed
 * one would. `baseUrl` is the server's, for its sandbox routes. Filled before the file's tests.
 */
export function httpSimulatorStack(queue: string, apiKey: string): SimulatorStack & { baseUrl: string } {
  const server = {} as GatewayServerStack;
  useGatewayServer(apiKey, (started) => Object.assign(server, started));
  const env = () => ({ GATEWAY: 'http', GATEWAY_URL: server.baseUrl, GATEWAY_API_KEY: apiKey });
  const stack = ownQueueStack(queue, env) as SimulatorStack & { baseUrl: string };
  beforeAll(() => {
    stack.sim = server.sim;
    stack.baseUrl = server.baseUrl;
    postCallbacksTo(stack.sim, stack.api);
  });
  return stack;
}

/**
 * ownQueueStack on the embedded simulator (GATEWAY=simulator, `env` added), its signed callbacks
 * posted to this API: the simulator's payment and chargeback notices reach the engine as a deployed
 * simulator's would. Filled before the file's tests.
 */
export function simulatorQueueStack(queue: string, env: Record<string, string> = {}): SimulatorStack {
  const stack = ownQueueStack(queue, { GATEWAY: 'simulator', ...env }) as SimulatorStack;
  beforeAll(() => {
    stack.sim = stack.api.gateway as SimulatedGateway;
    postCallbacksTo(stack.sim, stack.api);
  });
  return stack;
}

/** The simulator's signed callbacks posted to this API, as a deployed simulator's would be. */
function postCallbacksTo(sim: SimulatedGateway, api: TestApi): void {
  sim.callbacks.callbackUrl = `${api.baseUrl}/api/v1/gateway/callbacks`;
  sim.callbacks.callbackSecret = api.config.gatewayCallbackSecret;
}
