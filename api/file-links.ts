import type { Config } from '../config/env.ts';
import type { FileRecord as FileRow } from '../db/file/records.ts';
import { openFileStorage, type DownloadTarget, type FileStorage } from '../storage/index.ts';
import { signDownload } from '../storage/signed-urls.ts';

/** Where the API serves a local-disk file's bytes through a signed URL (api/routes/files.ts). */
export const FILES_PREFIX = '/api/v1/files';
export const fileDownloadPath = (id: string) => `${FILES_PREFIX}/${id}/download`;

export interface FileLinks {
  storage: FileStorage;
  /**
   * A URL whoever holds it can GET the file's bytes from, without a credential, for `seconds`
   * (FILES_URL_EXPIRY_SECONDS unless given): the API's own signed route on local disk, a presigned
   * URL of the bucket on S3. Whole seconds, rounded up, so the URL lives `seconds` at least.
   */
  urlOf(file: FileRow, seconds?: number): Promise<{ url: string; expiresAt: Date }>;
}

/** The storage FILES_STORAGE names, with its download URLs: one per process, shared by routes and pages. */
export function fileLinks(config: Config): FileLinks {
  const storage = openFileStorage(config, (target: DownloadTarget) => {
    const { expires, signature } = signDownload(config.filesUrlSigningSecret, target.fileId, target.expiresAt);
    return `${config.publicBaseUrl}${fileDownloadPath(target.fileId)}?expires=${expires}&signature=${signature}`;
  });
  return {
    storage,
    async urlOf(file, seconds = config.FILES_URL_EXPIRY_SECONDS) {
      const expiresAt = new Date((Math.ceil(Date.now() / 1000) + seconds) * 1000);
      const url = await storage.downloadUrl({
        key: file.storageKey,
        fileId: file.id,
        name: file.name,
        mimeType: file.mimeType,
        expiresAt,
      });
      return { url, expiresAt };
    },
  };
}
