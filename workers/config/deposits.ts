import { parseEther } from 'viem';
import { z } from 'zod';
import { address, integer, optional, setting } from './parsers';

/** Deposits into tenants' addresses: how often each chain is read, in how many blocks, dust. */
export const depositsSettings = {
  depositFactory: setting({
    env: 'DEPOSIT_FACTORY',
    fallback: '',
    doc: "The deposit factory (chain/contracts/deposit-forwarders.sol, owned by the chain's treasury) every chain's deposit addresses follow from; a chains file names one per chain (`depositFactory`). Unset: tenants get no deposit addresses",
    parse: optional(address),
  }),
  depositScanMs: setting({
    env: 'DEPOSIT_SCAN_MS',
    fallback: '5000',
    doc: "How often each chain's deposit scan (a Temporal Schedule per chain with a deposit factory, each worker ensures it at start) reads the blocks since its last and credits the deposits now final; 0: this worker leaves the schedules alone",
    parse: integer(0, 86_400_000).refine((ms) => ms === 0 || ms >= 1000, {
      error: 'must be 0 (leave the schedules alone) or at least 1000',
    }),
  }),
  depositSweepMs: setting({
    env: 'DEPOSIT_SWEEP_MS',
    fallback: '60000',
    doc: "How often each chain's deposit upkeep (a Temporal Schedule per chain with a deposit factory) sweeps the addresses holding credited deposits into the chain's treasury, then reconciles the chain's deposits; 0: this worker leaves the schedules alone",
    parse: integer(0, 86_400_000).refine((ms) => ms === 0 || ms >= 1000, {
      error: 'must be 0 (leave the schedules alone) or at least 1000',
    }),
  }),
  depositScanBlocks: setting({
    env: 'DEPOSIT_SCAN_BLOCKS',
    fallback: '100',
    doc: 'The most blocks one deposit scan reads: a catch-up after downtime goes in scans of this many, each behind every payment in the RPC budget',
    parse: integer(1, 10_000),
  }),
  depositDustEth: setting({
    env: 'DEPOSIT_DUST_ETH',
    fallback: '0',
    doc: 'A native deposit below this, in ether, is recorded (`dust`) and never credited',
    parse: z
      .string()
      .regex(/^\d+(\.\d+)?$/, { error: 'must be a decimal number of ether' })
      .transform((value) => parseEther(value)),
  }),
  depositDustTokens: setting({
    env: 'DEPOSIT_DUST_TOKENS',
    fallback: '0',
    doc: "A token deposit below this many whole tokens (each token's decimals applied) is recorded (`dust`) and never credited",
    parse: z.string().regex(/^\d+(\.\d+)?$/, { error: 'must be a decimal number of tokens' }),
  }),
};
