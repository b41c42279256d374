import { Migration } from '@mikro-orm/migrations';

/**
 * The database's deployment id (decision 0083): one row, a random id made once when the database is
 * created, which a worker writes into the claim of its Temporal task queue. A second database's worker
 * on the same namespace and task queue sees another id there and refuses to start, rather than taking
 * this database's tasks and failing them as "not found". Kept by a dump and restore (the restored
 * database is the same deployment, and its worker finds its own claim).
 */
export class Migration0032DeploymentIdentity extends Migration {
  override up(): void {
    this.addSql(`create table deployment (
      id uuid not null,
      one_row boolean primary key default true check (one_row),
      created_at timestamptz not null default now()
    );`);
    this.addSql(`insert into deployment (id) values (gen_random_uuid());`);
  }
}
