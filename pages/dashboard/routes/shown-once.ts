import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * A secret's one showing across a post, redirect, get: the creation's post puts it in a short-lived
 * cookie scoped to the section's page, and that page reads it once and clears it, so the secret never
 * enters an address or the history, and a reload shows it no more (as api-keys.ts does for keys).
 */
export function shownOnce<T>(name: string, path: string) {
  const options = { path, httpOnly: true, secure: true, sameSite: 'strict' as const };
  return {
    put(reply: FastifyReply, value: T): void {
      reply.setCookie(name, Buffer.from(JSON.stringify(value)).toString('base64url'), { ...options, maxAge: 120 });
    },
    take(request: FastifyRequest, reply: FastifyReply): T | undefined {
      const value = request.cookies[name];
      if (!value) return undefined;
      reply.clearCookie(name, options);
      try {
        return JSON.parse(Buffer.from(value, 'base64url').toString()) as T;
      } catch {
        return undefined;
      }
    },
  };
}
