import {
  CreateKeyCommand,
  DescribeKeyCommand,
  DisableKeyCommand,
  UpdateAliasCommand,
} from '@aws-sdk/client-kms';
import { randomUUID } from 'node:crypto';
import { parseEther, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { ensureKmsSigningKey, fundOnDevelopmentChain } from '../../workers/provision-kms-treasury';
import { minedTransactions } from '../harness/stack/chain-truth';
import { localKmsRegion, startLocalKms, type LocalKms } from '../harness/stack/local-kms';
import { waitFor } from '../harness/stack/wait-for';
import { spawnWorker } from '../harness/stack/worker-process';
import { waitUntilEnded } from '../harness/intents';
import { invariantViolations } from '../harness/invariants';
import { submitPayments } from '../harness/submit-unpinned';
import { useWorld } from '../harness/test-world';
import type { SubmittedIntent } from '../../service/submit-intent';

const world = useWorld({ wallets: 1, tenants: { acme: '1000' } });
let kms: LocalKms;
beforeAll(async () => {
  kms = await startLocalKms();
});
world.onStop(() => kms?.stop());

const ids = (submitted: readonly SubmittedIntent[]) => submitted.map(({ intent }) => intent.id);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `read()` once it has not changed for `forMs`. */
async function steadyValue(read: () => Promise<number>, forMs: number): Promise<number> {
  let value = await read();
  let since = Date.now();
  while (Date.now() - since < forMs) {
    await sleep(100);
    const now = await read();
    if (now !== value) [value, since] = [now, Date.now()];
  }
  return value;
}

/** A new secp256k1 key in KMS under `alias`, and the address it signs for. */
const kmsWallet = async (alias: string): Promise<Hex> =>
  (await ensureKmsSigningKey(kms.client, alias)).address;

const kmsSettings = (signers: string) => ({
  HOT_WALLET_KEYS: '',
  WALLET_SIGNERS: signers,
  AWS_REGION: localKmsRegion,
  KMS_ENDPOINT: kms.endpoint,
  // local-kms takes any credentials; the AWS SDK finds these in the environment.
  AWS_ACCESS_KEY_ID: 'local',
  AWS_SECRET_ACCESS_KEY: 'local',
});

describe('wallets whose keys are in AWS KMS (local-kms)', () => {
  const intents = 60;
  let wallets: Hex[];
  const taskQueue = `e2e-${randomUUID()}`;

  beforeAll(async () => {
    wallets = [await kmsWallet('alias/hot-1'), await kmsWallet('alias/hot-2')];
    for (const address of wallets) {
      await world.testClient.setBalance({ address, value: parseEther('100') });
    }
    await world.spawnWorkers(1, {
      TASK_QUEUE: taskQueue,
      ...kmsSettings(`${wallets[0]}=kms:alias/hot-1,${wallets[1]}=kms:alias/hot-2`),
    });
  });

  it(`sign ${intents} payments; KMS killed mid-run: the steps retry, nothing lost or paid twice`, async () => {
    const startBlock = await world.testClient.getBlockNumber({ cacheTime: 0 });

    const submitted = await submitPayments(world, taskQueue, intents);
    const signed = async () =>
      (
        await world.database.kysely
          .selectFrom('transaction_attempts')
          .select((eb) => eb.fn.countAll<number>().as('count'))
          .executeTakeFirstOrThrow()
      ).count;
    await waitFor(async () => Number(await signed()) >= intents / 4, 'a quarter signed', 60_000);
    await kms.kill();
    try {
      // A signature KMS gave just before it died may still be on its way to the store.
      const signedWhileDown = await steadyValue(async () => Number(await signed()), 1000);
      expect(signedWhileDown).toBeLessThan(intents);
      await sleep(3000);
      // Nothing is signed while KMS is away.
      expect(Number(await signed())).toBe(signedWhileDown);
    } finally {
      // The tests after this one need KMS, whatever this one found.
      await kms.restart();
    }
    await waitUntilEnded(world, ids(submitted), 180_000);

    const rows = await world.database.kysely
      .selectFrom('intents')
      .selectAll()
      .where('id', 'in', ids(submitted))
      .execute();
    expect(rows.filter((row) => row.status !== 'confirmed')).toEqual([]);
    const mined = await minedTransactions(world, startBlock);
    expect(mined).toHaveLength(intents);
    expect(new Set(mined.map((tx) => tx.from))).toEqual(
      new Set(wallets.map((address) => address.toLowerCase())),
    );
    expect(
      await invariantViolations({
        world,
        deposits: { acme: parseEther('1000') },
        wallets,
        accepted: ids(submitted),
      }),
    ).toEqual([]);
  });

  it('a key re-pointed to another key signs nothing: the intent fails before signing, its hold released', async () => {
    const [, wallet] = wallets;
    const nonceBefore = await world.chain.pendingNonce(wallet!);
    // The alias now names a key that is not the wallet's (an operator's slip).
    const otherKey = await kms.createSigningKey();
    await kms.client.send(
      new UpdateAliasCommand({ AliasName: 'alias/hot-2', TargetKeyId: otherKey }),
    );

    const [submitted] = await submitPayments(world, taskQueue, 1, wallet);
    const { intent } = submitted!;
    await waitUntilEnded(world, [intent.id], 60_000);

    const row = await world.database.kysely
      .selectFrom('intents')
      .selectAll()
      .where('id', '=', intent.id)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('failed');
    expect(row.reason_code).toBe('signer_mismatch');
    expect(row.reason).toMatch(
      /^SignerMismatch: the signer of .* \(kms:alias\/hot-2\) does not sign for it as asked/,
    );
    expect(row.tx_hash).toBeNull();
    const attempts = await world.database.kysely
      .selectFrom('transaction_attempts')
      .selectAll()
      .where('intent_id', '=', intent.id)
      .execute();
    expect(attempts).toEqual([]);
    expect(await world.chain.pendingNonce(wallet!)).toBe(nonceBefore);
    expect(
      await invariantViolations({ world, deposits: { acme: parseEther('1000') }, wallets }),
    ).toEqual([]);
  });

  it("a worker whose KMS key is not its wallet's, or not secp256k1, does not start", async () => {
    const stranger = privateKeyToAccount(generatePrivateKey()).address;
    const another = privateKeyToAccount(generatePrivateKey()).address;
    const p256 = await kms.client.send(
      new CreateKeyCommand({ KeySpec: 'ECC_NIST_P256', KeyUsage: 'SIGN_VERIFY' }),
    );
    const p256KeyId = p256.KeyMetadata!.KeyId!;
    const start = spawnWorker(
      world.env({
        TASK_QUEUE: `e2e-${randomUUID()}`,
        ...kmsSettings(`${stranger}=kms:alias/hot-1,${another}=kms:${p256KeyId}`),
      }),
    );
    const refusal = await start.then(
      () => 'started',
      (error: Error) => error.message,
    );
    expect(refusal).toContain(
      `WALLET_SIGNERS: the signer of ${stranger} (kms:alias/hot-1) does not sign for it as asked: the key's address is ${wallets[0]}`,
    );
    expect(refusal).toContain(
      `WALLET_SIGNERS: the signer of ${another} (kms:${p256KeyId}) refuses to sign: the key is ECC_NIST_P256, not ECC_SECG_P256K1`,
    );
  });

  it('a disabled key signs nothing: the intent fails unsigned, naming the key', async () => {
    const [wallet] = wallets;
    const { KeyMetadata } = await kms.client.send(new DescribeKeyCommand({ KeyId: 'alias/hot-1' }));
    await kms.client.send(new DisableKeyCommand({ KeyId: KeyMetadata!.KeyId! }));

    const [submitted] = await submitPayments(world, taskQueue, 1, wallet);
    await waitUntilEnded(world, [submitted!.intent.id], 60_000);

    const row = await world.database.kysely
      .selectFrom('intents')
      .selectAll()
      .where('id', '=', submitted!.intent.id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'failed', tx_hash: null, reason_code: 'signer_refused' });
    expect(row.reason).toMatch(
      /^SignerRefused: the signer of .* \(kms:alias\/hot-1\) refuses to sign: DisabledException/,
    );
    expect(
      await invariantViolations({ world, deposits: { acme: parseEther('1000') }, wallets }),
    ).toEqual([]);
  });
});

describe("the compose stack's treasury key (workers/provision-kms-treasury.ts)", () => {
  it('is made once under its alias and found again; its address funded only where it holds nothing', async () => {
    const made = await ensureKmsSigningKey(kms.client, 'alias/treasury-once');
    const again = await ensureKmsSigningKey(kms.client, 'alias/treasury-once');
    expect([made.created, again.created]).toEqual([true, false]);
    expect(again.address).toBe(made.address);
    const { KeyMetadata } = await kms.client.send(
      new DescribeKeyCommand({ KeyId: 'alias/treasury-once' }),
    );
    expect([KeyMetadata!.KeySpec, KeyMetadata!.KeyUsage]).toEqual([
      'ECC_SECG_P256K1',
      'SIGN_VERIFY',
    ]);

    const rpcUrl = world.anvil.rpcUrl;
    expect(await fundOnDevelopmentChain(rpcUrl, made.address, parseEther('1000'))).toBe(true);
    expect(await fundOnDevelopmentChain(rpcUrl, made.address, parseEther('1000'))).toBe(false);
    expect(await world.testClient.getBalance({ address: made.address })).toBe(parseEther('1000'));
  });
});
