import { IntentStatus } from '../../domain/intent';
import { furtherTurn, turnReaches, walletTurnAfter } from '../../domain/wallet-turn';

const signed = { signed: true, status: IntentStatus.confirming };
const held = { signed: false, status: IntentStatus.held };
const settling = { signed: false, status: IntentStatus.settling };
const pending = { signed: false, status: null };

describe("a batch item's wallet turn (closest earlier items first)", () => {
  it('signs with nothing unsigned ahead: none at all, or the closest one signed', () => {
    expect(walletTurnAfter([])).toBe('sign');
    expect(walletTurnAfter([signed, held])).toBe('sign');
  });

  it('starts behind one unsigned item that is held, and waits behind one that is not', () => {
    expect(walletTurnAfter([held])).toBe('start');
    expect(walletTurnAfter([held, signed])).toBe('start');
    expect(walletTurnAfter([settling, signed])).toBe('wait');
    expect(walletTurnAfter([pending])).toBe('wait');
  });

  it('waits behind two unsigned items, held or not: at most two hold a permit unsigned', () => {
    expect(walletTurnAfter([held, held])).toBe('wait');
  });

  it('only moves forward', () => {
    expect(furtherTurn('start', 'wait')).toBe('start');
    expect(furtherTurn('start', 'sign')).toBe('sign');
    expect(turnReaches('sign', 'start')).toBe(true);
    expect(turnReaches('start', 'sign')).toBe(false);
  });
});
