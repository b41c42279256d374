import { mkdtemp, readdir, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SMTPServer } from 'smtp-server';
import { openMailer } from '../../mailer/index.ts';
import { freePort } from '../../scripts/processes.ts';
import type { MailMessage } from '../../mailer/port.ts';
import { outboxMails, readMail, type ReadMail } from '../helpers/mail.ts';

const message: MailMessage = {
  to: ['ana@example.com', 'bruno@example.com'],
  subject: 'New sale: Course - R$123.45',
  text: 'Acme made a sale.\n\nAmount: R$123.45\nCustomer: Maria Conceição <maria@example.com>\n',
  messageId: '<notification.0190-test@billing.example>',
  headers: { 'X-Billing-Event-Id': '0190-test' },
};

function expectTheMessage(mail: ReadMail, from: string) {
  expect(mail.headers.from).toBe(from);
  expect(mail.to).toEqual(message.to);
  expect(mail.headers.subject).toBe(message.subject);
  expect(mail.headers['message-id']).toBe(message.messageId);
  expect(mail.headers['x-billing-event-id']).toBe('0190-test');
  expect(mail.text.trimEnd()).toBe(message.text.trimEnd());
}

describe('the outbox mailer (the embedded default)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'outbox-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes each message as a readable .eml file in its folder, made when missing, and names it', async () => {
    const folder = path.join(dir, 'mail');
    const mailer = openMailer({ mailer: 'outbox', mailFrom: 'Billing <billing@localhost>', MAIL_OUTBOX_DIR: folder });
    expect(mailer.kind).toBe('outbox');
    const sent = await mailer.send(message);
    expect(sent.messageId).toBe(message.messageId);
    const mails = await outboxMails(folder);
    expect(mails).toHaveLength(1);
    expect(path.join(folder, mails[0]!.file!)).toBe(sent.where);
    expect(mails[0]!.file).toMatch(/^\d{4}-\d\d-\d\dT[\d-]+\.\d+Z-notification\.0190-test-[0-9a-f]{8}\.eml$/);
    expectTheMessage(mails[0]!, 'Billing <billing@localhost>');
  });

  it('keeps every send, so a message sent twice shows twice with one Message-ID; no partial file is left', async () => {
    const folder = path.join(dir, 'twice');
    const mailer = openMailer({ mailer: 'outbox', mailFrom: 'billing@localhost', MAIL_OUTBOX_DIR: folder });
    await mailer.send(message);
    await mailer.send(message);
    const mails = await outboxMails(folder);
    expect(mails.map((m) => m.headers['message-id'])).toEqual([message.messageId, message.messageId]);
    expect((await readdir(folder)).filter((n) => !n.endsWith('.eml'))).toEqual([]);
  });
});

describe('the SMTP mailer, against a local SMTP server', () => {
  const received: { from: string; to: string[]; user: string | undefined; mail: ReadMail }[] = [];
  let refuse = new Set<string>();
  let server: SMTPServer;
  let port: number;
  beforeAll(async () => {
    server = new SMTPServer({
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      onAuth(auth, _session, done) {
        if (auth.username === 'billing' && auth.password === 's3cret') done(null, { user: auth.username });
        else done(new Error('Invalid username or password'));
      },
      onRcptTo(address, _session, done) {
        done(refuse.has(address.address) ? Object.assign(new Error('No such user'), { responseCode: 550 }) : null);
      },
      onData(stream, session, done) {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          received.push({
            from: (session.envelope.mailFrom && session.envelope.mailFrom.address) || '',
            to: session.envelope.rcptTo.map((r) => r.address),
            user: session.user as string | undefined,
            mail: readMail(Buffer.concat(chunks).toString('utf8')),
          });
          done();
        });
      },
      logger: false,
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const smtp = (url: string) =>
    openMailer({
      mailer: 'smtp',
      mailFrom: 'Billing <billing@acme.example>',
      SMTP_URL: url,
      MAIL_OUTBOX_DIR: 'unused',
    });

  it('hands the message to the server, authenticated with the credentials of SMTP_URL', async () => {
    received.length = 0;
    const mailer = smtp(`smtp://billing:s3cret@127.0.0.1:${port}`);
    expect(mailer.kind).toBe('smtp');
    const sent = await mailer.send(message);
    expect(sent.messageId).toBe(message.messageId);
    expect(sent.where).toMatch(/^250 /);
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ from: 'billing@acme.example', to: message.to, user: 'billing' });
    expectTheMessage(received[0]!.mail, 'Billing <billing@acme.example>');
  });

  it('fails when the server refuses the credentials or every recipient, or cannot be reached', async () => {
    received.length = 0;
    await expect(smtp(`smtp://billing:wrong@127.0.0.1:${port}`).send(message)).rejects.toThrow(/Invalid login/i);
    refuse = new Set(message.to);
    await expect(smtp(`smtp://billing:s3cret@127.0.0.1:${port}`).send(message)).rejects.toThrow(/No such user/);
    refuse = new Set();
    await expect(smtp(`smtp://127.0.0.1:${await freePort()}`).send(message)).rejects.toThrow(/ECONNREFUSED/);
    expect(received).toEqual([]);
  });

  it('counts a message some recipients took as sent, naming those refused (a retry would send the others twice)', async () => {
    received.length = 0;
    refuse = new Set(['bruno@example.com']);
    const sent = await smtp(`smtp://billing:s3cret@127.0.0.1:${port}`).send(message);
    refuse = new Set();
    expect(sent.where).toContain('refused: bruno@example.com');
    expect(received.map((r) => r.to)).toEqual([['ana@example.com']]);
  });
});
