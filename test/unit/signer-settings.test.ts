import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { privateKeyToAccount } from 'viem/accounts';
import { loadConfig } from '../../workers/config/load';
import { problemsOf } from '../harness/config-problems';
import { scratchDir } from '../harness/scratch-dir';

const key = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const keyAddress = privateKeyToAccount(key).address;
const wallet = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const other = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';

describe('where the wallets’ keys are', () => {
  it('reads each wallet’s signer: a KMS key by id, ARN or alias, or a remote signer’s URL', () => {
    const config = loadConfig({
      WALLET_SIGNERS: `${wallet}=kms:alias/hot-1, ${other}=remote:https://signer.internal:9000`,
      AWS_REGION: 'eu-west-2',
    });
    expect(config.walletSigners).toEqual([
      { address: wallet, kind: 'kms', keyId: 'alias/hot-1' },
      { address: other, kind: 'remote', url: 'https://signer.internal:9000' },
    ]);
    const arn = 'arn:aws:kms:eu-west-2:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab';
    expect(
      loadConfig({ WALLET_SIGNERS: `${wallet}=kms:${arn}`, AWS_REGION: 'eu-west-2' }).walletSigners,
    ).toEqual([{ address: wallet, kind: 'kms', keyId: arn }]);
  });

  it('takes local keys from a file too, one per line', () => {
    const file = join(scratchDir('keys'), 'keys');
    writeFileSync(file, `# the hot wallet\n${key}\n\n`);
    expect(loadConfig({ HOT_WALLET_KEYS_FILE: file }).hotWalletKeysFile).toEqual([key]);
    const [problem] = problemsOf({ HOT_WALLET_KEYS_FILE: join(file, 'missing') });
    expect(problem).toMatch(/^HOT_WALLET_KEYS_FILE: cannot read .* \(ENOTDIR\)/);
    writeFileSync(file, '0xdeadbeef\n');
    const [bad] = problemsOf({ HOT_WALLET_KEYS_FILE: file });
    expect(bad).toMatch(/^HOT_WALLET_KEYS_FILE: key 1 of .* must be 0x followed by 64 hex digits/);
    expect(bad).not.toContain('deadbeef');
  });

  it.each([
    [`${wallet}=kms:`, /^WALLET_SIGNERS: entry 1: kms needs a key id/],
    [
      `${wallet}=kms:alias/a,${other}=vault:secret/hot`,
      /^WALLET_SIGNERS: entry 2: unknown signer kind "vault" \(one of kms, remote\)/,
    ],
    [`${wallet}=remote:ftp://signer:21`, /^WALLET_SIGNERS: entry 1: remote needs an http\(s\) URL/],
    [`${wallet}=remote:signer:9000`, /^WALLET_SIGNERS: entry 1: remote needs an http\(s\) URL/],
    ['0x1234=kms:alias/a', /^WALLET_SIGNERS: entry 1: 0x1234 is not an address/],
    [
      `${wallet}`,
      /^WALLET_SIGNERS: entry 1: must be written <address>=kms:<key id> or <address>=remote:<url>/,
    ],
  ])('refuses %s naming the variable and the entry', (value, message) => {
    const problems = problemsOf({
      HOT_WALLET_KEYS: key,
      WALLET_SIGNERS: value,
      AWS_REGION: 'eu-west-2',
    });
    expect(problems).toEqual([expect.stringMatching(message)]);
  });

  it('never echoes a signer URL back: it may carry credentials', () => {
    const [problem] = problemsOf({
      HOT_WALLET_KEYS: key,
      WALLET_SIGNERS: `${wallet}=remote:https://user:hunter2@signer:9000,${other}=nope:x`,
    });
    expect(problem).not.toContain('hunter2');
  });

  it('needs the region for a KMS key, one key per wallet, and a wallet for a worker', () => {
    expect(problemsOf({ WALLET_SIGNERS: `${wallet}=kms:alias/a` })).toEqual([
      'AWS_REGION: required when WALLET_SIGNERS names a KMS key',
    ]);
    expect(problemsOf({ WALLET_SIGNERS: `${wallet}=kms:alias/a`, AWS_REGION: 'Ireland' })).toEqual([
      expect.stringMatching(/^AWS_REGION: must be an AWS region such as eu-west-2/),
    ]);
    expect(
      problemsOf({
        HOT_WALLET_KEYS: key,
        WALLET_SIGNERS: `${keyAddress}=remote:http://signer:9000`,
      }),
    ).toEqual([`WALLET_SIGNERS: wallet ${keyAddress} is already given in HOT_WALLET_KEYS`]);
    expect(problemsOf({})).toEqual([
      expect.stringMatching(
        /^HOT_WALLET_KEYS: required by the worker process, unless HOT_WALLET_KEYS_FILE or WALLET_SIGNERS/,
      ),
    ]);
    // The API process signs nothing.
    expect(loadConfig({ API_PORT: '3000', API_HOST: '127.0.0.1' }, ['api']).walletSigners).toEqual(
      [],
    );
  });
});
