import { codeSizesOf, codeSizesProgram } from '../../chain/code-probe';

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
    expect(() => codeSizesOf(answer, 3)).toThrow(/expected 3 words, got 2/);
  });
});
