import {
  decodeAbiParameters,
  encodeFunctionData,
  getAddress,
  hexToBigInt,
  keccak256,
  toHex,
  type Log,
} from 'viem';
import type { Hex } from '../domain/transfer';

/** An ERC-20 `Transfer(from, to, value)` log, as a receipt carries it. */
export interface TokenTransfer {
  /** The contract that emitted it. */
  token: Hex;
  from: Hex;
  to: Hex;
  value: bigint;
}

export const transferTopic = keccak256(toHex('Transfer(address,address,uint256)'));

/** The ERC-20 Transfer logs among a receipt's logs (anything else, and malformed ones, skipped). */
export function tokenTransfersOf(
  logs: readonly Pick<Log, 'address' | 'topics' | 'data'>[],
): TokenTransfer[] {
  const transfers: TokenTransfer[] = [];
  for (const log of logs) {
    const [topic, from, to] = log.topics;
    if (topic !== transferTopic || !from || !to || log.data.length !== 66) continue;
    transfers.push({
      token: getAddress(log.address),
      from: getAddress(`0x${from.slice(26)}`),
      to: getAddress(`0x${to.slice(26)}`),
      value: hexToBigInt(log.data),
    });
  }
  return transfers;
}

/** What `token` moved from `from` to `to` in one transaction, by its Transfer logs. */
export const deliveredBy = (
  transfers: readonly TokenTransfer[],
  token: Hex,
  from: Hex,
  to: Hex,
): bigint =>
  transfers
    .filter(
      (transfer) =>
        transfer.token.toLowerCase() === token.toLowerCase() &&
        transfer.from.toLowerCase() === from.toLowerCase() &&
        transfer.to.toLowerCase() === to.toLowerCase(),
    )
    .reduce((sum, transfer) => sum + transfer.value, 0n);

/**
 * What a simulated `transfer` answered, by SafeERC20's rule: no return data (USDT's shape) or
 * `true` is accepted, `false` is a refusal, anything else is not an ERC-20 answer.
 */
export function judgeTransferReturn(
  data: Hex | undefined,
): { ok: true } | { ok: false; why: string } {
  if (data === undefined || data === '0x') return { ok: true };
  if (data.length !== 66) return { ok: false, why: `its transfer answered ${data}, not a bool` };
  const [value] = decodeAbiParameters([{ type: 'uint256' }], data);
  if (value === 1n) return { ok: true };
  if (value === 0n) return { ok: false, why: 'its transfer returns false (nothing would move)' };
  return { ok: false, why: `its transfer answered ${data}, not a bool` };
}

export const erc20ReadAbi = [
  {
    type: 'function',
    name: 'symbol',
    stateMutability: 'view',
    inputs: [],
    outputs: [{ type: 'string' }],
  },
  {
    type: 'function',
    name: 'decimals',
    stateMutability: 'view',
    inputs: [],
    outputs: [{ type: 'uint8' }],
  },
  {
    type: 'function',
    name: 'balanceOf',
    stateMutability: 'view',
    inputs: [{ name: 'account', type: 'address' }],
    outputs: [{ type: 'uint256' }],
  },
] as const;

export const balanceOfCall = (account: Hex): Hex =>
  encodeFunctionData({ abi: erc20ReadAbi, functionName: 'balanceOf', args: [account] });

/**
 * EVM code that, run *as the sending wallet* (an eth_call with this code put at the wallet's
 * address by a state override), sends `amount` of `token` to `probe` and returns what `probe`'s
 * balance grew by: less than `amount` is a fee taken on transfer, 0 a transfer that could not be
 * made (too little balance, a refusal). Nothing is ever sent. `probe` must be a fresh address.
 *
 * memory[0] = transfer(probe, amount); CALL token (its result dropped);
 * memory[0x200] = balanceOf(probe); STATICCALL token, answer to memory[0]; RETURN memory[0..32].
 */
export function deliveryProbeCode(token: Hex, probe: Hex, amount: bigint): Hex {
  const transfer = encodeFunctionData({
    abi: erc20TransferSignature,
    functionName: 'transfer',
    args: [probe, amount],
  }).slice(2);
  const balanceOf = balanceOfCall(probe).slice(2);
  const hex2 = (n: number) => n.toString(16).padStart(4, '0');
  const store = (bytes: string, offset: number) => {
    let code = '';
    for (let i = 0; i * 64 < bytes.length; i++) {
      const word = bytes.slice(i * 64, i * 64 + 64).padEnd(64, '0');
      code += `7f${word}61${hex2(offset + i * 32)}52`; // PUSH32 word, PUSH2 offset, MSTORE
    }
    return code;
  };
  const pushToken = `73${token.slice(2).toLowerCase()}`;
  const balanceAt = 0x200;
  return `0x${[
    store(transfer, 0),
    // CALL(gas, token, 0, 0, len, 0, 0), result popped
    `6000600061${hex2(transfer.length / 2)}60006000${pushToken}5af150`,
    store(balanceOf, balanceAt),
    // STATICCALL(gas, token, 0x200, len, 0, 32), result popped
    `6020600061${hex2(balanceOf.length / 2)}61${hex2(balanceAt)}${pushToken}5afa50`,
    // RETURN(0, 32)
    '60206000f3',
  ].join('')}`;
}

/** `transfer(address,uint256)` whatever it returns: the call data is the same for every token. */
const erc20TransferSignature = [
  {
    type: 'function',
    name: 'transfer',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'to', type: 'address' },
      { name: 'amount', type: 'uint256' },
    ],
    outputs: [],
  },
] as const;
