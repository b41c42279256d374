import type { FilePurpose } from '../domain/file-types.ts';
import type { Sql } from './plain-sql.ts';

/**
 * The `files` table in plain SQL (no entity: the routes and the product media read a handful of
 * columns). A row is written only once the file's bytes are all stored.
 */
export interface FileRow {
  id: string;
  organizationId: string;
  name: string;
  mimeType: string;
  purpose: FilePurpose;
  size: number;
  /** Hex. */
  checksumSha256: string;
  storageKey: string;
  createdAt: Date;
}

const COLUMNS = 'id, organization_id, name, mime_type, purpose, size, checksum_sha256, storage_key, created_at';

interface Row {
  id: string;
  organization_id: string;
  name: string;
  mime_type: string;
  purpose: FilePurpose;
  size: string | number;
  checksum_sha256: string;
  storage_key: string;
  created_at: Date | string;
}

export const fileFromRow = (r: Row): FileRow => ({
  id: r.id,
  organizationId: r.organization_id,
  name: r.name,
  mimeType: r.mime_type,
  purpose: r.purpose,
  size: Number(r.size),
  checksumSha256: r.checksum_sha256,
  storageKey: r.storage_key,
  createdAt: new Date(r.created_at),
});

export async function insertFile(sql: Sql, f: FileRow): Promise<void> {
  await sql(`insert into files (${COLUMNS}) values (?, ?, ?, ?, ?, ?, ?, ?, ?)`, [
    f.id,
    f.organizationId,
    f.name,
    f.mimeType,
    f.purpose,
    f.size,
    f.checksumSha256,
    f.storageKey,
    f.createdAt,
  ]);
}

/** A file of the organization; another organization's is as absent as an unknown id. */
export async function findFile(sql: Sql, organizationId: string, id: string): Promise<FileRow | null> {
  const rows = await sql<Row>(`select ${COLUMNS} from files where id = ? and organization_id = ?`, [
    id,
    organizationId,
  ]);
  return rows[0] ? fileFromRow(rows[0]) : null;
}

/** For the signed download route, whose signature already proves who may read the file. */
export async function findFileById(sql: Sql, id: string): Promise<FileRow | null> {
  const rows = await sql<Row>(`select ${COLUMNS} from files where id = ?`, [id]);
  return rows[0] ? fileFromRow(rows[0]) : null;
}

/** Sortable columns of the list, by their wire names (the same as the columns). */
export const FILE_SORT_FIELDS = ['created_at', 'name', 'size'] as const;

export async function listFiles(
  sql: Sql,
  organizationId: string,
  page: { sortField: (typeof FILE_SORT_FIELDS)[number]; direction: 'asc' | 'desc'; limit: number; offset: number },
): Promise<{ files: FileRow[]; total: number }> {
  const dir = page.direction === 'desc' ? 'desc' : 'asc';
  const [rows, [count]] = await Promise.all([
    sql<Row>(
      `select ${COLUMNS} from files where organization_id = ?
       order by ${page.sortField} ${dir}, id ${dir} limit ? offset ?`,
      [organizationId, page.limit, page.offset],
    ),
    sql<{ n: string }>('select count(*) as n from files where organization_id = ?', [organizationId]),
  ]);
  return { files: rows.map(fileFromRow), total: Number(count!.n) };
}

/**
 * Deletes the organization's file unless a product shows it. The row is locked first, so a product
 * attaching it meanwhile (which holds it `for key share`) either finishes before and is seen, or waits
 * and then finds it gone.
 */
export async function deleteFile(
  tx: Sql,
  organizationId: string,
  id: string,
): Promise<{ deleted: FileRow } | { shownBy: string[] } | null> {
  const [row] = await tx<Row>(`select ${COLUMNS} from files where id = ? and organization_id = ? for update`, [
    id,
    organizationId,
  ]);
  if (!row) return null;
  const products = await tx<{ product_id: string }>(
    'select product_id from product_medias where file_id = ? order by product_id',
    [id],
  );
  if (products.length > 0) return { shownBy: products.map((p) => p.product_id) };
  await tx('delete from files where id = ?', [id]);
  return { deleted: fileFromRow(row) };
}
