import { describe, expect, it } from '@jest/globals';
import { loadConfig } from '../../config/env.ts';
import { acceptedFileType, cleanFileName, declaredTypeAcceptable } from '../../domain/file-types.ts';
import { s3Storage } from '../../storage/s3.ts';
import { checkDownload, signDownload } from '../../storage/signed-urls.ts';

const SECRET = 'k'.repeat(32);
const FILE = '01900000-0000-7000-8000-000000000001';
const now = new Date('2025-06-01T12:00:00Z');

describe('signed download URLs', () => {
  const signed = signDownload(SECRET, FILE, new Date(now.getTime() + 60_000));

  it('are valid until their expiry (whole seconds), then expired', () => {
    expect(signed.expires).toBe(now.getTime() / 1000 + 60);
    expect(checkDownload(SECRET, FILE, signed, now)).toBe('valid');
    expect(checkDownload(SECRET, FILE, signed, new Date(now.getTime() + 59_999))).toBe('valid');
    expect(checkDownload(SECRET, FILE, signed, new Date(now.getTime() + 60_000))).toBe('expired');
  });

  it('are invalid with another secret, file, expiry or signature, whatever the time', () => {
    const later = new Date(now.getTime() + 3_600_000);
    expect(checkDownload('x'.repeat(32), FILE, signed, now)).toBe('invalid');
    expect(checkDownload(SECRET, FILE.replace(/1$/, '2'), signed, now)).toBe('invalid');
    expect(checkDownload(SECRET, FILE, { ...signed, expires: signed.expires + 1 }, now)).toBe('invalid');
    expect(checkDownload(SECRET, FILE, { ...signed, signature: signed.signature.slice(1) }, later)).toBe('invalid');
    expect(checkDownload(SECRET, FILE, { ...signed, expires: Number.NaN }, now)).toBe('invalid');
  });
});

describe('file types', () => {
  it('product media: takes the bytes’ image type when the declared one agrees or is unknown', () => {
    expect(acceptedFileType('product_media', 'image/png', 'image/png')).toBe('image/png');
    expect(acceptedFileType('product_media', 'Image/JPG; name=x', 'image/jpeg')).toBe('image/jpeg');
    expect(acceptedFileType('product_media', 'application/octet-stream', 'image/webp')).toBe('image/webp');
    // A part without a Content-Type is text/plain to the parser (RFC 7578): it says nothing either.
    expect(acceptedFileType('product_media', 'text/plain', 'image/png')).toBe('image/png');
  });

  it('product media: refuses bytes of another type than declared, not an image, or of no known type', () => {
    expect(acceptedFileType('product_media', 'image/png', 'application/pdf')).toBeNull();
    expect(acceptedFileType('product_media', 'application/octet-stream', 'application/pdf')).toBeNull();
    expect(acceptedFileType('product_media', 'application/octet-stream', 'application/zip')).toBeNull();
    expect(acceptedFileType('product_media', 'image/png', undefined)).toBeNull();
    expect(declaredTypeAcceptable('product_media', 'image/svg+xml')).toBe(false);
    expect(declaredTypeAcceptable('product_media', 'text/html')).toBe(false);
    expect(declaredTypeAcceptable('product_media', 'application/pdf')).toBe(false);
  });

  it('downloadables: any type, the bytes deciding where they are of a known type', () => {
    expect(acceptedFileType('downloadable', 'application/pdf', 'application/pdf')).toBe('application/pdf');
    expect(acceptedFileType('downloadable', 'application/octet-stream', 'application/zip')).toBe('application/zip');
    expect(acceptedFileType('downloadable', 'text/plain', undefined)).toBe('text/plain');
    expect(acceptedFileType('downloadable', 'text/csv; charset=utf-8', undefined)).toBe('text/csv');
    expect(acceptedFileType('downloadable', 'application/octet-stream', undefined)).toBe('application/octet-stream');
    expect(declaredTypeAcceptable('downloadable', 'image/svg+xml')).toBe(true);
  });

  it('downloadables: refuse bytes that are not what the part declares, and a declared type that is no type', () => {
    expect(acceptedFileType('downloadable', 'image/png', 'application/pdf')).toBeNull();
    // A PNG or PDF is always recognised by its bytes: these bytes are neither.
    expect(acceptedFileType('downloadable', 'image/png', undefined)).toBeNull();
    expect(acceptedFileType('downloadable', 'application/pdf', undefined)).toBeNull();
    expect(acceptedFileType('downloadable', 'not a type', undefined)).toBeNull();
    expect(declaredTypeAcceptable('downloadable', 'text/html; x="<"')).toBe(true);
    expect(declaredTypeAcceptable('downloadable', '../etc')).toBe(false);
  });

  it('keeps the last segment of a sent name, without control characters', () => {
    expect(cleanFileName('C:\\Users\\me\\cover.png')).toBe('cover.png');
    expect(cleanFileName('../../etc/passwd')).toBe('passwd');
    expect(cleanFileName('a\u0000b\r\n.png')).toBe('ab.png');
    expect(cleanFileName('')).toBe('file');
    expect([...cleanFileName('é'.repeat(300))]).toHaveLength(255);
  });
});

describe('the S3 adapter', () => {
  // Not run against a bucket (none is reachable here): presigning is computed locally.
  it('presigns a GET of the object that names the file and expires when asked', async () => {
    const storage = s3Storage({
      bucket: 'billing-files',
      region: 'sa-east-1',
      endpoint: 'https://s3.example.test',
      forcePathStyle: true,
      credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
    });
    const url = new URL(
      await storage.downloadUrl({
        key: 'org/file',
        fileId: 'file',
        name: 'capa.png',
        mimeType: 'image/png',
        expiresAt: new Date(Date.now() + 300_000),
      }),
    );
    expect(url.origin + url.pathname).toBe('https://s3.example.test/billing-files/org/file');
    expect(url.searchParams.get('X-Amz-Expires')).toBe('300');
    expect(url.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    expect(url.searchParams.get('response-content-type')).toBe('image/png');
    expect(url.searchParams.get('response-content-disposition')).toBe('inline; filename=capa.png');
  });
});

describe('file settings', () => {
  const base = { JWT_SECRET: 'x'.repeat(32) };
  it('default to the local disk, 10 MiB, 10-minute URLs, and a signing key derived per deployment', () => {
    const config = loadConfig(base);
    expect(config).toMatchObject({
      FILES_STORAGE: 'local',
      FILES_LOCAL_DIR: '.data/files',
      FILES_MAX_BYTES: 10 * 1024 * 1024,
      FILES_URL_EXPIRY_SECONDS: 600,
    });
    const other = loadConfig({ ...base, GATEWAY_CALLBACK_SECRET: 'another-callback-secret-0123' });
    expect(other.filesUrlSigningSecret).not.toBe(config.filesUrlSigningSecret);
    expect(loadConfig({ ...base, FILES_URL_SIGNING_SECRET: SECRET }).filesUrlSigningSecret).toBe(SECRET);
  });

  it.each([
    [{ FILES_STORAGE: 's3' }, /FILES_S3_BUCKET: required when FILES_STORAGE is s3/],
    [{ FILES_S3_ACCESS_KEY_ID: 'AKID' }, /FILES_S3_ACCESS_KEY_ID \/ FILES_S3_SECRET_ACCESS_KEY: set both/],
    [{ FILES_STORAGE: 'disk' }, /\n {2}FILES_STORAGE:/],
    [{ FILES_MAX_BYTES: '0' }, /\n {2}FILES_MAX_BYTES:/],
    [{ FILES_URL_EXPIRY_SECONDS: '604801' }, /\n {2}FILES_URL_EXPIRY_SECONDS:/],
    [{ FILES_URL_SIGNING_SECRET: 'short' }, /\n {2}FILES_URL_SIGNING_SECRET:/],
    [{ FILES_S3_ENDPOINT: 'ftp://x' }, /\n {2}FILES_S3_ENDPOINT:/],
    [{ FILES_S3_FORCE_PATH_STYLE: 'yes' }, /\n {2}FILES_S3_FORCE_PATH_STYLE: must be true or false/],
  ])('refuse %j with a message naming the variable', (env, message) => {
    expect(() => loadConfig({ ...base, ...env })).toThrow(message);
  });

  it('configure S3 when the bucket is named', () => {
    const config = loadConfig({
      ...base,
      FILES_STORAGE: 's3',
      FILES_S3_BUCKET: 'b-1',
      FILES_S3_FORCE_PATH_STYLE: 'true',
    });
    expect(config).toMatchObject({
      FILES_STORAGE: 's3',
      FILES_S3_REGION: 'us-east-1',
      FILES_S3_FORCE_PATH_STYLE: true,
    });
  });
});
