/**
 * Personal data shown to someone who is not the organization: enough for the buyer to recognize
 * their own payment, not enough to identify or contact them.
 */

/** "jane@example.com" → "j***@example.com". */
export function maskEmail(email: string | null): string | null {
  if (email === null) return null;
  const at = email.lastIndexOf('@');
  if (at < 1) return '***';
  return `${email[0]}***${email.slice(at)}`;
}

/** "Ana Souza" → "A*** S***": each word's initial. */
export function maskName(name: string | null): string | null {
  if (name === null) return null;
  return name
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .map((word) => `${word[0]}***`)
    .join(' ');
}
