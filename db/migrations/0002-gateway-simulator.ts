import { Migration } from '@mikro-orm/migrations';

/**
 * Created the simulated gateway's first tables (schema gateway_sim). They are the simulator's own
 * migrations now (packages/simulated-gateway/src/migrations.ts, docs/decisions/0061-simulator-package.md):
 * this step stays, empty, so that the databases that ran it and the new ones list the same migrations.
 */
export class Migration0002GatewaySimulator extends Migration {
  override up(): void {}
}
