import { randomUUID } from 'node:crypto';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import MailComposer from 'nodemailer/lib/mail-composer';
import type { Mailer } from './port.ts';

/**
 * The embedded mailer: each message, composed by nodemailer exactly as SMTP would carry it, is written
 * as an `.eml` file (any mail client opens one; it is plain text) into one folder (`.data/mail`,
 * git-ignored); the notification activity logs its name. Every send is a file of its own, so a message sent
 * twice shows as two files with one Message-ID, as it would in a mailbox. A file is written beside
 * its place and renamed into it, so a reader never sees half a message.
 *
 * Composed by nodemailer's MailComposer itself rather than through a stream transport: the same bytes
 * (Unix newlines), at half the CPU per mail (one mail per sale: docs/performance.md, 2026-11-27).
 */
export function outboxMailer(options: { dir: string; from: string }): Mailer {
  const root = path.resolve(options.dir);
  let made: Promise<unknown> | null = null;
  return {
    kind: 'outbox',
    async send(message) {
      const { to, subject, text, html, messageId, headers } = message;
      const mail = { from: options.from, to, subject, text, html, messageId, headers, newline: 'unix' };
      const composed = new MailComposer(mail).compile();
      const bytes = await composed.build();
      await (made ??= mkdir(root, { recursive: true }).catch((err: unknown) => {
        made = null; // tried again with the next message
        throw err;
      }));
      // Sorts by time; the Message-ID's local part says what it is about.
      const stamp = new Date().toISOString().replaceAll(':', '-');
      const about = messageId.replace(/^<|@.*$/g, '').replace(/[^\w.-]/g, '_');
      const file = path.join(root, `${stamp}-${about}-${randomUUID().slice(0, 8)}.eml`);
      const partial = `${file}.part`;
      try {
        // Not flushed to the disk: a development outbox, where a file lost with the machine's power is no
        // loss, and an fsync per mail cost every sale more than the rest of its notification.
        await writeFile(partial, bytes, { flag: 'wx' });
        await rename(partial, file);
      } catch (err) {
        await rm(partial, { force: true });
        throw err;
      }
      return { messageId: composed.messageId(), where: file };
    },
  };
}
