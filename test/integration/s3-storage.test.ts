import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  CreateBucketCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  S3Client,
} from '@aws-sdk/client-s3';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { freePort } from '../../scripts/processes.ts';
import { motoServerPath } from '../../scripts/tool-paths.ts';
import { s3Storage } from '../../storage/s3.ts';
import type { FileStorage } from '../../storage/port.ts';
import { startApi, type TestApi } from '../helpers/api.ts';
import { makeTenant } from '../helpers/fixtures.ts';
import { multipart, png, sha256 } from '../helpers/uploads.ts';
import { waitFor } from '../helpers/processes.ts';

/**
 * The S3 adapter (storage/s3.ts) against a real S3-compatible server: moto's standalone server
 * (`moto_server`, installed into .tools/venv by scripts/install-tools.ts), started on a free port.
 * Moto keeps everything in memory, so the run leaves nothing behind.
 */
const MiB = 1024 * 1024;
const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };
const region = 'us-east-1';
const bucket = `billing-files-${randomUUID().slice(0, 8)}`;

let moto: ChildProcess;
let endpoint: string;
let client: S3Client;
let storage: FileStorage;

/** Polls until moto answers HTTP (any status), failing at once if the process dies. */
async function waitForMoto(child: ChildProcess, url: string, log: () => string): Promise<void> {
  await waitFor(
    async () => {
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`moto_server exited at start (code ${child.exitCode}, signal ${child.signalCode}):\n${log()}`);
      return fetch(url, { signal: AbortSignal.timeout(1000) }).then(
        async (res) => (await res.arrayBuffer(), true),
        () => false,
      );
    },
    { what: `moto_server to answer ${url}`, timeoutMs: 30_000, intervalMs: 100, describe: log },
  );
}

beforeAll(async () => {
  const executable = motoServerPath();
  if (!executable)
    throw new Error(
      'moto_server not found ($MOTO_SERVER_PATH, PATH, .tools/venv): run `node scripts/install-tools.ts`',
    );
  const port = await freePort();
  endpoint = `http://127.0.0.1:${port}`;
  let output = '';
  moto = spawn(executable, ['-H', '127.0.0.1', '-p', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
  moto.stdout!.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  moto.stderr!.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  await waitForMoto(moto, `${endpoint}/`, () => output);

  client = new S3Client({ region, endpoint, forcePathStyle: true, credentials });
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  storage = s3Storage({ bucket, region, endpoint, forcePathStyle: true, credentials });
});

afterAll(async () => {
  client?.destroy();
  if (moto && moto.exitCode === null && moto.signalCode === null) {
    const exited = new Promise((resolve) => moto.once('exit', resolve));
    moto.kill('SIGTERM');
    await exited;
  }
});

const newKey = () => `org-${randomUUID()}/${randomUUID()}`;

/** `size` pseudo-random bytes in 256 KiB chunks, made as they are read; `sent` hashes what went out. */
function generated(size: number) {
  const hash = createHash('sha256');
  const sent = { bytes: 0, sha256: '' };
  async function* chunks() {
    for (let left = size; left > 0;) {
      const chunk = randomBytes(Math.min(left, 256 * 1024));
      hash.update(chunk);
      sent.bytes += chunk.length;
      left -= chunk.length;
      yield chunk;
    }
    sent.sha256 = hash.digest('hex');
  }
  return { body: Readable.from(chunks()), sent };
}

/** A body that sends `before` bytes, then fails as a refused or dropped upload does. */
function failingAfter(before: number): Readable {
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= before) {
        this.destroy(new Error('upload cut short'));
        return;
      }
      const chunk = randomBytes(Math.min(MiB, before - sent));
      sent += chunk.length;
      this.push(chunk);
    },
  });
}

/** The stored object's size and SHA-256, read back as a stream. */
async function stored(key: string) {
  const res = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of res.Body as Readable) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { bytes, sha256: hash.digest('hex') };
}

/** Whatever the bucket holds under `key`: complete objects and multipart uploads not completed. */
async function leftUnder(key: string) {
  const objects = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: key }));
  const uploads = await client.send(new ListMultipartUploadsCommand({ Bucket: bucket, Prefix: key }));
  return {
    objects: (objects.Contents ?? []).map((o) => o.Key),
    uploads: (uploads.Uploads ?? []).map((u) => u.Key),
  };
}

describe('the S3 adapter against moto_server', () => {
  it('stores a small file in one PutObject, byte for byte', async () => {
    const key = newKey();
    const bytes = png(16, 16);
    await storage.put(key, Readable.from([bytes]));
    const res = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    expect(Buffer.from(await res.Body!.transformToByteArray())).toEqual(bytes);
    expect((await stored(key)).sha256).toBe(sha256(bytes));
  });

  it('streams a file larger than a part through a multipart upload, and stores every byte', async () => {
    const key = newKey();
    const { body, sent } = generated(11 * MiB); // three parts: 5 + 5 + 1 MiB
    await storage.put(key, body);
    expect(sent.bytes).toBe(11 * MiB);
    expect(await stored(key)).toEqual({ bytes: 11 * MiB, sha256: sent.sha256 });
    // An object made by a multipart upload has an ETag of `<md5 of the parts' md5s>-<part count>`.
    const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    expect(head.ETag).toMatch(/-3"$/);
    expect(head.ContentLength).toBe(11 * MiB);
    expect(await leftUnder(key)).toEqual({ objects: [key], uploads: [] });
  });

  it('presigns download URLs a plain fetch gets, with the type and disposition of the file', async () => {
    const key = newKey();
    const doc = Buffer.from('%PDF-1.4\n%%EOF\n');
    await storage.put(key, Readable.from([doc]));
    const expiresAt = new Date(Date.now() + 120_000);
    const pdfUrl = await storage.downloadUrl({
      key,
      fileId: 'f',
      name: 'relatório 2025.pdf',
      mimeType: 'application/pdf',
      expiresAt,
    });
    const res = await fetch(pdfUrl);
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer())).toEqual(doc);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toBe(
      `attachment; filename="relat?rio 2025.pdf"; filename*=UTF-8''relat%C3%B3rio%202025.pdf`,
    );

    const imageKey = newKey();
    const image = png(8, 8);
    await storage.put(imageKey, Readable.from([image]));
    const imageUrl = await storage.downloadUrl({
      key: imageKey,
      fileId: 'i',
      name: 'capa.png',
      mimeType: 'image/png',
      expiresAt,
    });
    const imageRes = await fetch(imageUrl);
    expect(imageRes.status).toBe(200);
    expect(Buffer.from(await imageRes.arrayBuffer())).toEqual(image);
    expect(imageRes.headers.get('content-type')).toBe('image/png');
    expect(imageRes.headers.get('content-disposition')).toBe('inline; filename=capa.png');
  });

  it('presigns a URL for the lifetime asked, one second at least', async () => {
    const key = newKey();
    await storage.put(key, Readable.from([Buffer.from('%PDF-1.4\n')]));
    const url = new URL(
      await storage.downloadUrl({
        key,
        fileId: 'f',
        name: 'a.pdf',
        mimeType: 'application/pdf',
        expiresAt: new Date(Date.now() + 1000),
      }),
    );
    expect(url.searchParams.get('X-Amz-Expires')).toBe('1');
    expect(url.pathname).toBe(`/${bucket}/${key}`);
    // Served within its lifetime. After it, S3 answers 403 "Request has expired"; moto_server (5.2.5)
    // does not check X-Amz-Expires (nor the signature) on presigned GETs and would still serve it, so
    // the expiry itself is not asserted here (test/unit/files.test.ts checks what the URL says).
    expect((await fetch(url)).status).toBe(200);
  });

  it('rejects a put whose body fails midway and leaves neither the object nor its multipart upload', async () => {
    const key = newKey();
    // 8 MiB before the failure: the first 5 MiB part has been read, so a multipart upload has begun.
    await expect(storage.put(key, failingAfter(8 * MiB))).rejects.toThrow('upload cut short');
    expect(await leftUnder(key)).toEqual({ objects: [], uploads: [] });
  });

  it('rejects a put whose body fails within the first part, leaving nothing', async () => {
    const key = newKey();
    await expect(storage.put(key, failingAfter(2 * MiB))).rejects.toThrow('upload cut short');
    expect(await leftUnder(key)).toEqual({ objects: [], uploads: [] });
  });

  it('deletes the object; deleting it again is no error', async () => {
    const key = newKey();
    await storage.put(key, Readable.from([Buffer.from('bytes')]));
    expect((await leftUnder(key)).objects).toEqual([key]);
    await storage.delete(key);
    expect(await leftUnder(key)).toEqual({ objects: [], uploads: [] });
    await expect(client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }))).rejects.toMatchObject({
      name: 'NotFound',
    });
    await expect(storage.delete(key)).resolves.toBeUndefined();
  });
});

describe('the Files API with FILES_STORAGE=s3 (moto_server)', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startApi({
      FILES_STORAGE: 's3',
      FILES_S3_BUCKET: bucket,
      FILES_S3_REGION: region,
      FILES_S3_ENDPOINT: endpoint,
      FILES_S3_FORCE_PATH_STYLE: 'true',
      FILES_S3_ACCESS_KEY_ID: credentials.accessKeyId,
      FILES_S3_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    });
  });
  afterAll(async () => {
    await api?.close();
  });

  it('uploads to the bucket, serves the file from a presigned bucket URL, and deletes it', async () => {
    const tenant = await makeTenant(api.orm);
    const bytes = png(64, 64);
    const body = multipart({ filename: 'cover.png', type: 'image/png', data: bytes });
    const created = await api.call('POST', '/api/v1/files/', {
      token: tenant.oat,
      raw: body.raw,
      headers: body.headers,
    });
    expect(created.status).toBe(201);
    const file = created.body;
    const key = `${tenant.org.id}/${file.id}`;
    expect(file.checksum_sha256).toBe(sha256(bytes));
    expect(await stored(key)).toEqual({ bytes: bytes.length, sha256: sha256(bytes) });

    // The URL goes to the bucket, not the API.
    expect(file.download_url.startsWith(`${endpoint}/${bucket}/${key}?`)).toBe(true);
    const res = await fetch(file.download_url);
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer())).toEqual(bytes);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('content-disposition')).toBe('inline; filename=cover.png');

    expect((await api.call('DELETE', `/api/v1/files/${file.id}`, { token: tenant.oat })).status).toBe(204);
    expect(await leftUnder(key)).toEqual({ objects: [], uploads: [] });
  });
});
