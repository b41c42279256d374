import { createHash, randomBytes } from 'node:crypto';
import { crc32, deflateSync } from 'node:zlib';
import { Agent, request } from 'undici';

/** Files to upload, made here so that their bytes are real PNG / PDF that a type sniffer recognises. */

/** A valid PNG of random RGB pixels: random pixels do not compress, so the size follows the area. */
export function png(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, no interlace
  const rows = Array.from({ length: height }, () => Buffer.concat([Buffer.from([0]), randomBytes(width * 3)]));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

export function pdf(): Buffer {
  return Buffer.from(
    '%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n' +
      '2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n',
  );
}

export const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

export interface Part {
  name?: string;
  filename: string;
  type: string;
  data: Buffer;
}

/** A multipart/form-data body with the parts given, as a browser would send it. */
export function multipart(...parts: Part[]): { raw: Buffer; headers: Record<string, string> } {
  const boundary = `----billing-test-${randomBytes(8).toString('hex')}`;
  const pieces = parts.flatMap((p) => [
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${p.name ?? 'file'}"; filename="${p.filename}"\r\n` +
        `Content-Type: ${p.type}\r\n\r\n`,
    ),
    p.data,
    Buffer.from('\r\n'),
  ]);
  return {
    raw: Buffer.concat([...pieces, Buffer.from(`--${boundary}--\r\n`)]),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
}

const insecure = new Agent({ connect: { rejectUnauthorized: false } });

/** GET of a download URL's path on the API under test, with the bytes as they came. */
export async function download(baseUrl: string, downloadUrl: string) {
  const { pathname, search } = new URL(downloadUrl);
  const res = await request(baseUrl + pathname + search, { dispatcher: insecure });
  const bytes = Buffer.from(await res.body.arrayBuffer());
  const json = String(res.headers['content-type']).includes('json') ? JSON.parse(bytes.toString()) : undefined;
  return { status: res.statusCode, headers: res.headers, bytes, json };
}
