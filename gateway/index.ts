import type { Config } from '../config/env.ts';
import type { Orm } from '../db/orm.ts';
import { HttpGateway } from './http-adapter.ts';
import type { PaymentGateway } from './port.ts';
import { SimulatedGateway } from './simulator.ts';

/** Sandbox deployments use the simulator; production uses the configured HTTP adapter. */
export function createGateway(config: Config, orm: Orm): PaymentGateway {
  if (config.gateway === 'simulator') {
    return new SimulatedGateway(orm, {
      callbackUrl: config.gatewayCallbackUrl,
      callbackSecret: config.gatewayCallbackSecret,
    });
  }
  return new HttpGateway({
    // loadConfig refuses GATEWAY=http without GATEWAY_URL.
    baseUrl: config.GATEWAY_URL!,
    apiKey: config.GATEWAY_API_KEY ?? '',
    timeoutMs: config.GATEWAY_TIMEOUT_MS,
  });
}
