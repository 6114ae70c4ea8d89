import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readBatchFile } from '../../cli/batch-file';
import { CliFailure } from '../../cli/exit-codes';
import { scratchDir } from '../harness/scratch-dir';

const dir = scratchDir('batch-file');
const file = (name: string, content: string) => {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
};
const alice = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const hot = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

describe('reading a batch file', () => {
  it('reads CSV rows by line, in ether or wei, with the chain from a column or the default', () => {
    const parsed = readBatchFile(
      file(
        'ok.csv',
        [
          'To, From, Amount_ETH, amount, chain_id',
          `${alice},${hot},0.5,,`,
          '',
          `${alice.toLowerCase()},${hot},,42,10`,
        ].join('\n'),
      ),
      31337,
    );
    expect(parsed.rows).toEqual([
      {
        where: 'line 2',
        item: { chainId: 31337, from: hot, to: alice, amount: '500000000000000000' },
      },
      { where: 'line 4', item: { chainId: 10, from: hot, to: alice, amount: '42' } },
    ]);
    expect(parsed.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('takes a token by its alias with a decimal amount, left to the API to convert by its decimals', () => {
    const parsed = readBatchFile(
      file(
        'tokens.csv',
        ['to,asset,amount_decimal,amount', `${alice},USDC,12.5,`, `${alice},native,,7`].join('\n'),
      ),
      1,
    );
    expect(parsed.rows).toEqual([
      { where: 'line 2', item: { chainId: 1, to: alice, asset: 'USDC', decimalAmount: '12.5' } },
      { where: 'line 3', item: { chainId: 1, to: alice, asset: 'native', amount: '7' } },
    ]);
    const bad = readBatchFile(
      file('bad-tokens.csv', ['to,asset,amount_eth', `${alice},USDC,1`].join('\n')),
      1,
    );
    expect(bad.rows[0]!.problem).toBe(
      'amount_eth is for the native coin: give amount_decimal for USDC',
    );
  });

  it('reads a reference and metadata.<key> columns, each key in its own case; an empty cell leaves it out; a bad one named', () => {
    const parsed = readBatchFile(
      file(
        'marked.csv',
        [
          'to,amount,reference,Metadata.InvoiceId,metadata.note',
          `${alice},1,po_1,INV-7,first`,
          `${alice},2,,,`,
          `${alice},3,po_3,${'x'.repeat(501)},`,
        ].join('\n'),
      ),
      1,
    );
    expect(parsed.rows.slice(0, 2)).toEqual([
      {
        where: 'line 2',
        item: {
          chainId: 1,
          to: alice,
          amount: '1',
          reference: 'po_1',
          metadata: { InvoiceId: 'INV-7', note: 'first' },
        },
      },
      { where: 'line 3', item: { chainId: 1, to: alice, amount: '2' } },
    ]);
    expect(parsed.rows[2]).toEqual({
      where: 'line 4',
      problem: 'metadata.InvoiceId: a metadata value must be at most 500 characters',
    });
    const json = readBatchFile(
      file('marked.json', JSON.stringify([{ to: alice, amount: '1', metadata: { a: 'b' } }])),
      1,
    );
    expect(json.rows[0]!.item).toMatchObject({ metadata: { a: 'b' } });
  });

  it("reads a max_fee_per_gas column as the row's own fee ceiling in wei per gas; an empty cell leaves it out; a bad one named", () => {
    const parsed = readBatchFile(
      file(
        'ceiling.csv',
        [
          'to,amount,max_fee_per_gas',
          `${alice},1,30000000000`,
          `${alice},2,`,
          `${alice},3,30 gwei`,
        ].join('\n'),
      ),
      31337,
    );
    expect(parsed.rows).toEqual([
      {
        where: 'line 2',
        item: { chainId: 31337, to: alice, amount: '1', maxFeePerGas: '30000000000' },
      },
      { where: 'line 3', item: { chainId: 31337, to: alice, amount: '2' } },
      { where: 'line 4', problem: expect.stringMatching(/^maxFeePerGas must be a whole number/) },
    ]);
  });

  it('names the line and the reason of each bad row', () => {
    const parsed = readBatchFile(
      file(
        'bad.csv',
        [
          'to,from,amount,amount_eth',
          `${alice},${hot},1,0.1`,
          `0x12,${hot},1,`,
          `${alice},${hot},,lots`,
          `${alice},${hot},0,`,
        ].join('\n'),
      ),
      1,
    );
    expect(parsed.rows.map((row) => [row.where, row.problem])).toEqual([
      ['line 2', 'give the amount once: amount (base units), amount_decimal or amount_eth'],
      ['line 3', expect.stringMatching(/to is not a valid address/)],
      ['line 4', 'amount_eth: must be a decimal amount like 25 or 0.5 (got "lots")'],
      ['line 5', 'amount must be greater than zero'],
    ]);
  });

  it('says what the header lacks once for the whole file, not on every row', () => {
    const rows = Array.from({ length: 30 }, () => `${alice},${hot}`);
    const lacking = file('lacking.csv', ['To,from', ...rows].join('\n'));
    expect(() => readBatchFile(lacking, undefined)).toThrow(
      new CliFailure(
        'invalid_request',
        'the header (line 1: to, from) has no amount column: amount (base units), ' +
          'amount_decimal or amount_eth; no chain_id column and no --chain-id',
        2,
      ),
    );
    expect(() => readBatchFile(file('recipientless.csv', `amount\n1\n`), 1)).toThrow(
      /has no `to` column/,
    );
    expect(() => readBatchFile(file('empty.csv', ''), 1)).toThrow(/the file is empty/);
  });

  it('hints at the column for a decimal in amount, and at the separator of a file not split by commas', () => {
    const decimal = readBatchFile(file('decimal.csv', `to,amount\n${alice},0.1\n`), 1);
    expect(decimal.rows).toEqual([
      {
        where: 'line 2',
        problem:
          'amount is in base units (wei), whole numbers only: 0.1 looks like a decimal of the asset, which goes in an amount_decimal column (or amount_eth for the native coin)',
      },
    ]);
    expect(() => readBatchFile(file('semicolons.csv', `to;amount_eth\n${alice};0.1\n`), 1)).toThrow(
      /has no `to` column.* \(its fields look separated by ";": this tool reads commas; export the file as comma-separated CSV\)$/,
    );
  });

  it('reports a row with too few or too many fields as its own problem and checks the others', () => {
    const parsed = readBatchFile(
      file(
        'ragged.csv',
        [
          'to,from,amount',
          `${alice},${hot}`,
          `${alice},${hot},1`,
          `${alice},${hot},1,9`,
          '0x12,,1',
        ].join('\n'),
      ),
      1,
    );
    expect(parsed.rows.map((row) => [row.where, row.problem])).toEqual([
      ['line 2', '2 fields where the header has 3'],
      ['line 3', undefined],
      ['line 4', '4 fields where the header has 3'],
      ['line 5', expect.stringMatching(/to is not a valid address/)],
    ]);
  });

  it('reads JSON arrays and { items }, numbering items from 1', () => {
    const items = [{ to: alice, from: hot, amount: '7', chainId: 5 }, { to: alice }];
    for (const content of [items, { items }]) {
      const parsed = readBatchFile(file('b.json', JSON.stringify(content)), undefined);
      expect(parsed.rows[0]).toEqual({
        where: 'item 1',
        item: { chainId: 5, from: hot, to: alice, amount: '7' },
      });
      expect(parsed.rows[1]).toMatchObject({
        where: 'item 2',
        problem: expect.stringMatching(/chain/),
      });
    }
  });

  it('refuses a file it cannot read as a usage error', () => {
    for (const [name, content] of [
      ['broken.json', '{'],
      ['odd.json', '"text"'],
    ]) {
      expect(() => readBatchFile(file(name!, content!), 1)).toThrow(CliFailure);
    }
    expect(() => readBatchFile(join(dir, 'missing.csv'), 1)).toThrow(/cannot read/);
  });
});
