import { operatorKeyScopes, scopesForKey, tenantKeyScopes } from '../../domain/api-scopes';
import { durationFlag } from '../../cli/duration';

describe('the scopes asked for a key', () => {
  it('none asked: all its kind may have', () => {
    // Every scope of its kind but approve and redact, which are given by name only.
    expect(scopesForKey([], true)).toEqual({
      scopes: tenantKeyScopes.filter((scope) => scope !== 'approve'),
    });
    expect(scopesForKey([], false)).toEqual({
      scopes: operatorKeyScopes.filter((scope) => scope !== 'approve' && scope !== 'redact'),
    });
    expect(scopesForKey(['approve'], true)).toEqual({ scopes: ['approve'] });
    expect(scopesForKey(['redact'], false)).toEqual({ scopes: ['redact'] });
    expect(scopesForKey(['redact'], true)).toEqual({ problem: expect.stringContaining('redact') });
  });

  it('keeps the catalogue order and drops repeats', () => {
    expect(scopesForKey(['batches:write', 'intents:read', 'intents:read'], true)).toEqual({
      scopes: ['intents:read', 'batches:write'],
    });
  });

  it('names an unknown scope, and one that is not for the kind of key', () => {
    expect(scopesForKey(['intents:reed'], true)).toEqual({
      problem: expect.stringMatching(/^unknown scope "intents:reed" \(scopes: intents:read, /),
    });
    expect(scopesForKey(['review'], true)).toEqual({
      problem:
        'scope "review" is not for a tenant key (it may have: intents:read, intents:write, batches:write, webhooks:admin, approve)',
    });
    expect(scopesForKey(['wallets:admin'], true)).toMatchObject({
      problem: expect.stringContaining('scope "wallets:admin" is not for a tenant key'),
    });
  });
});

describe('a duration flag', () => {
  it('reads minutes, hours and days', () => {
    expect(durationFlag('--expires')('90m')).toBe(90 * 60_000);
    expect(durationFlag('--expires')('12h')).toBe(12 * 3_600_000);
    expect(durationFlag('--grace')('30d')).toBe(30 * 86_400_000);
  });

  it.each(['', '0d', '30', '1.5h', '2w', '-1d', '30 d'])('refuses %j, naming the flag', (value) => {
    expect(() => durationFlag('--expires')(value)).toThrow(/^--expires: a whole number of minutes/);
  });
});
