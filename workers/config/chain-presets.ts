import { z } from 'zod';
import { feeFamilies, type FeeFamily } from '../../chain/fee-policy';

export const feeFamilySchema = z.enum(feeFamilies, {
  error: `must be one of ${feeFamilies.join(', ')}`,
});

/**
 * The chains payouts run on, as an operator names them (`preset: base` in CHAINS_FILE) instead of
 * writing each setting: every key is one the file takes, in its units, and the file's own keys
 * override them. Figures and their sources are in docs/chains.md ("Presets"); check them against
 * the chain's current documentation before relying on a cap.
 */
export const chainPresets = {
  base: {
    chainId: 8453,
    name: 'base',
    family: 'op-stack',
    blockTimeMs: 2000,
    confirmations: 1,
    finality: 'finalized',
    maxFeePerGasGwei: '5',
    maxPriorityFeeGwei: '1',
    maxFeePerTransferEth: '0.001',
  },
  'op-mainnet': {
    chainId: 10,
    name: 'op-mainnet',
    family: 'op-stack',
    blockTimeMs: 2000,
    confirmations: 1,
    finality: 'finalized',
    maxFeePerGasGwei: '5',
    maxPriorityFeeGwei: '1',
    maxFeePerTransferEth: '0.001',
  },
  'arbitrum-one': {
    chainId: 42161,
    name: 'arbitrum-one',
    family: 'arbitrum',
    blockTimeMs: 250,
    confirmations: 1,
    finality: 'finalized',
    // ArbOS's minimum base fee; it takes no tip, so the tip cap stays at its floor.
    baseFeeFloorGwei: '0.01',
    maxFeePerGasGwei: '2',
    maxPriorityFeeGwei: '0.01',
    // Its gas units include the L1 calldata cost: a transfer takes far more than 21,000 of them.
    maxFeePerTransferEth: '0.005',
  },
  'polygon-pos': {
    chainId: 137,
    name: 'polygon-pos',
    family: 'polygon',
    blockTimeMs: 2000,
    confirmations: 5,
    finality: 'finalized',
    // Bor refuses tips under its minimum: bids meet it whatever the node suggests.
    minPriorityFeeGwei: '30',
    maxFeePerGasGwei: '1000',
    maxPriorityFeeGwei: '100',
    maxFeePerTransferEth: '0.1',
  },
} as const satisfies Record<string, Record<string, string | number> & { family: FeeFamily }>;

export type ChainPreset = keyof typeof chainPresets;
export const presetNames = Object.keys(chainPresets) as ChainPreset[];

/**
 * A chain of the file with its preset's settings under its own (absent: as written); an unknown
 * preset is left for the schema to refuse, naming the key.
 */
export function withPreset(raw: unknown): unknown {
  if (typeof raw !== 'object' || raw === null || !('preset' in raw)) return raw;
  const preset = (raw as { preset: unknown }).preset;
  if (typeof preset !== 'string' || !Object.hasOwn(chainPresets, preset)) return raw;
  return { ...chainPresets[preset as ChainPreset], ...raw };
}
