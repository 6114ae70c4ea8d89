import { parseGwei } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { localSigner } from '../../chain/signers/local-signer';
import { signChecked, signerOf, type SignableTransfer } from '../../chain/signers/wallet-signer';
import { RelayerError } from '../../domain/errors';
import { ErrorName } from '../../domain/error-catalogue';

const walletKey = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const otherKey = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
const wallet = privateKeyToAccount(walletKey);
const attacker = privateKeyToAccount(otherKey).address;

const transfer: SignableTransfer = {
  type: 'eip1559',
  chainId: 31337,
  nonce: 7,
  to: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
  value: 10n ** 18n,
  gas: 21_000n,
  maxFeePerGas: parseGwei('30'),
  maxPriorityFeePerGas: parseGwei('1'),
};

async function refusal(signing: Promise<unknown>): Promise<RelayerError> {
  const error = await signing.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(RelayerError);
  return error as RelayerError;
}

describe('signing checked before anything is stored', () => {
  it('returns the bytes a local key signed', async () => {
    await expect(signChecked(localSigner(walletKey), transfer)).resolves.toBe(
      await wallet.signTransaction(transfer),
    );
  });

  it('takes zeros as signed: a cancel to the wallet itself, value 0, nonce 0, no tip', async () => {
    const cancel = {
      ...transfer,
      nonce: 0,
      to: wallet.address,
      value: 0n,
      maxPriorityFeePerGas: 0n,
    };
    await expect(signChecked(localSigner(walletKey), cancel)).resolves.toBe(
      await wallet.signTransaction(cancel),
    );
  });

  it('refuses bytes signed by another key than the wallet’s', async () => {
    const wrongKey = signerOf(wallet.address, 'kms:alias/other', (tx) =>
      privateKeyToAccount(otherKey).signTransaction(tx),
    );
    const error = await refusal(signChecked(wrongKey, transfer));
    expect(error.name).toBe(ErrorName.signerMismatch);
    expect(error.message).toContain(`recovers to ${attacker}`);
    expect(error.message).toContain('kms:alias/other');
  });

  it('refuses a signer that changed what it was asked to sign', async () => {
    const rewriting = signerOf(wallet.address, 'remote:signer:9000', (tx) =>
      wallet.signTransaction({ ...tx, to: attacker, value: tx.value! * 2n }),
    );
    const error = await refusal(signChecked(rewriting, transfer));
    expect(error.name).toBe(ErrorName.signerMismatch);
    expect(error.message).toContain('it changed to, value');
  });

  it('refuses an answer that is no signed transaction', async () => {
    const garbage = signerOf(wallet.address, 'remote:signer:9000', async () => '0x02c0');
    expect((await refusal(signChecked(garbage, transfer))).name).toBe(ErrorName.signerMismatch);
  });

  it('counts an untyped failure as the signer unavailable: the step retries', async () => {
    const down = signerOf(wallet.address, 'remote:signer:9000', () =>
      Promise.reject(new Error('socket hang up')),
    );
    const error = await refusal(signChecked(down, transfer));
    expect(error.name).toBe(ErrorName.signerUnavailable);
    expect(error.message).toContain('socket hang up');
  });
});
