import { Migration } from '@mikro-orm/migrations';

/**
 * Gave the simulated gateway's invoices their recurrence cycle (schema gateway_sim). That is the
 * simulator's own migration now (packages/simulated-gateway/src/migrations.ts,
 * docs/decisions/0061-simulator-package.md): this step stays, empty, so that the databases that ran it
 * and the new ones list the same migrations.
 */
export class Migration0010GatewayRecurrence extends Migration {
  override up(): void {}
}
