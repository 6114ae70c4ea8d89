import { ledgerAssetOf } from '../../domain/asset';
import type { LocalWorld } from './stack/local-world';
import { deployTestToken, type TestToken, type TestTokenKind } from './stack/test-tokens';
import { depositAsset, registerToken } from '../../service/assets';

export interface RegisteredTestToken {
  token: TestToken;
  alias: string;
  /** The token's name in the books (`erc20:<chainId>:<address>`). */
  ledgerAsset: string;
  /** `tenant/<ledger asset>` → base units deposited: for the invariants' `deposits`. */
  deposits: Record<string, bigint>;
}

/**
 * A token deployed on the world's anvil, held by every hot wallet (a million whole tokens each),
 * registered for the relayer under `alias`, and deposited for each tenant of `tenants` (whole
 * tokens).
 */
export async function registeredTestToken(
  world: LocalWorld,
  options: {
    alias: string;
    decimals: number;
    kind?: TestTokenKind;
    tenants: Record<string, bigint>;
    /** The operator's word, over what registration's probe finds. */
    feeOnTransfer?: boolean;
  },
): Promise<RegisteredTestToken> {
  const unit = 10n ** BigInt(options.decimals);
  const token = await deployTestToken(world.anvil, options.kind ?? 'standard', {
    symbol: options.alias,
    decimals: options.decimals,
  });
  for (const wallet of world.wallets) await token.write('mint', [wallet, 1_000_000n * unit]);
  await registerToken(
    { database: world.database, chains: world.chains },
    {
      chainId: world.anvil.chainId,
      address: token.address,
      alias: options.alias,
      ...(options.feeOnTransfer !== undefined && { feeOnTransfer: options.feeOnTransfer }),
    },
  );
  const ledgerAsset = ledgerAssetOf(world.anvil.chainId, token.address);
  const deposits: Record<string, bigint> = {};
  for (const [tenantId, whole] of Object.entries(options.tenants)) {
    await depositAsset(
      world.database,
      { tenantId, chainId: world.anvil.chainId, asset: options.alias, amount: whole * unit },
      new Date(),
    );
    deposits[`${tenantId}/${ledgerAsset}`] = whole * unit;
  }
  return { token, alias: options.alias, ledgerAsset, deposits };
}
