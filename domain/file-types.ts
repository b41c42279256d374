/**
 * What an uploaded file may be, and what its name becomes. The type a client declares is only a
 * claim: the bytes decide (their magic number, read by the API), and the two must agree.
 */

/**
 * What a file is for, chosen at upload: product media (shown on a product page: raster images only,
 * never SVG, which can carry scripts) or a downloadable (what a product delivers: any type).
 */
export const FILE_PURPOSES = ['product_media', 'downloadable'] as const;
export type FilePurpose = (typeof FILE_PURPOSES)[number];

/** The types product media may be, each recognised by its bytes. */
export const MEDIA_FILE_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif', 'image/avif'] as const;

/**
 * Types whose bytes are always recognised (their magic number): a file declared as one of them must
 * be one. Other declared types (text, CSV, source code...) have no magic number to check.
 */
const RECOGNISED_TYPES: readonly string[] = [
  ...MEDIA_FILE_TYPES,
  'application/pdf',
  'application/zip',
  'application/gzip',
  'application/x-7z-compressed',
  'application/epub+zip',
  'audio/mpeg',
  'video/mp4',
];

/**
 * Declarations that say nothing: what curl and many clients send when they do not know, and what a
 * multipart part without a Content-Type is taken to be (RFC 7578, 4.4). The bytes then decide alone.
 */
const UNKNOWN_TYPES = ['application/octet-stream', 'text/plain'];

const ALIASES: Record<string, string> = { 'image/jpg': 'image/jpeg', 'image/pjpeg': 'image/jpeg' };

/** A media type's essence as RFC 9110 writes it (`type/subtype`, token characters only). */
const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,62}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;

/** `Image/JPG; charset=x` → `image/jpeg`. */
export function normalizeMimeType(declared: string): string {
  const essence = declared.split(';')[0]!.trim().toLowerCase();
  return ALIASES[essence] ?? essence;
}

/** Product media are these images (a product's `medias`, shown inline). */
export const isMediaType = (mimeType: string) => (MEDIA_FILE_TYPES as readonly string[]).includes(mimeType);

/** What a 415 lists as accepted for the purpose. */
export const acceptedTypesOf = (purpose: FilePurpose) =>
  purpose === 'product_media' ? MEDIA_FILE_TYPES.join(', ') : 'any type whose bytes are what it declares';

/** A declared type worth reading the bytes for: one the purpose allows, or one that says nothing. */
export function declaredTypeAcceptable(purpose: FilePurpose, declared: string): boolean {
  const type = normalizeMimeType(declared);
  if (UNKNOWN_TYPES.includes(type)) return true;
  return purpose === 'product_media' ? isMediaType(type) : MEDIA_TYPE.test(type);
}

/**
 * The file's type from what the client declared and what the bytes are (undefined: no known magic
 * number). Recognised bytes decide, and the declaration must agree or say nothing; bytes of no known
 * type are taken as declared, unless the declared type is one whose bytes would have been recognised.
 * Product media must be one of MEDIA_FILE_TYPES. Null when the file is refused.
 */
export function acceptedFileType(purpose: FilePurpose, declared: string, detected: string | undefined): string | null {
  const type = normalizeMimeType(declared);
  const unknown = UNKNOWN_TYPES.includes(type);
  if (purpose === 'product_media') {
    if (detected === undefined || !isMediaType(detected)) return null;
    return unknown || type === detected ? detected : null;
  }
  if (detected !== undefined) return unknown || type === detected ? detected : null;
  if (!declaredTypeAcceptable(purpose, declared) || RECOGNISED_TYPES.includes(type)) return null;
  return type === 'text/plain' || !unknown ? type : 'application/octet-stream';
}

export const MAX_FILE_NAME_LENGTH = 255;

/**
 * The name a file is listed and downloaded under: the last segment of what the client sent (a
 * browser may send a whole path), without control characters, at most 255 characters.
 */
export function cleanFileName(sent: string | undefined): string {
  const last = (sent ?? '').split(/[/\\]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex -- removing control characters is the point
  const clean = last.replace(/[\u0000-\u001f\u007f]/g, '').trim();
  return [...clean].slice(0, MAX_FILE_NAME_LENGTH).join('') || 'file';
}
