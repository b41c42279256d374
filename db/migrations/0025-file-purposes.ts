import { Migration } from '@mikro-orm/migrations';

/**
 * What each file is for (issue 22, §3): product media (raster images) or a downloadable (any type).
 * Files uploaded before were images or PDF: the images become product media, the PDFs downloadables.
 */
export class Migration0025FilePurposes extends Migration {
  override up(): void {
    this.addSql(
      `alter table files add column purpose text not null default 'downloadable'
         check (purpose in ('product_media', 'downloadable'));`,
    );
    this.addSql(`update files set purpose = 'product_media' where mime_type like 'image/%';`);
    this.addSql(`alter table files alter column purpose drop default;`);
  }
}
