import { IntentStatus, stepState } from '../../domain/intent';

describe('stepState', () => {
  it('runs a step only from the status right before it', () => {
    expect(stepState(IntentStatus.authorized, IntentStatus.settling)).toBe('run');
    expect(stepState(IntentStatus.settling, IntentStatus.held)).toBe('run');
  });

  it('skips a step the intent is already at or past, review included', () => {
    for (const status of [
      'settling',
      'held',
      'signed',
      'confirming',
      'confirmed',
      'needs_review',
    ] as const) {
      expect(stepState(status, IntentStatus.settling)).toBe('done');
    }
    expect(stepState(IntentStatus.held, IntentStatus.held)).toBe('done');
  });

  it('refuses a step on a failed intent, or on one not ready for it', () => {
    expect(stepState(IntentStatus.failed, IntentStatus.settling)).toBe('closed');
    expect(stepState(IntentStatus.failed, IntentStatus.held)).toBe('closed');
    expect(stepState(IntentStatus.authorized, IntentStatus.held)).toBe('closed');
  });
});
