import type { EntityManager } from '@mikro-orm/postgresql';
import { productsShowingFile } from '../db/catalog/product-medias.ts';
import { lockFile, removeFile, type FileRecord } from '../db/file/records.ts';

/**
 * Deletes the organization's file unless a product shows it, in one transaction. The file is locked
 * first, so a product attaching it meanwhile (which holds it `for key share`) either commits before
 * and is seen here, or waits and then finds it gone. Its bytes are the caller's to delete after.
 */
export async function deleteUnshownFile(
  em: EntityManager,
  organizationId: string,
  id: string,
): Promise<{ deleted: FileRecord } | { shownBy: string[] } | null> {
  return em.fork().transactional(async (tx) => {
    const file = await lockFile(tx, organizationId, id);
    if (!file) return null;
    const shownBy = await productsShowingFile(tx, id);
    if (shownBy.length > 0) return { shownBy };
    await removeFile(tx, id);
    return { deleted: file };
  });
}
