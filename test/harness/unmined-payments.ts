import { parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { IntentView } from '../../api/schemas/intents';
import type { RelayerApiClient } from '../../cli/api-client';
import { waitFor } from './stack/wait-for';
import type { LocalWorld } from './stack/local-world';

/**
 * A payment of 0.25 ether from the world's wallet `wallet` to a fresh recipient, submitted by
 * `tenant` and followed to `confirming`: on a chain whose automine is off it waits there, sent
 * and not mined.
 */
export async function paymentSentUnmined(
  world: LocalWorld,
  tenant: RelayerApiClient,
  wallet: number,
): Promise<IntentView> {
  const { body } = await tenant.submit(
    {
      chainId: world.anvil.chainId,
      from: world.wallets[wallet],
      to: privateKeyToAccount(generatePrivateKey()).address,
      amount: parseEther('0.25').toString(),
    },
    `unmined-${wallet}-${Date.now()}-${Math.random()}`,
  );
  await waitFor(
    async () => (await tenant.get(body.id)).status === 'confirming',
    'the payment to be sent',
    30_000,
  );
  return tenant.get(body.id);
}
