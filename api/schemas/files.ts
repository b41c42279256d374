import { z } from 'zod';
import { FILE_PURPOSES, MEDIA_FILE_TYPES } from '../../domain/file-types.ts';
import type { FileRecord as FileRow } from '../../db/file/records.ts';
import { errorBody, iso, listQuery, paginated } from '../../use-cases/schemas/common.ts';

/** Wire shapes of the Files group: the file record, its list, the upload body and the signed download. */

const timestamp = z.string().meta({ description: 'ISO 8601 UTC', example: '2025-01-31T12:00:00.000Z' });

/** What a product's `medias` shows of each file (no URL: those expire, and products go into events). */
export const mediaFileSchema = z.object({
  id: z.string(),
  name: z.string(),
  mime_type: z.string().meta({ example: 'image/png' }),
  size: z.number().int().meta({ description: 'Bytes' }),
  checksum_sha256: z.string().meta({ description: 'SHA-256 of the bytes, hex' }),
});

const purpose = z.enum(FILE_PURPOSES).meta({
  description:
    'What the file is for: `product_media` (an image a product shows: PNG, JPEG, WebP, GIF or AVIF) or ' +
    '`downloadable` (what a product delivers: any type)',
});

export const fileSchema = mediaFileSchema.extend({
  purpose,
  organization_id: z.string(),
  created_at: timestamp,
  download_url: z.string().meta({
    description: 'Short-lived URL that serves the bytes without a credential, until download_url_expires_at',
  }),
  download_url_expires_at: timestamp,
});
export type FileRecord = z.infer<typeof fileSchema>;
export type MediaFileRecord = z.infer<typeof mediaFileSchema>;

export const listFilesQuery = listQuery(['created_at', 'name', 'size']);

export const fileParams = z.object({ id: z.string().max(64) });

export const uploadFileQuery = z.strictObject({ purpose: purpose.default('product_media') });

/**
 * The upload as the document states it (multipart/form-data with one part, `file`). The route does
 * not validate a body: @fastify/multipart streams the part to the handler.
 */
export const uploadFileBody = z.object({
  file: z.string().meta({
    format: 'binary',
    description:
      `The file, at most FILES_MAX_BYTES (10 MiB by default). Product media must be one of ` +
      `${MEDIA_FILE_TYPES.join(', ')}; a downloadable may be any type. Bytes of a known type (their magic ` +
      `number) decide it, and the part's Content-Type must say the same, or application/octet-stream (or ` +
      `none); a downloadable of no known type keeps the type its part declares`,
  }),
});

export const downloadQuery = z.object({
  expires: z.coerce.number().int().min(0).meta({ description: 'Unix seconds; the URL works until then' }),
  signature: z.string().max(128).meta({ description: 'HMAC-SHA256 of the file id and `expires`, base64url' }),
});

export const uploadErrors = {
  413: errorBody.meta({ description: 'The file is larger than FILES_MAX_BYTES (code file_too_large)' }),
  415: errorBody.meta({
    description:
      'Not multipart/form-data, or a file of a type not allowed or not the type declared (code unsupported_file_type)',
  }),
};

export const filePage = paginated(fileSchema);

export function presentMediaFile(f: Pick<FileRow, 'id' | 'name' | 'mimeType' | 'size' | 'checksumSha256'>) {
  return { id: f.id, name: f.name, mime_type: f.mimeType, size: f.size, checksum_sha256: f.checksumSha256 };
}

export function presentFile(f: FileRow, download: { url: string; expiresAt: Date }): FileRecord {
  return {
    ...presentMediaFile(f),
    purpose: f.purpose,
    organization_id: f.organizationId,
    created_at: iso(f.createdAt)!,
    download_url: download.url,
    download_url_expires_at: iso(download.expiresAt)!,
  };
}
