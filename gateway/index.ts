import type { Config } from '../config/env.ts';
import type { Orm } from '../db/orm.ts';
import type { PaymentGateway } from './port.ts';
import { SimulatedGateway } from './simulator.ts';

/** Sandbox deployments use the simulator; production uses the configured HTTP adapter. */
export function createGateway(config: Config, orm: Orm): PaymentGateway {
  if (config.gateway === 'simulator') return new SimulatedGateway(orm);
  throw new Error('GATEWAY=http: the HTTP adapter arrives with the payments work (issue 3); use GATEWAY=simulator');
}
