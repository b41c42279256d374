import type { FastifyInstance } from 'fastify';
import { uuidv7 } from 'uuidv7';
import { openOrm, type Orm } from '../../db/orm.ts';
import { HttpGateway } from '../../gateway/http-adapter.ts';
import type { MandateInput } from '../../gateway/port.ts';
// The package by path: node_modules' @billing/simulated-gateway is main's copy (helper brief).
import { migrateSimulator } from '../../packages/simulated-gateway/src/migrate.ts';
import { buildGatewayServer, GatewayFaults } from '../../packages/simulated-gateway/src/server.ts';
import { SimulatedGateway } from '../../packages/simulated-gateway/src/simulator.ts';
import { TEST_DATABASE_URL } from '../helpers/env.ts';

/** What the simulator's Pix Automático tests share: a simulator on the test database, its clock, a mandate. */

export const pixKey = (suite: string, label: string) => `test:${suite}:${label}:${uuidv7()}`;

/** The simulator's clock at noon (UTC) of `date`. */
export const setSimDate = (sim: SimulatedGateway, date: string) => {
  sim.now = () => new Date(`${date}T12:00:00Z`);
};

/** A monthly R$ 49,90 mandate from 2026-03-10, journey 2, three retries in seven days. */
export const mandateInputOf = (overrides: Partial<MandateInput> = {}, email: string | null = null): MandateInput => ({
  reference: uuidv7(),
  objectLabel: 'Plano Mensal',
  debtor: { name: 'Ana Souza', taxId: '12345678909', email },
  startDate: '2026-03-10',
  endDate: null,
  periodicity: 'monthly',
  fixedAmount: 4_990,
  minimumAmount: null,
  retryPolicy: 'three_in_seven_days',
  journey: 'journey_2',
  ...overrides,
});

export async function openSimulator(poolMax: number): Promise<{ orm: Orm; sim: SimulatedGateway }> {
  const orm = await openOrm(TEST_DATABASE_URL, poolMax);
  await migrateSimulator(orm);
  return { orm, sim: new SimulatedGateway(orm) };
}

export interface ServedSimulator {
  server: FastifyInstance;
  baseUrl: string;
  http: HttpGateway;
}

/**
 * The simulator behind its HTTP server (faults on), and the HTTP adapter that calls it; `beforeListen`
 * may add hooks to the server first.
 */
export async function serveSimulator(
  sim: SimulatedGateway,
  apiKey: string,
  beforeListen: (server: FastifyInstance) => void = () => undefined,
): Promise<ServedSimulator> {
  const server = buildGatewayServer({
    gateway: sim,
    apiKey,
    sandbox: sim,
    faults: new GatewayFaults(),
    simulatorFaults: sim.faults,
  });
  beforeListen(server);
  await server.listen({ host: '127.0.0.1', port: 0 });
  const baseUrl = `http://127.0.0.1:${(server.server.address() as { port: number }).port}`;
  return { server, baseUrl, http: new HttpGateway({ baseUrl, apiKey, timeoutMs: 5000 }) };
}
