import type { Intent } from '../domain/intent';

/** Who is asking, as their API key says. Tenants see only their own intents; operators see all. */
export type Caller =
  | { role: 'tenant'; tenantId: string; keyId: string; label: string }
  | { role: 'operator'; keyId: string; label: string };

/** How the audit log names a caller. */
export const actorOf = (caller: Caller): string =>
  caller.role === 'tenant'
    ? `tenant ${caller.tenantId} key ${caller.keyId} (${caller.label})`
    : `operator key ${caller.keyId} (${caller.label})`;

export const canSee = (caller: Caller, intent: Pick<Intent, 'tenantId'>): boolean =>
  caller.role === 'operator' || caller.tenantId === intent.tenantId;
