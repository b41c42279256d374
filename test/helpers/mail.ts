import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

/** A mail as the outbox or a test SMTP server holds it: its headers (lower-case names) and decoded text. */
export interface ReadMail {
  file?: string;
  headers: Record<string, string>;
  to: string[];
  text: string;
  /** The HTML part, when the mail has one beside its text (multipart/alternative). */
  html?: string;
}

/**
 * Reads a message as nodemailer writes one (folded headers, 7bit or quoted-printable): a single text
 * part, or a multipart/alternative one of a text and an HTML part.
 */
export function readMail(raw: string): ReadMail {
  const [head, ...rest] = raw.replaceAll('\r\n', '\n').split('\n\n');
  const headers: Record<string, string> = {};
  for (const line of head!.replace(/\n[ \t]+/g, ' ').split('\n')) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  let text = rest.join('\n\n');
  const boundary = /^multipart\/alternative;.*boundary="?([^";]+)"?/i.exec(headers['content-type'] ?? '')?.[1];
  if (boundary) {
    // Each part lies between two delimiters; the newline before a delimiter belongs to it (RFC 2046).
    const parts = text
      .split(`--${boundary}`)
      .slice(1, -1)
      .map((part) => readMail(part.slice(1, -1)));
    const of = (type: string) => parts.find((p) => p.headers['content-type']?.startsWith(type))?.text;
    return {
      headers,
      to: (headers.to ?? '').split(',').map((a) => a.trim()),
      text: of('text/plain') ?? '',
      html: of('text/html'),
    };
  }
  if (headers['content-transfer-encoding'] === 'quoted-printable') {
    const ascii = text.replace(/=\n/g, '');
    const bytes: number[] = [];
    for (let i = 0; i < ascii.length; i++) {
      if (ascii[i] !== '=') bytes.push(ascii.charCodeAt(i));
      else bytes.push(parseInt(ascii.slice(i + 1, (i += 2) + 1), 16));
    }
    text = Buffer.from(bytes).toString('utf8');
  }
  return { headers, to: (headers.to ?? '').split(',').map((a) => a.trim()), text };
}

/** Every mail in an outbox folder (none when the folder does not exist yet), oldest first. */
export async function outboxMails(dir: string): Promise<ReadMail[]> {
  const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => n.endsWith('.eml')).sort();
  return Promise.all(
    names.map(async (name) => ({ ...readMail(await readFile(path.join(dir, name), 'utf8')), file: name })),
  );
}
