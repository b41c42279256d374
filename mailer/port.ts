/** One mail: to every address of `to` in one message. */
export interface MailMessage {
  to: string[];
  subject: string;
  text: string;
  html?: string;
  /**
   * `<local@domain>`, chosen by the caller and stable for what the mail is about, so a copy sent twice
   * is recognisable as one (mail clients thread or drop it).
   */
  messageId: string;
  headers?: Record<string, string>;
}

export interface SentMail {
  messageId: string;
  /** Where it went, for a log line: the outbox's file, or the SMTP server's answer. */
  where: string;
}

/**
 * How notifications leave: an outbox folder of `.eml` files (the embedded default, for development and
 * the sandbox) or an SMTP server. `send` resolves once the message is handed over (written, or
 * accepted by the server); it rejects when it was not, and may then be called again.
 */
export interface Mailer {
  readonly kind: 'outbox' | 'smtp';
  send(message: MailMessage): Promise<SentMail>;
}
