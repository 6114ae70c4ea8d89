import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseEther, parseGwei } from 'viem';
import { evmChainsSettings } from '../../workers/chain-settings';
import { loadConfig } from '../../workers/config/load';
import { problemsOf } from '../harness/config-problems';

const key = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const wallet = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'chains-file-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const fileWith = (name: string, content: string): string => {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
};

describe('CHAINS_FILE', () => {
  it('gives each chain its own endpoints and quotas, block time, depth, gas pricing, caps, wallets and low mark; what it leaves out comes from the environment', () => {
    const path = fileWith(
      'two.yaml',
      `chains:
  - chainId: 1
    name: ethereum
    rpc:
      - url: https://eth.example/v2/secret
        unitsPerSecond: 330
        burstUnits: 660
        weights: alchemy
      - https://backup.example
    blockTimeMs: 12000
    confirmations: 3
    maxFeePerGasGwei: 80
    lowBalanceEth: "0.5"
  - chainId: 56
    name: bnb
    rpc: [https://bnb.example]
    blockTimeMs: 3000
    gasPricing: legacy
    wallets: ["${wallet.toLowerCase()}"]
`,
    );
    const config = loadConfig({
      HOT_WALLET_KEYS: key,
      CHAINS_FILE: path,
      CONFIRMATIONS: '2',
      RPC_UNITS_PER_SECOND: '40',
    });
    expect(config.chainId).toBe(1);
    expect(config.rpcUrls).toEqual(['https://eth.example/v2/secret', 'https://backup.example']);
    const [ethereum, bnb] = config.chains;
    expect(ethereum).toMatchObject({
      name: 'ethereum',
      blockTimeMs: 12_000,
      confirmations: 3,
      gasPricing: 'eip1559',
      maxFeePerGas: parseGwei('80'),
      maxPriorityFeePerGas: parseGwei('20'),
      lowBalanceWei: parseEther('0.5'),
    });
    expect(ethereum!.endpoints.map((e) => [e.unitsPerSecond, e.burstUnits])).toEqual([
      [330, 660],
      [40, 100],
    ]);
    expect(ethereum!.endpoints[0]!.weights.byMethod.eth_sendRawTransaction).toBe(250);
    expect(ethereum!.wallets).toBeUndefined();
    expect(bnb).toMatchObject({
      chainId: 56,
      blockTimeMs: 3000,
      confirmations: 2,
      gasPricing: 'legacy',
      wallets: [wallet],
    });
  });

  it('names the chain and the key of every problem, all at once, JSON as well as YAML', () => {
    const path = fileWith(
      'bad.json',
      JSON.stringify({
        chains: [
          { chainId: 1, name: 'ethereum', rpc: ['https://eth.example'], confirmation: 3 },
          {
            chainId: 1,
            name: 'Base',
            rpc: [{ url: 'https://base.example', unitsPerSecond: 0 }],
            gasPricing: 'eip4844',
          },
          { chainId: 10, name: 'optimism', rpc: [] },
        ],
      }),
    );
    expect(problemsOf({ HOT_WALLET_KEYS: key, CHAINS_FILE: path })).toEqual([
      `CHAINS_FILE ${path}: chains[0] (ethereum): Unrecognized key: "confirmation"`,
      `CHAINS_FILE ${path}: chains[1] (Base).name: must be lower-case letters, digits and "-"`,
      `CHAINS_FILE ${path}: chains[1] (Base).rpc[0].unitsPerSecond: must be at least 1`,
      `CHAINS_FILE ${path}: chains[1] (Base).gasPricing: must be eip1559 or legacy`,
      `CHAINS_FILE ${path}: chains[2] (optimism).rpc: must list at least one endpoint`,
    ]);
    // A chain named twice, once the chains themselves are well formed.
    const twice = fileWith(
      'twice.yaml',
      'chains:\n  - {chainId: 1, name: a, rpc: [https://a.example]}\n  - {chainId: 1, name: b, rpc: [https://b.example]}\n',
    );
    expect(problemsOf({ HOT_WALLET_KEYS: key, CHAINS_FILE: twice })).toEqual([
      `CHAINS_FILE ${twice}: chains[1] (b).chainId: chain 1 is already chains[0]`,
    ]);
  });

  it('takes a preset for a chain payouts run on, each of its settings overridable, and a fee family; an unknown one is refused naming the key', () => {
    const path = fileWith(
      'presets.yaml',
      `chains:
  - preset: base
    rpc: [https://base.example]
  - preset: polygon-pos
    rpc: [https://polygon.example]
    confirmations: 12
  - preset: arbitrum-one
    rpc: [https://arbitrum.example]
  - chainId: 84532
    name: base-sepolia
    family: op-stack
    rpc: [https://sepolia.base.example]
`,
    );
    const [base, polygon, arbitrum, sepolia] = loadConfig({
      HOT_WALLET_KEYS: key,
      CHAINS_FILE: path,
    }).chains;
    expect(base).toMatchObject({
      chainId: 8453,
      name: 'base',
      family: 'op-stack',
      blockTimeMs: 2000,
      confirmations: 1,
      finality: 'finalized',
      maxFeePerGas: parseGwei('5'),
      maxPriorityFeePerGas: parseGwei('1'),
      maxFeePerTransfer: parseEther('0.001'),
      minPriorityFeePerGas: 0n,
    });
    expect(polygon).toMatchObject({
      chainId: 137,
      family: 'polygon',
      confirmations: 12,
      minPriorityFeePerGas: parseGwei('30'),
    });
    expect(arbitrum).toMatchObject({
      chainId: 42161,
      family: 'arbitrum',
      blockTimeMs: 250,
      baseFeeFloorPerGas: parseGwei('0.01'),
    });
    expect(sepolia).toMatchObject({ chainId: 84532, family: 'op-stack', confirmations: 1 });
    const bad = fileWith(
      'bad-presets.yaml',
      `chains:
  - {preset: bsae, rpc: [https://a.example]}
  - {chainId: 5, name: b, family: zksync, rpc: [https://b.example]}
`,
    );
    expect(problemsOf({ HOT_WALLET_KEYS: key, CHAINS_FILE: bad })).toEqual([
      `CHAINS_FILE ${bad}: chains[0].preset: must be one of base, op-mainnet, arbitrum-one, polygon-pos`,
      `CHAINS_FILE ${bad}: chains[0].chainId: Invalid input`,
      `CHAINS_FILE ${bad}: chains[0].name: Invalid input: expected string, received undefined`,
      `CHAINS_FILE ${bad}: chains[1] (b).family: must be one of ethereum, op-stack, arbitrum, polygon`,
    ]);
    const floorAboveCap = fileWith(
      'floor.yaml',
      'chains:\n  - {preset: polygon-pos, rpc: [https://p.example], maxPriorityFeeGwei: 20}\n',
    );
    expect(problemsOf({ HOT_WALLET_KEYS: key, CHAINS_FILE: floorAboveCap })).toEqual([
      `CHAINS_FILE ${floorAboveCap}: chains (polygon-pos).minPriorityFeeGwei: 30 is above the tip cap of 20 gwei (maxPriorityFeeGwei, or MAX_PRIORITY_FEE_GWEI): no bid could meet both`,
    ]);
  });

  it('refuses an endpoint whose quota cannot pay for one send, and a file beside the shorthand', () => {
    const path = fileWith(
      'tight.yaml',
      'chains:\n  - {chainId: 1, name: eth, rpc: [{url: "https://eth.example", weights: alchemy, unitsPerSecond: 100, burstUnits: 300}]}\n',
    );
    expect(problemsOf({ HOT_WALLET_KEYS: key, CHAINS_FILE: path })).toEqual([
      `CHAINS_FILE ${path}: chains (eth).rpc[0].unitsPerSecond: must be at least 250, one send under its weights (got "100")`,
    ]);
    expect(
      problemsOf({ HOT_WALLET_KEYS: key, CHAINS_FILE: path, EXTRA_CHAINS: '5=http://x.example' }),
    ).toEqual(['CHAINS_FILE: names the chains; unset EXTRA_CHAINS (given too)']);
    expect(problemsOf({ HOT_WALLET_KEYS: key, CHAINS_FILE: join(dir, 'missing.yaml') })).toEqual([
      expect.stringMatching(/^CHAINS_FILE: cannot read .*missing\.yaml: ENOENT/),
    ]);
  });

  it('without a file, the shorthand is its chains: CHAIN_ID and RPC_URLS, then EXTRA_CHAINS', () => {
    const config = loadConfig({
      HOT_WALLET_KEYS: key,
      CHAIN_ID: '7',
      EXTRA_CHAINS: '8=http://eight.example',
      GAS_PRICING: 'legacy',
    });
    expect(
      config.chains.map((c) => [c.chainId, c.gasPricing, c.endpoints.map((e) => e.url)]),
    ).toEqual([
      [7, 'legacy', ['http://127.0.0.1:8545']],
      [8, 'legacy', ['http://eight.example']],
    ]);
  });

  it('names a treasury per chain, one of the process wallets and none of its hot ones, with targets above the low marks, in the native coin and tokens', () => {
    const second = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
    const usdc = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
    const secondKey = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
    const path = fileWith(
      'treasury.yaml',
      `chains:\n  - {chainId: 1, name: eth, rpc: [https://eth.example], treasury: "${second.toLowerCase()}", topUpTargetEth: 3, treasuryLowBalanceEth: 50, tokenTopUps: [{token: "${usdc.toLowerCase()}", lowBalance: 500, topUpTarget: "2000.5"}]}\n  - {chainId: 2, name: l2, rpc: [https://l2.example]}\n`,
    );
    const config = loadConfig({ HOT_WALLET_KEYS: `${key},${secondKey}`, CHAINS_FILE: path });
    expect(config.chains.map((c) => [c.chainId, c.treasury, c.topUpTargetWei])).toEqual([
      [
        1,
        {
          address: second,
          lowBalanceWei: parseEther('50'),
          tokens: [{ token: usdc, lowBalance: '500', topUpTarget: '2000.5' }],
        },
        parseEther('3'),
      ],
      [2, undefined, parseEther('1')],
    ]);
    // A token's target above its mark; token top-ups need a treasury.
    const tokens = fileWith(
      'tokens.yaml',
      `chains:\n  - {chainId: 1, name: eth, rpc: [https://eth.example], treasury: "${second}", tokenTopUps: [{token: "${usdc}", lowBalance: 500, topUpTarget: 500}]}\n`,
    );
    expect(problemsOf({ HOT_WALLET_KEYS: `${key},${secondKey}`, CHAINS_FILE: tokens })).toEqual([
      `CHAINS_FILE ${tokens}: chains[0] (eth).tokenTopUps[0].topUpTarget: topUpTarget must be above lowBalance`,
    ]);
    const untreasured = fileWith(
      'untreasured.yaml',
      `chains:\n  - {chainId: 1, name: eth, rpc: [https://eth.example], tokenTopUps: [{token: "${usdc}", lowBalance: 1, topUpTarget: 2}]}\n`,
    );
    expect(problemsOf({ HOT_WALLET_KEYS: key, CHAINS_FILE: untreasured })).toEqual([
      `CHAINS_FILE ${untreasured}: chains (eth).tokenTopUps: tops up from a treasury: name one (treasury, or TREASURY_WALLET)`,
    ]);
    // The treasury signs only top-ups: on the chain without a treasury it is no hot wallet either.
    const [eth, l2] = evmChainsSettings(config);
    expect(eth!.signers.map((signer) => signer.account.address)).toEqual([wallet]);
    expect(eth!.treasurySigner?.account.address).toBe(second);
    expect(l2!.signers.map((signer) => signer.account.address)).toEqual([wallet]);
    expect(l2!.treasury).toBeUndefined();
    // A worker that does not hold the treasury's key cannot sign its top-ups.
    expect(problemsOf({ HOT_WALLET_KEYS: key, CHAINS_FILE: path })).toEqual([
      `CHAINS_FILE ${path}: chains (eth).treasury: ${second} is none of this process's wallets (HOT_WALLET_KEYS, HOT_WALLET_KEYS_FILE, WALLET_SIGNERS)`,
    ]);
    const hot = fileWith(
      'treasury-hot.yaml',
      `chains:\n  - {chainId: 1, name: eth, rpc: [https://eth.example], wallets: ["${wallet}"], treasury: "${wallet}", topUpTargetEth: 0.05}\n`,
    );
    expect(problemsOf({ HOT_WALLET_KEYS: key, CHAINS_FILE: hot })).toEqual([
      `CHAINS_FILE ${hot}: chains[0] (eth).treasury: ${wallet} is one of the chain's hot wallets: a treasury only tops them up`,
    ]);
    // The shorthand: TREASURY_WALLET for every chain, its target above LOW_BALANCE_ETH.
    expect(
      problemsOf({ HOT_WALLET_KEYS: key, TREASURY_WALLET: wallet, TOP_UP_TARGET_ETH: '0.1' }),
    ).toEqual([
      'TOP_UP_TARGET_ETH: must be above LOW_BALANCE_ETH (0.1) when TREASURY_WALLET is set',
    ]);
    expect(problemsOf({ HOT_WALLET_KEYS: key, TREASURY_WALLET: '0x12' })).toEqual([
      expect.stringMatching(/^TREASURY_WALLET: must be a 0x address/),
    ]);
  });
});
