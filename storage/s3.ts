import { DeleteObjectCommand, GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { create as contentDisposition } from 'content-disposition';
import type { Readable } from 'node:stream';
import { isMediaType } from '../domain/file-types.ts';
import type { FileStorage } from './port.ts';

export interface S3Settings {
  bucket: string;
  region: string;
  /** An S3-compatible service (MinIO, R2, …); unset: AWS. */
  endpoint?: string;
  forcePathStyle: boolean;
  /** Unset: the AWS SDK's default chain (environment, profile, instance role). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

/** S3 takes multipart parts of 5 MiB at least; two in flight bound what an upload holds in memory. */
const PART_SIZE = 5 * 1024 * 1024;
const PARTS_IN_FLIGHT = 2;

/**
 * An S3-compatible bucket, for production. Uploads stream through the SDK's multipart Upload, which
 * aborts the multipart upload when the body fails (nothing is left in the bucket); downloads are
 * presigned GET URLs that name the file and its type. Tested against moto's S3 server
 * (test/integration/s3-storage.test.ts).
 */
export function s3Storage(settings: S3Settings): FileStorage {
  const client = new S3Client({
    region: settings.region,
    forcePathStyle: settings.forcePathStyle,
    ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
    ...(settings.credentials ? { credentials: settings.credentials } : {}),
  });
  const Bucket = settings.bucket;
  return {
    kind: 's3',
    async put(key, body: Readable) {
      const upload = new Upload({
        client,
        params: { Bucket, Key: key, Body: body },
        partSize: PART_SIZE,
        queueSize: PARTS_IN_FLIGHT,
        leavePartsOnError: false,
      });
      await upload.done();
    },
    async delete(key) {
      await client.send(new DeleteObjectCommand({ Bucket, Key: key }));
    },
    async downloadUrl(target) {
      const command = new GetObjectCommand({
        Bucket,
        Key: target.key,
        ResponseContentType: target.mimeType,
        ResponseContentDisposition: contentDisposition(target.name, {
          type: isMediaType(target.mimeType) ? 'inline' : 'attachment',
        }),
      });
      const expiresIn = Math.max(1, Math.round((target.expiresAt.getTime() - Date.now()) / 1000));
      return getSignedUrl(client, command, { expiresIn });
    },
  };
}
