/**
 * What an uploaded file may be, and what its name becomes. The type a client declares is only a
 * claim: the bytes decide (their magic number, read by the API), and the two must agree.
 */

/** Images for product media, and PDF for documents a product delivers. No SVG: it can carry scripts. */
export const ALLOWED_FILE_TYPES = [
  'image/png',
  'image/jpeg',
  'image/webp',
  'image/gif',
  'image/avif',
  'application/pdf',
] as const;
export type AllowedFileType = (typeof ALLOWED_FILE_TYPES)[number];

/**
 * Declarations that say nothing: what curl and many clients send when they do not know, and what a
 * multipart part without a Content-Type is taken to be (RFC 7578, 4.4). The bytes then decide alone.
 */
const UNKNOWN_TYPES = ['application/octet-stream', 'text/plain'];

const ALIASES: Record<string, string> = { 'image/jpg': 'image/jpeg', 'image/pjpeg': 'image/jpeg' };

/** `Image/JPG; charset=x` → `image/jpeg`. */
export function normalizeMimeType(declared: string): string {
  const essence = declared.split(';')[0]!.trim().toLowerCase();
  return ALIASES[essence] ?? essence;
}

export function isAllowedFileType(mimeType: string): mimeType is AllowedFileType {
  return (ALLOWED_FILE_TYPES as readonly string[]).includes(mimeType);
}

/** A declared type worth reading the bytes for: an allowed one, or one that says nothing. */
export function declaredTypeAcceptable(declared: string): boolean {
  const type = normalizeMimeType(declared);
  return UNKNOWN_TYPES.includes(type) || isAllowedFileType(type);
}

/**
 * The file's type from what the client declared and what the bytes are (undefined: no known magic
 * number). Null when the file is refused: bytes of a type not allowed, or not the type declared.
 */
export function acceptedFileType(declared: string, detected: string | undefined): AllowedFileType | null {
  if (detected === undefined || !isAllowedFileType(detected)) return null;
  const type = normalizeMimeType(declared);
  return UNKNOWN_TYPES.includes(type) || type === detected ? detected : null;
}

/** Product media are images. */
export const isImageType = (mimeType: string) => mimeType.startsWith('image/');

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
