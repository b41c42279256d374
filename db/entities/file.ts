import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { FILE_PURPOSES } from '../../domain/file-types.ts';

/** An uploaded file: its bytes are in the storage FILES_STORAGE names; the row exists once they all are. */
export const File = defineEntity({
  name: 'File',
  tableName: 'files',
  properties: {
    id: p.uuid().primary(),
    organizationId: p.uuid(),
    name: p.string(),
    mimeType: p.string(),
    purpose: p.enum(FILE_PURPOSES),
    size: p.bigint('number'),
    /** Hex. */
    checksumSha256: p.string(),
    storageKey: p.string().unique(),
    createdAt: p.datetime(),
  },
});

export type FileRecord = InferEntity<typeof File>;
