import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startApi, type TestApi } from '../helpers/api.ts';
import { makeTenant } from '../helpers/fixtures.ts';
import { download, multipart, pdf, png, sha256, type Part } from '../helpers/uploads.ts';

/**
 * What a file is for (`?purpose=` on upload): product media are images a product shows; a
 * downloadable (what a product delivers) may be any type, checked by its bytes where the type is one
 * they reveal. Against the real API, PostgreSQL and a local-disk folder of this run.
 */
const LIMIT = 64 * 1024;
let dir: string;
let api: TestApi;
type Tenant = Awaited<ReturnType<typeof makeTenant>>;
let A: Tenant;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'billing-file-purposes-'));
  api = await startApi({ FILES_LOCAL_DIR: dir, FILES_MAX_BYTES: String(LIMIT) });
  A = await makeTenant(api.orm);
});
afterAll(async () => {
  await api.close();
  await rm(dir, { recursive: true, force: true });
});

const upload = (part: Part, query = '', tenant = A) => {
  const body = multipart(part);
  return api.call('POST', `/api/v1/files/${query}`, { token: tenant.oat, raw: body.raw, headers: body.headers });
};

/** What the organization has: its rows (with their purpose), and the files in its folder. */
async function holdings(tenant: Tenant) {
  const rows = await api.orm.em
    .getConnection()
    .execute('select mime_type, purpose from files where organization_id = ? order by created_at', [tenant.org.id]);
  const onDisk = await readdir(path.join(dir, tenant.org.id)).catch(() => [] as string[]);
  return { rows, onDisk: onDisk.length };
}

const text = Buffer.from('Chapter 1\nIt was a dark and stormy night.\n');

describe('file purposes', () => {
  it('a downloadable of any type: a text file is kept under its declared type and served as an attachment', async () => {
    const tenant = await makeTenant(api.orm);
    const res = await upload({ filename: 'book.txt', type: 'text/plain', data: text }, '?purpose=downloadable', tenant);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'book.txt',
      mime_type: 'text/plain',
      purpose: 'downloadable',
      size: text.length,
      checksum_sha256: sha256(text),
    });
    const got = await download(api.baseUrl, res.body.download_url);
    expect(got.status).toBe(200);
    expect(got.bytes).toEqual(text);
    expect(got.headers).toMatchObject({
      'content-type': expect.stringMatching(/^text\/plain/),
      'content-disposition': 'attachment; filename=book.txt',
      'x-content-type-options': 'nosniff',
    });
    const csv = await upload(
      { filename: 'list.csv', type: 'text/csv', data: Buffer.from('a,b\n1,2\n') },
      '?purpose=downloadable',
      tenant,
    );
    expect(csv.status).toBe(201);
    expect(csv.body.mime_type).toBe('text/csv');
    const read = await api.call('GET', `/api/v1/files/${res.body.id}`, { token: tenant.oat });
    expect(read.body.purpose).toBe('downloadable');
    expect(await holdings(tenant)).toEqual({
      rows: [
        { mime_type: 'text/plain', purpose: 'downloadable' },
        { mime_type: 'text/csv', purpose: 'downloadable' },
      ],
      onDisk: 2,
    });
  });

  it('a downloadable whose bytes are of a known type keeps that type, and an image is a download like any other', async () => {
    const doc = await upload(
      { filename: 'manual.pdf', type: 'application/octet-stream', data: pdf() },
      '?purpose=downloadable',
    );
    expect(doc.status).toBe(201);
    expect(doc.body).toMatchObject({ mime_type: 'application/pdf', purpose: 'downloadable' });
    const picture = await upload({ filename: 'p.png', type: 'image/png', data: png(4, 4) }, '?purpose=downloadable');
    expect(picture.status).toBe(201);
    expect(picture.body).toMatchObject({ mime_type: 'image/png', purpose: 'downloadable' });
  });

  it.each([
    ['text as product media', { filename: 'book.txt', type: 'text/plain', data: text }, ''],
    [
      'a PDF as product media',
      { filename: 'manual.pdf', type: 'application/pdf', data: pdf() },
      '?purpose=product_media',
    ],
    [
      'a downloadable declared PNG whose bytes are text',
      { filename: 'x.png', type: 'image/png', data: text },
      '?purpose=downloadable',
    ],
    [
      'a downloadable declared PDF whose bytes are a PNG',
      { filename: 'x.pdf', type: 'application/pdf', data: png(4, 4) },
      '?purpose=downloadable',
    ],
    [
      'an empty downloadable',
      { filename: 'empty.txt', type: 'text/plain', data: Buffer.alloc(0) },
      '?purpose=downloadable',
    ],
  ])('answers 415 to %s, keeping nothing', async (_case, part, query) => {
    const tenant = await makeTenant(api.orm);
    const res = await upload(part, query, tenant);
    expect(res.status).toBe(415);
    expect(res.body).toMatchObject({ code: 'unsupported_file_type' });
    expect(await holdings(tenant)).toEqual({ rows: [], onDisk: 0 });
  });

  it('answers 400 to a purpose it does not know, keeping nothing', async () => {
    const tenant = await makeTenant(api.orm);
    const res = await upload({ filename: 'book.txt', type: 'text/plain', data: text }, '?purpose=avatar', tenant);
    expect(res.status).toBe(400);
    expect(res.body.detail).toContain('purpose');
    expect(await holdings(tenant)).toEqual({ rows: [], onDisk: 0 });
  });

  it('a downloadable over FILES_MAX_BYTES is refused (413), keeping nothing', async () => {
    const tenant = await makeTenant(api.orm);
    const big = Buffer.alloc(LIMIT + 1, 'a');
    const res = await upload({ filename: 'big.txt', type: 'text/plain', data: big }, '?purpose=downloadable', tenant);
    expect(res.status).toBe(413);
    expect(await holdings(tenant)).toEqual({ rows: [], onDisk: 0 });
  });
});
