/** Escapes LIKE wildcards (PostgreSQL's default escape character is the backslash) so input matches literally. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (ch) => `\\${ch}`);
}
