import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Connection } from '@temporalio/client';
import { ensureSearchAttributes } from '../../workers/ensure-search-attributes';
import { relayerSearchAttributes } from '../../workflows/search-attributes';

const operator = (existing: string[], add: () => Promise<unknown>) =>
  ({
    operatorService: {
      listSearchAttributes: async () => ({
        customAttributes: Object.fromEntries(existing.map((name) => [name, 2])),
      }),
      addSearchAttributes: add,
    },
  }) as unknown as Pick<Connection, 'operatorService'>;

describe('ensureSearchAttributes', () => {
  it('registers only what the namespace lacks', async () => {
    const add = jest.fn(async () => ({}));
    await ensureSearchAttributes(
      operator(['IntentStatus', 'ChainId', 'Wallet', 'BatchId', 'Asset', 'PaymentReference'], add),
      'default',
    );
    expect(add).toHaveBeenCalledWith({ namespace: 'default', searchAttributes: { TenantId: 2 } });
  });

  it('does nothing when all are there', async () => {
    const add = jest.fn(async () => ({}));
    const all = [
      'IntentStatus',
      'TenantId',
      'ChainId',
      'Wallet',
      'BatchId',
      'Asset',
      'PaymentReference',
    ];
    await ensureSearchAttributes(operator(all, add), 'default');
    expect(add).not.toHaveBeenCalled();
  });

  it('refuses to start with the commands to run when it may not register them', async () => {
    const refused = async () => {
      throw new Error('PermissionDenied');
    };
    await expect(ensureSearchAttributes(operator([], refused), 'payments')).rejects.toThrow(
      [
        'search attributes missing on namespace payments and this worker may not create them; run:',
        '  temporal operator search-attribute create --namespace payments --name IntentStatus --type Keyword',
        '  temporal operator search-attribute create --namespace payments --name TenantId --type Keyword',
        '  temporal operator search-attribute create --namespace payments --name ChainId --type Int',
        '  temporal operator search-attribute create --namespace payments --name Wallet --type Keyword',
        '  temporal operator search-attribute create --namespace payments --name BatchId --type Keyword',
        '  temporal operator search-attribute create --namespace payments --name Asset --type Keyword',
        '  temporal operator search-attribute create --namespace payments --name PaymentReference --type Keyword',
        '  (registering them failed: PermissionDenied)',
      ].join('\n'),
    );
  });
});

describe('the search attributes in the docs', () => {
  it('docs/operations.md names every search attribute the workers register', () => {
    const docs = readFileSync(join(__dirname, '../../docs/operations.md'), 'utf8');
    const missing = relayerSearchAttributes
      .map((key) => key.name)
      .filter((name) => !docs.includes(`\`${name}\``));
    expect(missing).toEqual([]);
  });
});
