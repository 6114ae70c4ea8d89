import { getAddress, parseEther, type Hex } from 'viem';
import { table } from '../../cli/table';
import {
  depositFactoryAbi,
  depositFactoryBytecode,
} from '../../chain/contracts/deposit-forwarders-code';
import { depositAddressOf, depositSalt } from '../../chain/deposit-addresses';
import { startAnvil } from '../../test/harness/stack/anvil';
import { deployerClient } from '../../test/harness/stack/solidity';
import { deployTestToken } from '../../test/harness/stack/test-tokens';

/**
 * `npm run contracts:deposit-gas`: the gas a deposit address costs on a real EVM (anvil), each
 * case on a fresh address: the factory once per chain, then each sweep (deploy + flush).
 */
async function main(): Promise<void> {
  const anvil = await startAnvil();
  try {
    const client = deployerClient(anvil);
    const token = await deployTestToken(anvil, 'standard', { symbol: 'DUSD', decimals: 6 });
    const gasOf = async (hash: Hex) => (await client.waitForTransactionReceipt({ hash })).gasUsed;
    const deployHash = await client.deployContract({
      abi: depositFactoryAbi,
      bytecode: depositFactoryBytecode,
      args: [client.account.address],
    });
    const receipt = await client.waitForTransactionReceipt({ hash: deployHash });
    const factory = getAddress(receipt.contractAddress!);
    const treasury = getAddress('0x00000000000000000000000000000000000d0c05');
    // The treasury already holds both, as it would: no case pays for its first balance.
    await gasOf(await client.sendTransaction({ to: treasury, value: 1n }));
    await token.write('mint', [treasury, 1n]);
    let index = 0;
    const fund = async (native: boolean, tokens: boolean) => {
      const salt = depositSalt('gas', anvil.chainId, index++);
      const address = depositAddressOf(factory, salt);
      if (native)
        await gasOf(await client.sendTransaction({ to: address, value: parseEther('1') }));
      if (tokens) await token.write('mint', [address, 1_000_000n]);
      return salt;
    };
    const sweep = async (salt: Hex, tokens: Hex[]) =>
      gasOf(
        await client.writeContract({
          address: factory,
          abi: depositFactoryAbi,
          functionName: 'sweep',
          args: [salt, tokens, treasury],
        }),
      );
    const rows: [string, bigint][] = [['the factory, once per chain', receipt.gasUsed]];
    const first = [
      ['first sweep: native coin', true, false],
      ['first sweep: one token', false, true],
      ['first sweep: native coin and one token', true, true],
    ] as const;
    for (const [label, native, tokens] of first) {
      const salt = await fund(native, tokens);
      rows.push([label, await sweep(salt, tokens ? [token.address] : [])]);
    }
    const salt = await fund(true, true);
    await sweep(salt, [token.address]);
    const again = depositAddressOf(factory, salt);
    await gasOf(await client.sendTransaction({ to: again, value: parseEther('1') }));
    rows.push(['a later sweep: native coin', await sweep(salt, [])]);
    await token.write('mint', [again, 1_000_000n]);
    rows.push(['a later sweep: one token', await sweep(salt, [token.address])]);
    const costs = table(['what', 'gas'], ['left', 'right']);
    for (const [what, gas] of rows) costs.push([what, gas.toLocaleString('en-US')]);
    console.log(costs.toString());
  } finally {
    await anvil.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
