import { randomBytes } from 'node:crypto';
import type { Credential } from './credentials.ts';

type MemberCredential = Extract<Credential, { kind: 'member' }>;

/** The prefix of a grant: a bearer token that exists only while one in-process request runs. */
export const GRANT_PREFIX = 'svc_dgr_';

/**
 * The dashboard's pages call the API in process (`app.inject`), as the signed-in member of the
 * organization they show. The API's resource routes take organization credentials (an access token or
 * an API key), not a user JWT; rather than mint a stored token per page view, the page hands the route a
 * grant: a random bearer that names the member, lives in this process's memory for the length of one
 * call, and is dropped when the call returns. Nothing outside the process can know one.
 */
export class DashboardGrants {
  private readonly live = new Map<string, MemberCredential>();

  /** Runs `call` with a bearer token that authenticates as `member`, and forgets it afterwards. */
  async with<T>(member: MemberCredential, call: (bearer: string) => Promise<T>): Promise<T> {
    const bearer = GRANT_PREFIX + randomBytes(32).toString('base64url');
    this.live.set(bearer, member);
    try {
      return await call(bearer);
    } finally {
      this.live.delete(bearer);
    }
  }

  credentialOf(bearer: string): MemberCredential | undefined {
    return this.live.get(bearer);
  }
}
