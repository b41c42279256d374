import { createTransport } from 'nodemailer';
import type { Mailer } from './port.ts';

/**
 * Shorter than the notification activity's one-minute limit, so a stuck attempt gives up (and is
 * retried) on its own rather than run on beside the retry Temporal starts.
 */
const TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };

/**
 * Mail through an SMTP server (`SMTP_URL`, as nodemailer reads it: `smtps://` for TLS, `smtp://` with
 * STARTTLS when the server offers it, credentials in the URL). One connection per message: a
 * notification is one message per sale, far below what a connection pool would pay for.
 */
export function smtpMailer(options: { url: string; from: string }): Mailer {
  const transport = createTransport({ url: options.url, ...TIMEOUTS });
  return {
    kind: 'smtp',
    async send(message) {
      const { to, subject, text, html, messageId, headers } = message;
      const sent = await transport.sendMail({ from: options.from, to, subject, text, html, messageId, headers });
      // Some recipients refused and others taken is still a sent message: a retry would send the others
      // a second copy. The refused ones are in the log line.
      const refused = sent.rejected.length > 0 ? ` (refused: ${sent.rejected.join(', ')})` : '';
      return { messageId: sent.messageId, where: `${sent.response}${refused}` };
    },
  };
}
