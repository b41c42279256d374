import type { Config } from '../config/env.ts';
import { localDiskStorage } from './local-disk.ts';
import type { DownloadTarget, FileStorage } from './port.ts';
import { s3Storage } from './s3.ts';

/**
 * The storage FILES_STORAGE names. `signedUrl` builds the local disk's download URLs (the API's own
 * signed route); S3 presigns its own.
 */
export function openFileStorage(config: Config, signedUrl: (target: DownloadTarget) => string): FileStorage {
  if (config.FILES_STORAGE === 's3') {
    return s3Storage({
      bucket: config.FILES_S3_BUCKET!,
      region: config.FILES_S3_REGION,
      endpoint: config.FILES_S3_ENDPOINT,
      forcePathStyle: config.FILES_S3_FORCE_PATH_STYLE,
      credentials:
        config.FILES_S3_ACCESS_KEY_ID && config.FILES_S3_SECRET_ACCESS_KEY
          ? { accessKeyId: config.FILES_S3_ACCESS_KEY_ID, secretAccessKey: config.FILES_S3_SECRET_ACCESS_KEY }
          : undefined,
    });
  }
  return localDiskStorage({ dir: config.FILES_LOCAL_DIR, signedUrl });
}

export type { DownloadTarget, FileStorage } from './port.ts';
