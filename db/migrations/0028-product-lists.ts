import { Migration } from '@mikro-orm/migrations';

/**
 * Each product carries its prices and media as GET /products/<id> shows them (`price_list`,
 * `media_list`), so that the API's hottest read is one row of one table instead of two aggregates.
 * Triggers keep them, in the transaction of every write to prices, product media or files: a read
 * never sees a list older than what its snapshot shows of the tables (no cache, nothing stale).
 * `json`, not `jsonb`: written on the rare write, sent as stored on every read.
 *
 * A migration that adds a column to prices or files calls `refresh_product_lists` for every product.
 */
export class Migration0028ProductLists extends Migration {
  override up(): void {
    this.addSql(`alter table products add column price_list json not null default '[]',
      add column media_list json not null default '[]';`);
    // Locks the products first, then reads their lists in a statement of its own: under READ COMMITTED
    // that statement sees what a concurrent writer of the same product committed while this one waited.
    this.addSql(`create function refresh_product_lists(ids uuid[]) returns void language plpgsql as $$
      begin
        perform 1 from products where id = any(ids) order by id for no key update;
        update products p set
          price_list = coalesce(
            (select json_agg(pr order by pr.created_at, pr.id) from prices pr where pr.product_id = p.id), '[]'),
          media_list = coalesce(
            (select json_agg(json_build_object('id', f.id, 'name', f.name, 'mime_type', f.mime_type,
               'size', f.size, 'checksum_sha256', f.checksum_sha256) order by m.position)
             from product_medias m join files f on f.id = m.file_id where m.product_id = p.id), '[]')
        where p.id = any(ids);
      end $$;`);
    this.addSql(`create function product_rows_changed() returns trigger language plpgsql as $$
      begin
        perform refresh_product_lists(array(select distinct product_id from changed));
        return null;
      end $$;`);
    this.addSql(`create function files_changed() returns trigger language plpgsql as $$
      begin
        perform refresh_product_lists(array(
          select distinct m.product_id from changed c join product_medias m on m.file_id = c.id));
        return null;
      end $$;`);
    for (const table of ['prices', 'product_medias']) {
      this.addSql(`create trigger ${table}_inserted after insert on ${table} referencing new table as changed
        for each statement execute function product_rows_changed();`);
      this.addSql(`create trigger ${table}_updated after update on ${table} referencing new table as changed
        for each statement execute function product_rows_changed();`);
      this.addSql(`create trigger ${table}_deleted after delete on ${table} referencing old table as changed
        for each statement execute function product_rows_changed();`);
    }
    this.addSql(`create trigger files_updated after update on files referencing new table as changed
      for each statement execute function files_changed();`);
    this.addSql(`select refresh_product_lists(array(select id from products));`);
  }
}
