import { getAddress, isAddress } from 'viem';
import { InvalidIntentError, UnknownTenantError, UnknownWalletError } from '../domain/errors';
import { findTenant } from '../store/tenants';
import { registeredWallets, setTenantPool, setWalletRetired } from '../store/wallet-pools';
import { addWalletSigner } from '../store/wallet-signers';
import { parseSignerSetting, signerLabel } from '../domain/wallet-signer-setting';
import type { ServiceDependencies } from './dependencies';

type Deps = Pick<ServiceDependencies, 'database' | 'chains' | 'clock'>;

/** The address in its checksummed form, or a clear refusal naming `field`. */
function walletAddress(field: string, value: string): `0x${string}` {
  if (!isAddress(value, { strict: false })) {
    throw new InvalidIntentError([{ field, message: `"${value}" is not an address` }]);
  }
  return getAddress(value);
}

/**
 * Retires a hot wallet (it signs nothing new and finishes what it has), or puts it back to
 * work. An intent pinned to it and not signed yet fails (WalletRetired); unpinned ones go to
 * another wallet.
 */
export async function retireWallet(
  { database, clock }: Deps,
  chainId: number,
  address: string,
  retired: boolean,
): Promise<void> {
  const wallet = { chainId, address: walletAddress('address', address) };
  const known = await setWalletRetired(database.kysely, wallet, retired, clock?.() ?? new Date());
  if (!known) throw new UnknownWalletError(chainId, wallet.address);
}

/**
 * Sets the wallets `tenantId`'s intents may be sent from on a chain (null: every wallet). Each
 * must be a hot wallet of the relayer there; nothing is written otherwise.
 */
export async function setWalletPool(
  { database }: Pick<Deps, 'database'>,
  tenantId: string,
  chainId: number,
  addresses: readonly string[] | null,
): Promise<void> {
  if (addresses?.length === 0) {
    throw new InvalidIntentError([
      {
        field: 'wallets',
        message:
          'an empty pool would leave the tenant no wallet: name at least one, or null for every wallet',
      },
    ]);
  }
  const pool = addresses?.map((address, i) => walletAddress(`wallets[${i}]`, address)) ?? null;
  await database.transaction(async (trx) => {
    if (!(await findTenant(trx, tenantId))) throw new UnknownTenantError(tenantId);
    const known = new Set(await registeredWallets(trx, chainId));
    const unknown = pool?.filter((address) => !known.has(address)) ?? [];
    if (unknown.length > 0) {
      throw new InvalidIntentError(
        unknown.map((address) => ({
          field: 'wallets',
          message: `${address} is not a hot wallet of the relayer on chain ${chainId}`,
        })),
      );
    }
    await setTenantPool(trx, tenantId, chainId, pool);
  });
}

/**
 * Adds a hot wallet at run time, by the signer that holds its key (`kms:<key id, ARN or alias>`
 * or `remote:<http(s) URL>`; a private key is never taken this way). Every worker takes it on
 * within WALLET_WATCH_MS, once its signer says it holds the wallet (docs/operations.md). Adding
 * it again with the same signer changes nothing; another signer for a wallet already added is
 * refused.
 */
export async function addWallet(
  { database, clock }: Deps,
  address: string,
  signer: string,
): Promise<{ address: string; signer: string }> {
  const parsed = parseSignerSetting(address, signer.trim());
  if (!parsed.ok) {
    throw new InvalidIntentError([{ field: parsed.field, message: parsed.problem }]);
  }
  const { setting } = parsed;
  if (setting.kind === 'remote' && new URL(setting.url).username) {
    throw new InvalidIntentError([
      {
        field: 'signer',
        message: 'a remote signer URL must carry no credentials: it is stored and shown',
      },
    ]);
  }
  const wanted = { address: setting.address, signer: signer.trim() };
  const stored = await addWalletSigner(database.kysely, wanted, clock?.() ?? new Date());
  if (stored.signer !== wanted.signer) {
    throw new InvalidIntentError([
      {
        field: 'address',
        message: `${setting.address} was already added with another signer: a wallet has one key, so keep that one (wallets retire takes the wallet out of use)`,
      },
    ]);
  }
  return { address: setting.address, signer: signerLabel(setting) };
}
