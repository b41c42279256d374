import type { Config } from '../config/env.ts';
import { outboxMailer } from './outbox.ts';
import type { Mailer } from './port.ts';
import { smtpMailer } from './smtp.ts';

/** The mailer MAILER names (config/env.ts refuses smtp without SMTP_URL and MAIL_FROM). */
export function openMailer(config: Pick<Config, 'mailer' | 'mailFrom' | 'SMTP_URL' | 'MAIL_OUTBOX_DIR'>): Mailer {
  if (config.mailer === 'smtp') return smtpMailer({ url: config.SMTP_URL!, from: config.mailFrom });
  return outboxMailer({ dir: config.MAIL_OUTBOX_DIR, from: config.mailFrom });
}

export type { MailMessage, Mailer, SentMail } from './port.ts';
