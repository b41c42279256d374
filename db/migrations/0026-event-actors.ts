import { Migration } from '@mikro-orm/migrations';

/**
 * Who made each change (issue 22, §3): `{ type, id }` of contracts/actor.ts. Events recorded before
 * have none (null): who acted then was not kept.
 */
export class Migration0026EventActors extends Migration {
  override up(): void {
    this.addSql(
      `alter table events add column actor jsonb
         check (actor is null or actor->>'type' in ('api_key', 'access_token', 'user', 'customer', 'system'));`,
    );
  }
}
