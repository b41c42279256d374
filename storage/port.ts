import type { Readable } from 'node:stream';

/** What a download URL serves: the object, under the file's name and type, until `expiresAt`. */
export interface DownloadTarget {
  key: string;
  fileId: string;
  name: string;
  mimeType: string;
  expiresAt: Date;
}

/**
 * Where uploaded bytes live: local disk (the embedded default) or an S3-compatible bucket. Keys are
 * `<organization id>/<file id>`, both ours, so a client never names a path.
 */
export interface FileStorage {
  readonly kind: 'local' | 's3';
  /**
   * Streams `body` to `key`; resolves once the whole object is stored. When `body` fails (a size or
   * type refusal mid-stream, a dropped connection) it rejects and nothing is left under `key`.
   */
  put(key: string, body: Readable): Promise<void>;
  /** Removes the object; one already gone is not an error. */
  delete(key: string): Promise<void>;
  /** A URL from which whoever holds it can GET the bytes until `target.expiresAt`, with no credential. */
  downloadUrl(target: DownloadTarget): Promise<string>;
  /**
   * The bytes, for the API's own signed download route. Only local disk has it: an S3 presigned URL
   * goes to the bucket directly.
   */
  open?(key: string): Promise<Readable>;
}
