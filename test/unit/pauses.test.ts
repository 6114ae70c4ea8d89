import { pauseBodySchema } from '../../api/schemas/pauses';
import { pauseOver, type Pause, type PauseScope } from '../../domain/pause';

const pauseOf = (scope: PauseScope, target: string): Pause => ({
  id: `pz_${scope}`,
  scope,
  target,
  note: 'n',
  refuseAdmission: false,
  pausedBy: 'op',
  pausedAt: new Date(0),
  resumedBy: null,
  resumedAt: null,
  resumeNote: null,
});

describe('pauses', () => {
  it('hold an intent back by its tenant, its chain, or the whole relayer', () => {
    const intent = { tenantId: 'acme', chainId: 8453 };
    expect(pauseOver([], intent)).toBeUndefined();
    expect(pauseOver([pauseOf('tenant', 'globex'), pauseOf('chain', '1')], intent)).toBeUndefined();
    expect(pauseOver([pauseOf('tenant', 'acme')], intent)?.id).toBe('pz_tenant');
    expect(pauseOver([pauseOf('chain', '8453')], intent)?.id).toBe('pz_chain');
    expect(pauseOver([pauseOf('relayer', '')], intent)?.id).toBe('pz_relayer');
  });

  it('name their target as their scope asks, and nothing else', () => {
    const problems = (body: unknown) => {
      const parsed = pauseBodySchema.safeParse(body);
      return parsed.success ? [] : parsed.error.issues.map((issue) => issue.message);
    };
    expect(problems({ scope: 'relayer', note: 'x' })).toEqual([]);
    expect(problems({ scope: 'chain', chainId: 1, note: 'x' })).toEqual([]);
    expect(problems({ scope: 'tenant', note: 'x' })).toEqual(['a tenant pause names its tenantId']);
    expect(problems({ scope: 'relayer', tenantId: 'acme', note: 'x' })).toEqual([
      'a relayer pause takes no tenantId',
    ]);
    expect(problems({ scope: 'everything', note: 'x' })).toEqual([
      'scope must be relayer, tenant or chain',
    ]);
    expect(problems({ scope: 'relayer' })).toEqual([
      'note is required: why, for whoever resumes it',
    ]);
  });
});
