/**
 * What an API key may do. A key is bound to one tenant (it acts for that tenant and sees only its
 * intents) or to none (an operator's key: every tenant); its scopes say which routes it may call.
 */
export const ApiScope = {
  intentsRead: 'intents:read',
  intentsWrite: 'intents:write',
  batchesWrite: 'batches:write',
  webhooksAdmin: 'webhooks:admin',
  review: 'review',
  walletsAdmin: 'wallets:admin',
  assetsAdmin: 'assets:admin',
  policiesAdmin: 'policies:admin',
  approve: 'approve',
  redact: 'redact',
} as const;
export type ApiScope = (typeof ApiScope)[keyof typeof ApiScope];

export const apiScopes = Object.values(ApiScope);

/** A key acts for one tenant, or as an operator for every tenant. */
export type ApiKeyRole = 'tenant' | 'operator';

/** What each scope lets a key do, for `keys create --help` and docs/api.md. */
export const scopeMeaning: Record<ApiScope, string> = {
  'intents:read':
    'read intents, batches, schedules, their attempts and audit trails, balances, assets',
  'intents:write':
    'submit intents and payment schedules (a tenant key); cancel, pause, delete them',
  'batches:write': 'submit batches (a tenant key) and cancel them',
  'webhooks:admin': 'register webhook endpoints, rotate their secrets, redeliver events',
  review: 'decide on intents in needs_review (confirm, fail, retry, cancel on chain)',
  'wallets:admin': "add, retire and activate hot wallets; set a tenant's wallet pool",
  'assets:admin': 'register tokens',
  'policies:admin': "set a tenant's payment policy: spend limits, recipient lists",
  approve: 'approve or reject intents awaiting approval (never ones the same key submitted)',
  redact:
    "erase an ended intent's reference and metadata everywhere they are kept (erasure requests)",
};

/**
 * The scopes a key bound to a tenant may hold (what a tenant does for itself) and a key bound
 * to none (the operators' work across tenants: what a tenant may, but submitting — an operator
 * has no tenant to pay from — and the administration).
 */
export const tenantKeyScopes: readonly ApiScope[] = [
  ApiScope.intentsRead,
  ApiScope.intentsWrite,
  ApiScope.batchesWrite,
  ApiScope.webhooksAdmin,
  ApiScope.approve,
];
export const operatorKeyScopes: readonly ApiScope[] = [
  ApiScope.intentsRead,
  ApiScope.intentsWrite,
  ApiScope.batchesWrite,
  ApiScope.webhooksAdmin,
  ApiScope.review,
  ApiScope.walletsAdmin,
  ApiScope.assetsAdmin,
  ApiScope.policiesAdmin,
  ApiScope.approve,
  ApiScope.redact,
];

/**
 * What a key is made with when no scope is named: all its kind may hold but `approve`, which
 * is the second pair of eyes on a payment, and `redact`, which erases what cannot be restored:
 * each is given by name only.
 */
export const defaultKeyScopes = (boundToTenant: boolean): ApiScope[] =>
  (boundToTenant ? tenantKeyScopes : operatorKeyScopes).filter(
    (scope) => scope !== ApiScope.approve && scope !== ApiScope.redact,
  );

export const isApiScope = (value: string): value is ApiScope =>
  (apiScopes as readonly string[]).includes(value);

/**
 * The scopes asked for a key, checked against what its binding allows: the problem in words
 * (naming the scope) when one is unknown or not for that kind of key; none asked: its defaults.
 */
export function scopesForKey(
  asked: readonly string[],
  boundToTenant: boolean,
): { scopes: ApiScope[] } | { problem: string } {
  const allowed = boundToTenant ? tenantKeyScopes : operatorKeyScopes;
  if (asked.length === 0) return { scopes: defaultKeyScopes(boundToTenant) };
  for (const scope of asked) {
    if (!isApiScope(scope)) {
      return { problem: `unknown scope "${scope}" (scopes: ${apiScopes.join(', ')})` };
    }
    if (!allowed.includes(scope)) {
      return {
        problem:
          `scope "${scope}" is not for a${boundToTenant ? ' tenant' : 'n operator'} key ` +
          `(it may have: ${allowed.join(', ')})`,
      };
    }
  }
  return { scopes: apiScopes.filter((scope) => asked.includes(scope)) };
}
