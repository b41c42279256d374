import { Migration } from '@mikro-orm/migrations';

/**
 * Uploaded files (their bytes are in the storage FILES_STORAGE names; a row exists only once they are
 * all stored) and the files a product shows as media, in order. A product's media row names the
 * product's organization, and its foreign key to the file includes it: the database itself refuses a
 * product another organization's file. A file shown by a product cannot be deleted (restrict).
 */
export class Migration0018Files extends Migration {
  override up(): void {
    this.addSql(`
create table files (
  id uuid primary key,
  organization_id uuid not null references organizations(id),
  name text not null,
  mime_type text not null,
  size bigint not null check (size >= 0),
  checksum_sha256 text not null check (checksum_sha256 ~ '^[0-9a-f]{64}$'),
  storage_key text not null unique,
  created_at timestamptz not null,
  unique (id, organization_id)
);`);
    this.addSql(`create index files_org_idx on files(organization_id, created_at desc);`);
    this.addSql(`
create table product_medias (
  product_id uuid not null references products(id) on delete cascade,
  file_id uuid not null,
  organization_id uuid not null,
  position smallint not null check (position >= 0),
  primary key (product_id, file_id),
  unique (product_id, position),
  foreign key (file_id, organization_id) references files(id, organization_id) on delete restrict
);`);
    this.addSql(`create index product_medias_file_idx on product_medias(file_id);`);
  }
}
