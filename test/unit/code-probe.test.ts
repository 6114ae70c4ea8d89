import type { PublicClient } from 'viem';
import { CodeProbe, codeSizesOf, codeSizesProgram } from '../../chain/code-probe';

describe('the code probe program', () => {
  it('reads EXTCODESIZE of each address into its own word, then returns them all', () => {
    const a = '0x00000000000000000000000000000000000000aa';
    const b = '0x00000000000000000000000000000000000000bb';
    expect(codeSizesProgram([a, b])).toBe(
      `0x73${a.slice(2)}3b61000052` + `73${b.slice(2)}3b61002052` + '6100406000f3',
    );
  });

  it('decodes one size per address, and refuses an answer of another length', () => {
    const answer = `0x${(23).toString(16).padStart(64, '0')}${'0'.repeat(64)}` as const;
    expect(codeSizesOf(answer, 2)).toEqual([23, 0]);
    expect(() => codeSizesOf(answer, 3)).toThrow(/3 words expected, 2 came/);
  });
});

describe('the code probe', () => {
  afterEach(() => jest.useRealTimers());

  it('keeps each answer for its time, then drops it: fresh recipients for days keep it bounded', async () => {
    jest.useFakeTimers({ now: 0 });
    const calls: number[] = [];
    const client = {
      call: ({ data }: { data: string }) => {
        // 26 bytes read one address; 6 bytes return them.
        const count = (data.length - 2 - 12) / 52;
        calls.push(count);
        return Promise.resolve({ data: `0x${'0'.repeat(64 * count)}` });
      },
    } as unknown as PublicClient;
    const probe = new CodeProbe(client, 10, 60_000);
    const address = (i: number) => `0x${i.toString(16).padStart(40, '0')}` as const;

    const first = [1, 2, 3].map((i) => probe.hasCode(address(i)));
    await jest.advanceTimersByTimeAsync(10);
    await expect(Promise.all(first)).resolves.toEqual([false, false, false]);
    expect(calls).toEqual([3]);
    // Within its time an answer is kept: no call.
    await expect(probe.hasCode(address(2))).resolves.toBe(false);
    expect(calls).toEqual([3]);

    // A minute on, a new recipient drops the three answers past their time.
    jest.setSystemTime(60_001);
    const later = probe.hasCode(address(4));
    expect(probe.kept).toBe(1);
    await jest.advanceTimersByTimeAsync(10);
    await later;
    // An address asked again after its time is asked of the node again.
    const again = probe.hasCode(address(1));
    await jest.advanceTimersByTimeAsync(10);
    await again;
    expect(calls).toEqual([3, 1, 1]);
    expect(probe.kept).toBe(2);
  });
});
