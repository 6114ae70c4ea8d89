import { keccak256, parseEther, parseGwei, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { Chain } from '../../chain/chain';
import { createEvmChain } from '../../chain/evm-chain';
import {
  classifyRpcError,
  rpcErrorTable,
  type RpcErrorClass,
  type RpcErrorKind,
} from '../../chain/evm-rpc-errors';
import { RelayerError } from '../../domain/errors';
import { ErrorName } from '../../domain/error-catalogue';
import type { ProxyFault } from '../harness/stack/rpc-proxy';
import { evmChainSettings } from '../../workers/chain-settings';
import { useWorld } from '../harness/test-world';

/**
 * One case per row of the RPC error table: the error produced by a real anvil where anvil can
 * produce it, otherwise a recorded answer of another node or provider replayed through the
 * proxy, so viem parses it exactly as it would the real one. Each case checks the row the error
 * lands in and what the chain adapter makes of it.
 */
const world = useWorld({ proxy: true, wallets: 1, tenants: {} });
let chain: Chain;
let wallet: ReturnType<typeof privateKeyToAccount>;
beforeAll(async () => {
  // Short, for the row of no answer, yet long enough for a proxied answer on a machine loaded
  // beside CPU hogs (test:stress).
  chain = createEvmChain(evmChainSettings(world.config({ RPC_TIMEOUT_MS: '1500' })));
  wallet = privateKeyToAccount(world.walletKeys[0]!);
});
afterEach(async () => {
  world.proxy!.failWith(undefined);
  await world.testClient.setAutomine(true);
});

const to = privateKeyToAccount(generatePrivateKey()).address;

async function signed(overrides: { nonce?: number; value?: bigint; gas?: bigint; fee?: bigint }) {
  const nonce = overrides.nonce ?? (await chain.pendingNonce(wallet.address));
  const fee = overrides.fee ?? parseGwei('10');
  const rawTx = await wallet.signTransaction({
    chainId: world.anvil.chainId,
    type: 'eip1559',
    nonce,
    to,
    value: overrides.value ?? 1n,
    gas: overrides.gas ?? 21_000n,
    maxFeePerGas: fee,
    maxPriorityFeePerGas: fee < parseGwei('1') ? fee : parseGwei('1'),
  });
  return rawTx;
}

const asSigned = (rawTx: Hex) => ({ rawTx, txHash: keccak256(rawTx) });

/** What sending `rawTx` straight to anvil fails with. */
async function anvilRefusal(rawTx: Hex): Promise<unknown> {
  return world.testClient.sendRawTransaction({ serializedTransaction: rawTx }).then(
    () => {
      throw new Error('anvil accepted the transaction');
    },
    (error: unknown) => error,
  );
}

/** What a call through the proxy fails with while it answers with `fault`. */
async function proxied(fault: ProxyFault, call: () => Promise<unknown>): Promise<unknown> {
  world.proxy!.failWith(fault);
  try {
    await call();
  } catch (error) {
    return error;
  } finally {
    world.proxy!.failWith(undefined);
  }
  throw new Error('the call succeeded');
}

// A fresh read (no age allowed): a head the watcher read within a look's age is answered from
// memory, never reaching the proxy, and the case passed or failed by how soon it came.
const blockNumberThroughProxy = () => chain.blockNumber(0);
const relayerErrorType = (error: unknown) =>
  error instanceof RelayerError ? error.name : `(not a relayer error: ${String(error)})`;

interface Case {
  source: 'anvil' | 'recorded';
  produce: () => Promise<unknown>;
  /** What the chain adapter turns it into: its typed error, or a broadcast outcome. */
  adapter?: () => Promise<unknown>;
  expected: RpcErrorClass;
  adapterGives?: unknown;
}

const cases: Record<string, Case> = {
  'HTTP 429 from the provider': {
    source: 'anvil',
    produce: () =>
      proxied(
        { kind: 'http-status', status: 429, body: 'Too Many Requests' },
        blockNumberThroughProxy,
      ),
    expected: { kind: 'rate_limited', action: 'retry' },
    adapter: () => proxied({ kind: 'http-status', status: 429 }, blockNumberThroughProxy),
    adapterGives: ErrorName.rpcUnavailable,
  },
  'JSON-RPC -32005 "limit exceeded" in an HTTP 200 (recorded, Infura)': {
    source: 'recorded',
    produce: () =>
      proxied(
        {
          kind: 'rpc-error',
          code: -32005,
          message: 'daily request count exceeded, request rate limited',
        },
        blockNumberThroughProxy,
      ),
    expected: { kind: 'rate_limited', action: 'retry' },
  },
  'no answer within RPC_TIMEOUT_MS': {
    source: 'anvil',
    produce: () => proxied({ kind: 'hang' }, blockNumberThroughProxy),
    expected: { kind: 'timeout', action: 'retry' },
    adapter: () => proxied({ kind: 'hang' }, blockNumberThroughProxy),
    adapterGives: ErrorName.rpcUnavailable,
  },
  'connection reset': {
    source: 'anvil',
    produce: () => proxied({ kind: 'reset' }, blockNumberThroughProxy),
    expected: { kind: 'unreachable', action: 'retry' },
  },
  'HTTP 503 from the provider': {
    source: 'anvil',
    produce: () => proxied({ kind: 'http-status', status: 503 }, blockNumberThroughProxy),
    expected: { kind: 'unreachable', action: 'retry' },
  },
  'already imported (anvil), same bytes twice': {
    source: 'anvil',
    async produce() {
      await world.testClient.setAutomine(false);
      const rawTx = await signed({});
      await world.testClient.sendRawTransaction({ serializedTransaction: rawTx });
      return anvilRefusal(rawTx);
    },
    async adapter() {
      await world.testClient.setAutomine(false);
      const rawTx = await signed({});
      const signedTransfer = {
        rawTx,
        txHash: await world.testClient.sendRawTransaction({ serializedTransaction: rawTx }),
      };
      return chain.broadcast(signedTransfer);
    },
    expected: { kind: 'already_known', action: 'sent' },
    adapterGives: 'already-known',
  },
  '"already known" (recorded, geth)': {
    source: 'recorded',
    produce: () =>
      proxied(
        { kind: 'rpc-error', code: -32000, message: 'already known' },
        blockNumberThroughProxy,
      ),
    expected: { kind: 'already_known', action: 'sent' },
  },
  'nonce too low (anvil), the nonce used by another transaction': {
    source: 'anvil',
    produce: async () => anvilRefusal(await signed({ nonce: 0, value: 7n })),
    expected: { kind: 'nonce_too_low', action: 'reconcile' },
    adapter: async () => {
      const rawTx = await signed({ nonce: 0, value: 8n });
      return chain.broadcast(asSigned(rawTx));
    },
    adapterGives: 'nonce-taken',
  },
  '"nonce too high" (recorded, geth with a nonce gap limit)': {
    source: 'recorded',
    produce: () =>
      proxied(
        { kind: 'rpc-error', code: -32000, message: 'nonce too high' },
        blockNumberThroughProxy,
      ),
    expected: { kind: 'nonce_too_high', action: 'retry' },
  },
  'replacement transaction underpriced (anvil)': {
    source: 'anvil',
    async produce() {
      await world.testClient.setAutomine(false);
      const nonce = await chain.pendingNonce(wallet.address);
      await world.testClient.sendRawTransaction({ serializedTransaction: await signed({ nonce }) });
      return anvilRefusal(await signed({ nonce, value: 2n }));
    },
    async adapter() {
      await world.testClient.setAutomine(false);
      const nonce = await chain.pendingNonce(wallet.address);
      await world.testClient.sendRawTransaction({ serializedTransaction: await signed({ nonce }) });
      const rawTx = await signed({ nonce, value: 3n });
      return chain.broadcast(asSigned(rawTx));
    },
    expected: { kind: 'replacement_underpriced', action: 'replace' },
    adapterGives: 'replace-needed',
  },
  'max fee per gas less than block base fee (anvil)': {
    source: 'anvil',
    produce: async () => anvilRefusal(await signed({ fee: 1n })),
    adapter: async () => chain.broadcast(asSigned(await signed({ fee: 2n }))),
    expected: { kind: 'fee_below_base_fee', action: 'replace' },
    adapterGives: 'replace-needed',
  },
  'insufficient funds for gas * price + value (anvil)': {
    source: 'anvil',
    produce: async () => anvilRefusal(await signed({ value: parseEther('1000000') })),
    adapter: async () =>
      chain
        .broadcast(asSigned(await signed({ value: parseEther('1000000') })))
        .catch(relayerErrorType),
    expected: { kind: 'insufficient_funds', action: 'retry' },
    adapterGives: ErrorName.walletUnderfunded,
  },
  'execution reverted (anvil, gas estimate of a call to reverting code)': {
    source: 'anvil',
    async produce() {
      const reverter = privateKeyToAccount(generatePrivateKey()).address;
      // PUSH1 0 PUSH1 0 REVERT: every call reverts.
      await world.testClient.setCode({ address: reverter, bytecode: '0x60006000fd' });
      return world.testClient
        .estimateGas({ account: wallet.address, to: reverter, value: 1n })
        .catch((error: unknown) => error);
    },
    async adapter() {
      const reverter = privateKeyToAccount(generatePrivateKey()).address;
      await world.testClient.setCode({ address: reverter, bytecode: '0x60006000fd' });
      return chain
        .planTransfer({ from: wallet.address, to: reverter, value: 1n })
        .catch(relayerErrorType);
    },
    expected: { kind: 'execution_reverted', action: 'fail' },
    adapterGives: ErrorName.transferRejected,
  },
  'intrinsic gas too low (anvil)': {
    source: 'anvil',
    produce: async () => anvilRefusal(await signed({ gas: 20_000n })),
    adapter: async () =>
      chain.broadcast(asSigned(await signed({ gas: 20_000n }))).catch(relayerErrorType),
    expected: { kind: 'intrinsic_gas_too_low', action: 'fail' },
    adapterGives: ErrorName.transferRejected,
  },
  'an answer nobody has seen before (recorded)': {
    source: 'recorded',
    produce: () =>
      proxied(
        { kind: 'rpc-error', code: -32099, message: 'the moon is in the wrong phase' },
        blockNumberThroughProxy,
      ),
    expected: { kind: 'unknown', action: 'retry' },
  },
};

describe('the RPC error table, row by row', () => {
  beforeAll(async () => {
    // A mined transaction at nonce 0, for "nonce too low".
    await world.testClient.sendRawTransaction({
      serializedTransaction: await signed({ nonce: 0 }),
    });
  });

  it.each(Object.entries(cases))('%s', async (_name, testCase) => {
    const error = await testCase.produce();
    expect(classifyRpcError(error)).toEqual(testCase.expected);
    if (testCase.adapter) {
      const given = await testCase.adapter();
      expect(given instanceof RelayerError ? given.name : given).toBe(testCase.adapterGives);
    }
  });

  it('has a case for every row', () => {
    const covered = new Set<RpcErrorKind>(Object.values(cases).map((c) => c.expected.kind));
    expect([...covered].sort()).toEqual(rpcErrorTable.map((row) => row.kind).sort());
  });
});
