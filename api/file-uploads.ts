import { createHash } from 'node:crypto';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileTypeFromBuffer } from 'file-type';
import { acceptedFileType, acceptedTypesOf, type FilePurpose } from '../domain/file-types.ts';
import type { FileStorage } from '../storage/port.ts';
import { ApiError } from '../use-cases/errors.ts';

/**
 * One upload, streamed from the request to storage: the bytes pass through a type check (the first
 * few KiB, held until their magic number is read) and a digest (SHA-256 and a byte count) on their way,
 * so at no point is more than a small window of the file in memory. A refusal mid-stream (too large,
 * wrong type) fails the stream, and the storage leaves nothing behind.
 */

/** Enough bytes for file-type to recognise every allowed type. */
const SAMPLE_BYTES = 4100;

export const fileTooLarge = (maxBytes: number) =>
  new ApiError(413, 'file_too_large', 'File too large', `The largest file accepted is ${maxBytes} bytes`);

/** A body the multipart parser cannot read (no boundary, cut short): the client's fault, never a 500. */
export const invalidMultipart = (cause: unknown) =>
  new ApiError(
    400,
    'invalid_multipart',
    'Malformed multipart body',
    cause instanceof Error ? cause.message : undefined,
  );

export const unsupportedFileType = (detail: string, purpose: FilePurpose) =>
  new ApiError(
    415,
    'unsupported_file_type',
    'Unsupported file type',
    `${detail}. Accepted as ${purpose}: ${acceptedTypesOf(purpose)}`,
  );

/** Holds the first SAMPLE_BYTES, decides the type from them, then lets everything through. */
class TypeCheck extends Transform {
  private head: Buffer[] = [];
  private headBytes = 0;
  type: string | null = null;
  private readonly declared: string;
  private readonly purpose: FilePurpose;

  constructor(declared: string, purpose: FilePurpose) {
    super();
    this.declared = declared;
    this.purpose = purpose;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    if (this.type) return done(null, chunk);
    this.head.push(chunk);
    this.headBytes += chunk.length;
    if (this.headBytes < SAMPLE_BYTES) return done();
    this.decide(done);
  }

  override _flush(done: TransformCallback): void {
    if (this.type) return done();
    this.decide(done);
  }

  private decide(done: TransformCallback): void {
    const head = Buffer.concat(this.head);
    this.head = [];
    fileTypeFromBuffer(head).then((found) => {
      const type = head.length === 0 ? null : acceptedFileType(this.purpose, this.declared, found?.mime);
      if (!type) {
        const bytes =
          head.length === 0
            ? 'The file is empty'
            : found
              ? `The bytes are ${found.mime}`
              : 'The bytes are of no known type';
        return done(unsupportedFileType(`${bytes}; the part declared ${this.declared}`, this.purpose));
      }
      this.type = type;
      done(null, head);
    }, done);
  }
}

/** SHA-256 and size of what passes; more than `maxBytes` fails the stream. */
class Digest extends Transform {
  private readonly hash = createHash('sha256');
  size = 0;
  private readonly maxBytes: number;
  private readonly truncated: () => boolean;

  constructor(maxBytes: number, truncated: () => boolean) {
    super();
    this.maxBytes = maxBytes;
    this.truncated = truncated;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.size += chunk.length;
    if (this.size > this.maxBytes) return done(fileTooLarge(this.maxBytes));
    this.hash.update(chunk);
    done(null, chunk);
  }

  override _flush(done: TransformCallback): void {
    // The multipart parser cuts a file at its limit and ends the stream: the end must not commit it.
    if (this.truncated()) return done(fileTooLarge(this.maxBytes));
    done();
  }

  hex(): string {
    return this.hash.digest('hex');
  }
}

export interface ReceivedFile {
  mimeType: string;
  size: number;
  checksumSha256: string;
}

/** A multipart file part: the parser marks it `truncated` and emits `limit` past its size limit. */
type FilePart = Readable & { truncated?: boolean };

export async function receiveUpload(
  source: FilePart,
  declared: { type: string; purpose: FilePurpose },
  storage: FileStorage,
  key: string,
  maxBytes: number,
): Promise<ReceivedFile> {
  const check = new TypeCheck(declared.type, declared.purpose);
  const digest = new Digest(maxBytes, () => source.truncated === true);
  // Refuse at the limit rather than after the parser has read (and dropped) the rest of the file.
  source.once('limit', () => check.destroy(fileTooLarge(maxBytes)));
  // The parser may have failed the part already (a body cut short), before anything reads it.
  if (source.errored) throw invalidMultipart(source.errored);
  // Whichever end failed first caused the failure; the other end only fails with it.
  let firstFailure: 'request' | 'storage' | undefined;
  source.once('error', () => (firstFailure ??= 'request'));
  const put = storage.put(key, digest).catch((err: unknown) => {
    firstFailure ??= 'storage';
    digest.destroy(err as Error); // a storage that failed before reading would leave the request stalled
    throw err;
  });
  const [piped, stored] = await Promise.allSettled([pipeline(source, check, digest), put]);
  if (piped.status === 'rejected' || stored.status === 'rejected') {
    if (stored.status === 'fulfilled') await storage.delete(key);
    const reasons = [piped, stored].flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
    const refusal = reasons.find((r) => r instanceof ApiError);
    if (refusal) throw refusal;
    if (firstFailure === 'request') throw invalidMultipart(piped.status === 'rejected' ? piped.reason : reasons[0]);
    throw stored.status === 'rejected' ? stored.reason : reasons[0];
  }
  return { mimeType: check.type!, size: digest.size, checksumSha256: digest.hex() };
}
