import type { Actor } from '../../contracts/actor.ts';
import type { ApiKeyScope } from '../../domain/api-key-scopes.ts';

/** Who is calling. Every credential but a user JWT is bound to exactly one organization. */
export type Credential =
  | { kind: 'user'; userId: string; subject: string; email: string }
  | { kind: 'oat'; id: string; organizationId: string; scopes: string[]; expiresAt: Date | null }
  | {
      kind: 'api_key';
      id: string;
      organizationId: string;
      scopes: ApiKeyScope[];
      expiresAt: Date | null;
    }
  | { kind: 'customer'; id: string; organizationId: string; customerId: string; expiresAt: Date }
  /** A signed-in member acting through the dashboard's pages (api/auth/dashboard-grants.ts): every scope. */
  | { kind: 'member'; userId: string; organizationId: string; role: MemberRole };

export type MemberRole = 'owner' | 'admin' | 'member';

export type OrganizationCredential = Exclude<Credential, { kind: 'user' }>;

/** Who a credential's changes are recorded as (an event's `actor`). */
export function actorOf(credential: Credential): Actor {
  switch (credential.kind) {
    case 'api_key':
      return { type: 'api_key', id: credential.id };
    case 'oat':
      return { type: 'access_token', id: credential.id };
    case 'user':
    case 'member':
      return { type: 'user', id: credential.userId };
    case 'customer':
      return { type: 'customer', id: credential.customerId };
  }
}
