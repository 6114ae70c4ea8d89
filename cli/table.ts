import Table from 'cli-table3';

/** A table for people: aligned, colored only on a terminal (logs and CI get plain text). */
export function table(head: string[], align: ('left' | 'right')[]): Table.Table {
  const color = process.stdout.isTTY === true;
  return new Table({
    head,
    colAligns: align,
    style: color ? { head: ['cyan'], border: ['grey'] } : { head: [], border: [] },
  });
}
