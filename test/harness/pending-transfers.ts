import { parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { BroadcastOutcome, Chain } from '../../chain/chain';
import type { Hex } from '../../domain/transfer';

/**
 * `count` plain transfers of 0.001 ETH from `from` to fresh addresses, signed at its next nonces
 * and handed to the node through `chain`: each hash with the node's answer.
 */
export async function sendTransfers(
  chain: Chain,
  from: Hex,
  count: number,
): Promise<{ txHash: Hex; outcome: BroadcastOutcome }[]> {
  const start = await chain.pendingNonce(from);
  const sent: { txHash: Hex; outcome: BroadcastOutcome }[] = [];
  for (let i = 0; i < count; i++) {
    const plan = await chain.planTransfer({
      from,
      to: privateKeyToAccount(generatePrivateKey()).address,
      value: parseEther('0.001'),
    });
    const signed = await chain.signTransfer(plan, start + i);
    sent.push({ txHash: signed.txHash, outcome: await chain.broadcast(signed) });
  }
  return sent;
}
