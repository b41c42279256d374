import { Migration } from '@mikro-orm/migrations';

/**
 * The simulated gateway bills its subscriptions itself, one invoice per cycle of its recurrence
 * (`cycle`, 0 on the start date; null for an extra charge), retried on the same invoice after a
 * refusal (`attempts`). One invoice per subscription and cycle.
 */
export class Migration0010GatewayRecurrence extends Migration {
  override up(): void {
    this.addSql(`
alter table gateway_sim.invoices add column cycle integer, add column attempts integer not null default 0;
create unique index gateway_sim_invoices_cycle_idx on gateway_sim.invoices (subscription_id, cycle)
  where cycle is not null;
create index gateway_sim_invoices_subscription_idx on gateway_sim.invoices (subscription_id, created_at);
`);
  }
}
