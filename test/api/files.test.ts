import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { signDownload } from '../../storage/signed-urls.ts';
import { startApi, type TestApi } from '../helpers/api.ts';
import { makeApiKey, makeOat, makeTenant, unique } from '../helpers/fixtures.ts';
import { download, multipart, pdf, png, sha256, type Part } from '../helpers/uploads.ts';

/** The Files group against the real API, PostgreSQL and a local-disk folder of this run. */
const LIMIT = 64 * 1024;
const EXPIRY_SECONDS = 600;
let dir: string;
let api: TestApi;
type Tenant = Awaited<ReturnType<typeof makeTenant>>;
let A: Tenant;
let B: Tenant;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'billing-files-'));
  api = await startApi({
    FILES_LOCAL_DIR: dir,
    FILES_MAX_BYTES: String(LIMIT),
    FILES_URL_EXPIRY_SECONDS: String(EXPIRY_SECONDS),
  });
  A = await makeTenant(api.orm);
  B = await makeTenant(api.orm);
});
afterAll(async () => {
  await api.close();
  await rm(dir, { recursive: true, force: true });
});

const rawUpload = (part: Part, headers: Record<string, string> = {}) => {
  const body = multipart(part);
  return { raw: body.raw, headers: { ...body.headers, ...headers } };
};
const upload = (part: Part, token = A.oat, headers: Record<string, string> = {}) =>
  api.call('POST', '/api/v1/files/', { token, ...rawUpload(part, headers) });
const image = (data = png(40, 40), filename = 'cover.png') => ({ filename, type: 'image/png', data });

async function uploaded(part: Part = image(), tenant = A) {
  const res = await upload(part, tenant.oat);
  expect(res.status).toBe(201);
  return res.body;
}

/** What the organization has: its rows, and every file (complete or partial) in its folder. */
async function holdings(tenant: Tenant) {
  const rows = await api.orm.em
    .getConnection()
    .execute('select id from files where organization_id = ?', [tenant.org.id]);
  const onDisk = await readdir(path.join(dir, tenant.org.id)).catch(() => [] as string[]);
  return { rows: rows.length, onDisk: onDisk.length };
}

describe('upload and download', () => {
  it('streams the file to disk with its checksum, and its signed URL serves the same bytes', async () => {
    const bytes = png(40, 40);
    const before = Date.now();
    const res = await upload({ filename: 'C:\\photos\\cover.png', type: 'image/png', data: bytes });
    expect(res.status).toBe(201);
    const file = res.body;
    expect(file).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      organization_id: A.org.id,
      name: 'cover.png',
      mime_type: 'image/png',
      purpose: 'product_media',
      size: bytes.length,
      checksum_sha256: sha256(bytes),
      created_at: expect.any(String),
      download_url: expect.stringContaining(`/api/v1/files/${file.id}/download?expires=`),
      download_url_expires_at: expect.any(String),
    });
    const expiresAt = Date.parse(file.download_url_expires_at);
    // Whole seconds rounded up: the URL lives EXPIRY_SECONDS at least, and less than one more.
    expect(expiresAt).toBeGreaterThanOrEqual(before + EXPIRY_SECONDS * 1000);
    expect(expiresAt).toBeLessThan(Date.now() + (EXPIRY_SECONDS + 1) * 1000);
    expect(new URL(file.download_url).searchParams.get('expires')).toBe(String(expiresAt / 1000));
    expect(await readFile(path.join(dir, A.org.id, file.id))).toEqual(bytes);

    const got = await download(api.baseUrl, file.download_url);
    expect(got.status).toBe(200);
    expect(got.bytes).toEqual(bytes);
    expect(sha256(got.bytes)).toBe(file.checksum_sha256);
    expect(got.headers).toMatchObject({
      'content-type': 'image/png',
      'content-length': String(bytes.length),
      'content-disposition': 'inline; filename=cover.png',
      'x-content-type-options': 'nosniff',
      'repr-digest': `sha-256=:${Buffer.from(file.checksum_sha256, 'hex').toString('base64')}:`,
    });
  });

  it('takes a file smaller than the type sample, a PDF download, and application/octet-stream (the bytes decide)', async () => {
    const tiny = await uploaded({ filename: 'dot.png', type: 'application/octet-stream', data: png(2, 2) });
    expect(tiny.mime_type).toBe('image/png');
    const res = await api.call('POST', '/api/v1/files/?purpose=downloadable', {
      token: A.oat,
      ...rawUpload({ filename: 'manual.pdf', type: 'application/pdf', data: pdf() }),
    });
    expect(res.status).toBe(201);
    const doc = res.body;
    expect(doc).toMatchObject({ mime_type: 'application/pdf', size: pdf().length, checksum_sha256: sha256(pdf()) });
    const got = await download(api.baseUrl, doc.download_url);
    expect(got.bytes).toEqual(pdf());
    expect(got.headers['content-disposition']).toBe('attachment; filename=manual.pdf');
  });

  it('replays an upload sent again with the same Idempotency-Key, storing nothing new', async () => {
    const key = unique('upload');
    const part = image();
    const first = await upload(part, A.oat, { 'idempotency-key': key });
    const before = await holdings(A);
    const again = await upload(part, A.oat, { 'idempotency-key': key });
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    expect(await holdings(A)).toEqual(before);
  });

  it('refuses an Idempotency-Key sent again with other bytes or another name, keeping nothing of it', async () => {
    const key = unique('upload');
    const part = image();
    expect((await upload(part, A.oat, { 'idempotency-key': key })).status).toBe(201);
    const before = await holdings(A);
    for (const other of [image(), image(part.data, 'back.png')]) {
      const res = await upload(other, A.oat, { 'idempotency-key': key });
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ code: 'idempotency_key_mismatch' });
      expect(await holdings(A)).toEqual(before);
    }
  });

  it('leaves the Idempotency-Key of a refused upload free for the upload that follows', async () => {
    const key = unique('upload');
    const refused = await upload({ filename: 'notes.txt', type: 'text/plain', data: Buffer.from('hello') }, A.oat, {
      'idempotency-key': key,
    });
    expect(refused.status).toBe(415);
    const res = await upload(image(), A.oat, { 'idempotency-key': key });
    expect(res.status).toBe(201);
    expect(res.headers['idempotent-replayed']).toBeUndefined();
  });
});

describe('signed download URLs', () => {
  it('refuses a URL past its expiry, even with a right signature', async () => {
    const file = await uploaded();
    const past = signDownload(api.config.filesUrlSigningSecret, file.id, new Date(Date.now() - 1000));
    const res = await download(
      api.baseUrl,
      `${api.baseUrl}/api/v1/files/${file.id}/download?expires=${past.expires}&signature=${past.signature}`,
    );
    expect(res.status).toBe(403);
    expect(res.json).toMatchObject({ code: 'download_url_expired', error: 'Download URL expired' });
  });

  it('expires on its own once FILES_URL_EXPIRY_SECONDS have passed', async () => {
    const quick = await startApi({ FILES_LOCAL_DIR: dir, FILES_URL_EXPIRY_SECONDS: '1' });
    try {
      const { body: file } = await quick.call('POST', '/api/v1/files/', { token: A.oat, ...multipart(image()) });
      expect((await download(quick.baseUrl, file.download_url)).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, Date.parse(file.download_url_expires_at) - Date.now() + 50));
      expect((await download(quick.baseUrl, file.download_url)).json).toMatchObject({ code: 'download_url_expired' });
    } finally {
      await quick.close();
    }
  });

  it('refuses a tampered URL: a later expiry, another signature, another file’s signature', async () => {
    const file = await uploaded();
    const other = await uploaded();
    const url = new URL(file.download_url);
    const tamper = (change: (params: URLSearchParams) => void) => {
      const copy = new URL(url);
      change(copy.searchParams);
      return download(api.baseUrl, copy.toString());
    };
    const signature = url.searchParams.get('signature')!;
    const attempts = [
      await tamper((p) => p.set('expires', String(Number(p.get('expires')) + 3600))),
      await tamper((p) => p.set('signature', (signature[0] === 'A' ? 'B' : 'A') + signature.slice(1))),
      await tamper((p) => p.set('signature', new URL(other.download_url).searchParams.get('signature')!)),
      await download(api.baseUrl, file.download_url.replace(file.id, other.id)),
    ];
    for (const res of attempts) {
      expect(res.status).toBe(403);
      expect(res.json).toMatchObject({ code: 'invalid_signature' });
    }
    expect((await download(api.baseUrl, file.download_url)).status).toBe(200);
  });
});

describe('limits', () => {
  it('answers 413 to a file over FILES_MAX_BYTES refused mid-stream, leaving no bytes and no row', async () => {
    const tenant = await makeTenant(api.orm);
    const big = png(150, 150); // over 64 KiB, within the Content-Length allowance: refused while streaming
    expect(big.length).toBeGreaterThan(LIMIT);
    const res = await upload(image(big), tenant.oat);
    expect(res.status).toBe(413);
    expect(res.headers.connection).toBe('close'); // the rest of the body is never read
    expect(res.body).toEqual({
      error: 'File too large',
      code: 'file_too_large',
      detail: `The largest file accepted is ${LIMIT} bytes`,
    });
    expect(await holdings(tenant)).toEqual({ rows: 0, onDisk: 0 });
    // At the limit exactly is fine (a PNG padded with zeros).
    const head = png(4, 4);
    const ok = await upload({ ...image(), data: Buffer.concat([head, Buffer.alloc(LIMIT - head.length)]) }, tenant.oat);
    expect(ok.status).toBe(201);
    expect(ok.body.size).toBe(LIMIT);
  });

  it('answers 413 at once when the Content-Length alone is over the limit', async () => {
    const tenant = await makeTenant(api.orm);
    const res = await upload(image(png(300, 300)), tenant.oat);
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('file_too_large');
    expect(await holdings(tenant)).toEqual({ rows: 0, onDisk: 0 });
  });

  it.each([
    ['a declared type not allowed', { filename: 'page.html', type: 'text/html', data: Buffer.from('<p>hi</p>') }],
    ['text of no declared type', { filename: 'notes.txt', type: 'text/plain', data: Buffer.from('hello') }],
    ['SVG (it can carry scripts)', { filename: 'logo.svg', type: 'image/svg+xml', data: Buffer.from('<svg/>') }],
    ['bytes that are not the declared type', { filename: 'x.png', type: 'image/png', data: pdf() }],
    ['bytes of no known type', { filename: 'x.bin', type: 'application/octet-stream', data: Buffer.alloc(9000, 7) }],
    ['an empty file', { filename: 'empty.png', type: 'image/png', data: Buffer.alloc(0) }],
  ])('answers 415 to %s, leaving no bytes and no row', async (_case, part) => {
    const tenant = await makeTenant(api.orm);
    const res = await upload(part, tenant.oat);
    expect(res.status).toBe(415);
    expect(res.headers.connection).toBe('close');
    expect(res.body).toMatchObject({ code: 'unsupported_file_type', error: 'Unsupported file type' });
    expect(res.body.detail).toContain('image/png, image/jpeg');
    expect(await holdings(tenant)).toEqual({ rows: 0, onDisk: 0 });
  });

  it('answers 415 to a body that is not multipart, and 400 to a form without a `file` part', async () => {
    const json = await api.call('POST', '/api/v1/files/', { token: A.oat, body: { file: 'x' } });
    expect(json.status).toBe(415);
    expect(json.body).toMatchObject({
      code: 'unsupported_media_type',
      error: 'Content-Type must be multipart/form-data',
    });
    const raw = await api.call('POST', '/api/v1/files/', {
      token: A.oat,
      raw: png(4, 4),
      headers: { 'content-type': 'image/png' },
    });
    expect(raw.status).toBe(415);
    const misnamed = await upload({ ...image(), name: 'upload' });
    expect(misnamed.status).toBe(400);
    expect(misnamed.body.detail).toBe('Name the part `file`, not `upload`');
  });
});

describe('malformed bodies and a failing storage', () => {
  const whole = multipart(image(png(150, 150)));
  const boundary = 'multipart/form-data; boundary=xyz';
  it.each([
    ['no boundary', Buffer.from('hello'), 'multipart/form-data', 'Multipart: Boundary not found'],
    ['no part', Buffer.from('hello world'), boundary, 'Unexpected end of multipart data'],
    [
      'cut in the file’s header',
      whole.raw.subarray(0, 2000),
      whole.headers['content-type']!,
      'Unexpected end of multipart data',
    ],
    ['cut mid-file', whole.raw.subarray(0, 50_000), whole.headers['content-type']!, 'Unexpected end of multipart data'],
  ])('answers 400 to a body with %s, leaving nothing', async (_case, raw, type, detail) => {
    const tenant = await makeTenant(api.orm);
    const res = await api.call('POST', '/api/v1/files/', { token: tenant.oat, raw, headers: { 'content-type': type } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'Malformed multipart body', code: 'invalid_multipart', detail });
    expect(await holdings(tenant)).toEqual({ rows: 0, onDisk: 0 });
  });

  it('answers a storage that cannot write with 500 (no detail) and records nothing', async () => {
    const notADir = path.join(dir, 'not-a-folder');
    await writeFile(notADir, 'x');
    const broken = await startApi({ FILES_LOCAL_DIR: notADir });
    try {
      const tenant = await makeTenant(api.orm);
      const res = await broken.call('POST', '/api/v1/files/', {
        token: tenant.oat,
        ...multipart(image(png(300, 300))),
      });
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ error: 'Internal server error', code: 'internal_error' });
      expect(await holdings(tenant)).toEqual({ rows: 0, onDisk: 0 });
    } finally {
      await broken.close();
    }
  });
});

describe('organizations', () => {
  it('never shows, lists, downloads the URL of, or deletes another organization’s file', async () => {
    const file = await uploaded();
    expect((await api.call('GET', `/api/v1/files/${file.id}`, { token: B.oat })).status).toBe(404);
    expect((await api.call('DELETE', `/api/v1/files/${file.id}`, { token: B.oat })).status).toBe(404);
    const listed = await api.call('GET', '/api/v1/files/?limit=100', { token: B.oat });
    expect(listed.body.items.map((f: any) => f.id)).not.toContain(file.id);
    expect((await api.call('GET', `/api/v1/files/${file.id}`, { token: A.oat })).status).toBe(200);
  });

  it('lists the organization’s files paginated, newest first by default, sorted by size on request', async () => {
    const tenant = await makeTenant(api.orm);
    const small = await uploaded(image(png(2, 2)), tenant);
    const large = await uploaded(image(png(60, 60)), tenant);
    const medium = await uploaded(image(png(20, 20)), tenant);
    const page = await api.call('GET', '/api/v1/files/?limit=2', { token: tenant.oat });
    expect(page.status).toBe(200);
    expect(page.body.pagination).toEqual({ total_count: 3, max_page: 2 });
    expect(page.body.items.map((f: any) => f.id)).toEqual([medium.id, large.id]);
    expect(page.body.items[0].download_url).toContain(`/api/v1/files/${medium.id}/download`);
    const bySize = await api.call('GET', '/api/v1/files/?sorting=-size', { token: tenant.oat });
    expect(bySize.body.items.map((f: any) => f.id)).toEqual([large.id, medium.id, small.id]);
    expect((await api.call('GET', '/api/v1/files/?sorting=mime_type', { token: tenant.oat })).status).toBe(400);
  });
});

describe('DELETE /api/v1/files/:id', () => {
  it('deletes the record and its bytes; its URL then finds nothing', async () => {
    const file = await uploaded();
    expect((await api.call('DELETE', `/api/v1/files/${file.id}`, { token: A.oat })).status).toBe(204);
    expect((await api.call('GET', `/api/v1/files/${file.id}`, { token: A.oat })).status).toBe(404);
    expect((await download(api.baseUrl, file.download_url)).status).toBe(404);
    await expect(readFile(path.join(dir, A.org.id, file.id))).rejects.toThrow(/ENOENT/);
    expect((await api.call('DELETE', `/api/v1/files/${file.id}`, { token: A.oat })).status).toBe(404);
  });
});

describe('product media', () => {
  const product = (tenant: Tenant, medias: string[]) =>
    api.call('POST', '/api/v1/products/', {
      token: tenant.oat,
      body: {
        organization_id: tenant.org.id,
        name: unique('Poster'),
        prices: [{ currency: 'brl', unit_amount: 990 }],
        medias,
      },
    });
  const media = (f: any) => ({
    id: f.id,
    name: f.name,
    mime_type: f.mime_type,
    size: f.size,
    checksum_sha256: f.checksum_sha256,
  });

  it('attaches the organization’s images in order, shows them on every read, and replaces them', async () => {
    const front = await uploaded(image(png(8, 8), 'front.png'));
    const back = await uploaded(image(png(9, 9), 'back.png'));
    const created = await product(A, [back.id, front.id, back.id]);
    expect(created.status).toBe(201);
    expect(created.body.medias).toEqual([media(back), media(front)]);
    const read = await api.call('GET', `/api/v1/products/${created.body.id}`, { token: A.oat });
    expect(read.body.medias).toEqual([media(back), media(front)]);
    const listed = await api.call('GET', '/api/v1/products/?limit=100', { token: A.oat });
    expect(listed.body.items.find((p: any) => p.id === created.body.id).medias).toEqual([media(back), media(front)]);

    // A file a product shows cannot be deleted until the product lets it go.
    const refused = await api.call('DELETE', `/api/v1/files/${back.id}`, { token: A.oat });
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toContain(created.body.id);
    const patched = await api.call('PATCH', `/api/v1/products/${created.body.id}`, {
      token: A.oat,
      body: { medias: [front.id] },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.medias).toEqual([media(front)]);
    const [event] = await api.orm.em
      .getConnection()
      .execute<{ data: any }[]>(
        `select data from events where type = 'product.updated' and data->>'id' = ? order by created_at desc limit 1`,
        [created.body.id],
      );
    expect(event!.data.medias).toEqual([media(front)]);
    expect((await api.call('DELETE', `/api/v1/files/${back.id}`, { token: A.oat })).status).toBe(204);
  });

  it('refuses another organization’s file, an unknown one and a non-image, creating nothing', async () => {
    const theirs = await uploaded(image(), B);
    const doc = (
      await api.call('POST', '/api/v1/files/?purpose=downloadable', {
        token: A.oat,
        ...rawUpload({ filename: 'terms.pdf', type: 'application/pdf', data: pdf() }),
      })
    ).body;
    const countProducts = async () =>
      (await api.call('GET', '/api/v1/products/?limit=1', { token: A.oat })).body.pagination.total_count;
    const before = await countProducts();
    for (const [ids, detail] of [
      [[theirs.id], `medias: no file ${theirs.id} in this organization`],
      [
        ['01900000-0000-7000-8000-000000000000'],
        'medias: no file 01900000-0000-7000-8000-000000000000 in this organization',
      ],
      [[doc.id], `medias: ${doc.id} is not an image`],
    ] as const) {
      const res = await product(A, [...ids]);
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ code: 'invalid_media', detail });
    }
    expect(await countProducts()).toBe(before);
    const mine = await product(A, []);
    const patch = await api.call('PATCH', `/api/v1/products/${mine.body.id}`, {
      token: A.oat,
      body: { medias: [theirs.id] },
    });
    expect(patch.status).toBe(422);
    expect((await api.call('GET', `/api/v1/products/${mine.body.id}`, { token: A.oat })).body.medias).toEqual([]);
  });
});

describe('credentials', () => {
  it('needs files:read to read, files:write to upload and delete, and an admin API key', async () => {
    const file = await uploaded();
    expect((await api.call('GET', '/api/v1/files/')).status).toBe(401);
    expect((await download(api.baseUrl, file.download_url)).status).toBe(200); // the URL is the credential

    const reader = await makeOat(api.orm, A.org.id, ['files:read']);
    expect((await api.call('GET', `/api/v1/files/${file.id}`, { token: reader })).status).toBe(200);
    expect((await upload(image(), reader)).status).toBe(403);
    expect((await api.call('DELETE', `/api/v1/files/${file.id}`, { token: reader })).status).toBe(403);
    const productsOnly = await makeOat(api.orm, A.org.id, ['products:write']);
    expect((await api.call('GET', '/api/v1/files/', { token: productsOnly })).status).toBe(403);
    const writer = await makeOat(api.orm, A.org.id, ['files:write']);
    expect((await upload(image(), writer)).status).toBe(201);

    const readWriteKey = (await makeApiKey(api.orm, A.org.id, { scopes: ['read', 'write'] })).key;
    const denied = await api.call('GET', '/api/v1/files/', { headers: { 'x-service-api-key': readWriteKey } });
    expect(denied.status).toBe(403);
    expect(denied.body.error).toBe('Api key lacks required scope');
    const adminKey = (await makeApiKey(api.orm, A.org.id, { scopes: ['admin'] })).key;
    const body = multipart(image());
    const viaKey = await api.call('POST', '/api/v1/files/', {
      raw: body.raw,
      headers: { ...body.headers, 'x-service-api-key': adminKey },
    });
    expect(viaKey.status).toBe(201);
  });
});

describe('the organization’s logo and colour (profile_settings)', () => {
  const patch = (body: Record<string, unknown>, tenant = A) =>
    api.call('PATCH', `/api/v1/organizations/${tenant.org.id}`, { token: tenant.oat, body });

  it('keeps an image file of the organization as its logo, with its colour', async () => {
    const logo = await uploaded(image(png(16, 16), 'logo.png'));
    const res = await patch({ profile_settings: { brand_color: '#1A237E', logo_file_id: logo.id, theme: 'x' } });
    expect(res.status).toBe(200);
    expect(res.body.profile_settings).toEqual({ brand_color: '#1A237E', logo_file_id: logo.id, theme: 'x' });
  });

  it('refuses another organization’s file, an unknown one and a non-image, changing nothing', async () => {
    const before = (await api.call('GET', `/api/v1/organizations/${A.org.id}`, { token: A.oat })).body;
    const theirs = await uploaded(image(), B);
    const doc = (
      await api.call('POST', '/api/v1/files/?purpose=downloadable', {
        token: A.oat,
        ...rawUpload({ filename: 'terms.pdf', type: 'application/pdf', data: pdf() }),
      })
    ).body;
    for (const [id, detail] of [
      [theirs.id, `profile_settings.logo_file_id: no file ${theirs.id} in this organization`],
      [doc.id, `profile_settings.logo_file_id: ${doc.id} is not an image`],
    ] as const) {
      const res = await patch({ name: 'Renamed', profile_settings: { logo_file_id: id } });
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ code: 'invalid_media', detail });
    }
    const after = (await api.call('GET', `/api/v1/organizations/${A.org.id}`, { token: A.oat })).body;
    expect(after).toEqual(before);
  });

  it('serves a colour’s stylesheet for the pages, with the text colour that reads on it', async () => {
    const navy = await api.call('GET', '/brand/1A237E.css');
    expect(navy.status).toBe(200);
    expect(navy.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(navy.body).toBe(':root{--brand:#1a237e;--brand-ink:#ffffff}\n');
    expect((await api.call('GET', '/brand/ffeb3b.css')).body).toContain('--brand-ink:#000000');
    for (const bad of ['/brand/red.css', '/brand/1a237e.js', '/brand/1a237e0.css']) {
      expect((await api.call('GET', bad)).status).toBe(404);
    }
  });

  it('is 400 for a colour that is not #rrggbb', async () => {
    const res = await patch({ profile_settings: { brand_color: 'red' } });
    expect(res.status).toBe(400);
    expect(res.body.detail).toContain('body.profile_settings.brand_color');
  });
});
