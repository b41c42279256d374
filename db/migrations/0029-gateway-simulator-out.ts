import { Migration } from '@mikro-orm/migrations';

/**
 * The simulated gateway's books left the application's migrations for the simulator's own
 * (packages/simulated-gateway, docs/decisions/0061-simulator-package.md). A database that got them
 * from the application's 0002, 0004 and 0010 drops them, so the simulator creates them again under its
 * own migrations; one where the simulator has already done so (its gateway_sim.schema_migrations
 * table exists) keeps them.
 */
export class Migration0029GatewaySimulatorOut extends Migration {
  override up(): void {
    this.addSql(`
do $$
begin
  if to_regclass('gateway_sim.schema_migrations') is null then
    drop schema if exists gateway_sim cascade;
  end if;
end
$$;
`);
  }
}
