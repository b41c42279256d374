import { Migration } from '@mikro-orm/migrations';

/** `GET /api/v1/events/?object_id=…`: an organization's events about one record (its id in data.id). */
export class Migration0021EventObjectIndex extends Migration {
  override up(): void {
    this.addSql(`create index events_org_object_idx on events (organization_id, (data->>'id'), created_at desc);`);
  }
}
