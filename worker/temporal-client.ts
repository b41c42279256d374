import { Client, Connection } from '@temporalio/client';
import type { Config } from '../config/env.ts';

/** The API's one Temporal client. Connecting lazily lets the API start (and answer /readyz 503) while Temporal is down. */
export function createTemporalClient(config: Config): Client {
  const connection = Connection.lazy({ address: config.TEMPORAL_ADDRESS });
  return new Client({ connection, namespace: config.TEMPORAL_NAMESPACE });
}
