import { randomUUID } from 'node:crypto';
import { parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startAnvil, type Anvil } from '../harness/stack/anvil';
import { minedTransactions } from '../harness/stack/chain-truth';
import { spawnWorker } from '../harness/stack/worker-process';
import { waitFor } from '../harness/stack/wait-for';
import { addWallet } from '../../service/wallet-admin';
import { waitUntilSettled } from '../harness/intents';
import { expectBooksBalanced } from '../harness/ledger-checks';
import { submitPayments } from '../harness/submit-unpinned';
import { useWorld } from '../harness/test-world';

/** Another node's development accounts: keys the relayer never sees. */
const signerMnemonic =
  'legal winner thank year wave sausage worth useful legal winner thank yellow';

const world = useWorld({ wallets: 1, tenants: { acme: '1000' } });
let signerNode: Anvil;
beforeAll(async () => {
  // A second anvil, same chain id, as the remote signer: it signs for its accounts through
  // eth_signTransaction and never sees the chain the transactions are sent to.
  signerNode = await startAnvil({
    chainId: world.anvil.chainId,
    mnemonic: signerMnemonic,
    accounts: 3,
  });
});
world.onStop(() => signerNode?.stop());

const remoteAccounts = () => signerNode.keys.map((key) => privateKeyToAccount(key).address);
/** The remote signer's accounts named in WALLET_SIGNERS; the last is added at run time. */
const remoteWallets = () => remoteAccounts().slice(0, 2);

describe('wallets whose keys a remote JSON-RPC signer holds', () => {
  it('sign every payment there: the receipts are from the remote accounts', async () => {
    for (const address of remoteWallets()) {
      await world.testClient.setBalance({ address, value: parseEther('100') });
    }
    const taskQueue = `e2e-${randomUUID()}`;
    await world.spawnWorkers(1, {
      TASK_QUEUE: taskQueue,
      HOT_WALLET_KEYS: '',
      WALLET_SIGNERS: remoteWallets()
        .map((address) => `${address}=remote:${signerNode.rpcUrl}`)
        .join(','),
    });
    const startBlock = await world.testClient.getBlockNumber({ cacheTime: 0 });

    await submitPayments(world, taskQueue, 20);
    await waitUntilSettled(world, 20, 120_000);

    const rows = await world.database.kysely.selectFrom('intents').selectAll().execute();
    expect(rows.filter((row) => row.status !== 'confirmed')).toEqual([]);
    const mined = await minedTransactions(world, startBlock);
    expect(mined).toHaveLength(20);
    const senders = new Set(mined.map((tx) => tx.from));
    expect([...senders].sort()).toEqual(
      remoteWallets()
        .map((a) => a.toLowerCase())
        .sort(),
    );
    for (const row of rows) {
      expect(mined.find((tx) => tx.hash === row.tx_hash)?.from).toBe(
        row.from_address!.toLowerCase(),
      );
    }
    await expectBooksBalanced(world.database);
  });

  it('a worker whose remote signer does not hold a wallet does not start', async () => {
    const stranger = privateKeyToAccount(generatePrivateKey()).address;
    const start = spawnWorker(
      world.env({
        TASK_QUEUE: `e2e-${randomUUID()}`,
        HOT_WALLET_KEYS: '',
        WALLET_SIGNERS: `${stranger}=remote:${signerNode.rpcUrl}`,
      }),
    );
    await expect(start).rejects.toThrow(
      new RegExp(
        `wallet signers refuse:\\s+WALLET_SIGNERS: the signer of ${stranger} \\(remote:127\\.0\\.0\\.1:\\d+\\) does not sign for it as asked: the signer does not list it in eth_accounts`,
      ),
    );
  });

  it('a worker with a bad signer setting stops at once, naming the variable, never the URL', async () => {
    const start = spawnWorker(
      world.env({
        TASK_QUEUE: `e2e-${randomUUID()}`,
        HOT_WALLET_KEYS: '',
        WALLET_SIGNERS: `${remoteWallets()[0]}=remote:ftp://user:hunter2@signer:21`,
      }),
    );
    const refusal = await start.then(
      () => 'started',
      (error: Error) => error.message,
    );
    expect(refusal).toContain('WALLET_SIGNERS: entry 1: remote needs an http(s) URL');
    expect(refusal).not.toContain('hunter2');
  });

  it('a wallet added at run time is taken on by a running worker and sends', async () => {
    const added = remoteAccounts()[2]!;
    await world.testClient.setBalance({ address: added, value: parseEther('100') });
    const taskQueue = `e2e-${randomUUID()}`;
    // INFO: the line that tells a wallet was taken on (the test world runs workers at WARN).
    const [worker] = await world.spawnWorkers(1, {
      TASK_QUEUE: taskQueue,
      WALLET_WATCH_MS: '200',
      LOG_LEVEL: 'INFO',
    });
    const settledBefore = (await world.database.kysely.selectFrom('intents').select('id').execute())
      .length;

    await addWallet(
      { database: world.database, chains: world.chains },
      added,
      `remote:${signerNode.rpcUrl}`,
    );
    await waitFor(
      () => worker!.output().includes(`wallet ${added} taken on`),
      'the worker taking the wallet on',
      10_000,
    );
    const startBlock = await world.testClient.getBlockNumber({ cacheTime: 0 });
    await submitPayments(world, taskQueue, 5, added);
    await waitUntilSettled(world, settledBefore + 5, 60_000);

    const mined = await minedTransactions(world, startBlock);
    expect(mined.map((tx) => tx.from)).toEqual(Array(5).fill(added.toLowerCase()));
    await expectBooksBalanced(world.database);
  });
});
