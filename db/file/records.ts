import type { EntityManager } from '@mikro-orm/postgresql';
import type { FileRecord } from '../entities/file.ts';
import { kyselyOf } from '../kysely.ts';

/**
 * The file object's repository: the only code that reads or writes the `files` table. A row is written
 * only once the file's bytes are all stored.
 */

export type { FileRecord };

export async function insertFile(em: EntityManager, file: FileRecord): Promise<void> {
  await kyselyOf(em).insertInto('files').values(file).execute();
}

/** The organization's file by id: another organization's is as absent as an unknown id. */
const ownFile = (em: EntityManager, organizationId: string, id: string) =>
  kyselyOf(em).selectFrom('files').selectAll().where('id', '=', id).where('organizationId', '=', organizationId);

export async function findFile(em: EntityManager, organizationId: string, id: string): Promise<FileRecord | null> {
  return (await ownFile(em, organizationId, id).executeTakeFirst()) ?? null;
}

/** For the signed download route, whose signature already proves who may read the file. */
export async function findFileById(em: EntityManager, id: string): Promise<FileRecord | null> {
  return (await kyselyOf(em).selectFrom('files').selectAll().where('id', '=', id).executeTakeFirst()) ?? null;
}

/** Sortable columns of the list, by their wire names. */
export const FILE_SORT_FIELDS = ['created_at', 'name', 'size'] as const;
const SORT_PROPERTY = { created_at: 'createdAt', name: 'name', size: 'size' } as const;

export async function listFiles(
  em: EntityManager,
  organizationId: string,
  page: { sortField: (typeof FILE_SORT_FIELDS)[number]; direction: 'asc' | 'desc'; limit: number; offset: number },
): Promise<{ files: FileRecord[]; total: number }> {
  const db = kyselyOf(em);
  const [files, count] = await Promise.all([
    db
      .selectFrom('files')
      .selectAll()
      .where('organizationId', '=', organizationId)
      .orderBy(SORT_PROPERTY[page.sortField], page.direction)
      .orderBy('id', page.direction)
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    db
      .selectFrom('files')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('organizationId', '=', organizationId)
      .executeTakeFirstOrThrow(),
  ]);
  return { files, total: Number(count.n) };
}

/**
 * The organization's files `ids` names, held `for key share` until the transaction ends: a product
 * attaching them as media keeps them from being deleted before it commits.
 */
export async function holdFiles(
  tx: EntityManager,
  organizationId: string,
  ids: readonly string[],
): Promise<FileRecord[]> {
  if (ids.length === 0) return [];
  return kyselyOf(tx)
    .selectFrom('files')
    .selectAll()
    .where('organizationId', '=', organizationId)
    .where('id', 'in', [...ids])
    .forKeyShare()
    .execute();
}

/** The files with these ids (for showing a product's media). */
export async function filesByIds(em: EntityManager, ids: readonly string[]): Promise<FileRecord[]> {
  if (ids.length === 0) return [];
  return kyselyOf(em)
    .selectFrom('files')
    .selectAll()
    .where('id', 'in', [...ids])
    .execute();
}

/**
 * The organization's file, locked for deletion: a product attaching it meanwhile (which holds it
 * `for key share`) either commits first and is seen by the caller, or waits and then finds it gone.
 */
export async function lockFile(tx: EntityManager, organizationId: string, id: string): Promise<FileRecord | null> {
  return (await ownFile(tx, organizationId, id).forUpdate().executeTakeFirst()) ?? null;
}

export async function removeFile(tx: EntityManager, id: string): Promise<void> {
  await kyselyOf(tx).deleteFrom('files').where('id', '=', id).execute();
}
