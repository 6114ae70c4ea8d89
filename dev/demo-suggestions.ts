import { encodeFunctionData, erc20Abi, parseUnits, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createApiClient } from '../cli/api-client';
import { createApiKey } from '../service/api-keys';
import type { RelayerProcess } from '../workers/relayer-process';
import type { EmbeddedStack } from '../test/harness/stack/embedded-stack';
import { deployTestToken } from '../test/harness/stack/test-tokens';
import { deployTestVault } from '../test/harness/stack/test-vault';
import { deployerClient } from '../test/harness/stack/solidity';

/**
 * `npm start -- --keep-running`: what is up, and commands to try as the tenant acme and as an
 * operator (a key made for it), among them a contract call to the test vault deployed now,
 * after a test USDC (docs/api.md's examples name both addresses: the deployer's first two).
 */
export async function suggestCommands({
  stack,
  relayer,
  chainId,
  databaseUrl,
  tenantKey,
  tenantWallet,
  step,
}: {
  stack: EmbeddedStack;
  relayer: RelayerProcess;
  chainId: number;
  databaseUrl: string;
  tenantKey: string;
  /** The wallet of acme's own on `chainId` (the only one its pool holds there). */
  tenantWallet: string;
  step: (message: string) => void;
}): Promise<void> {
  step(
    `stack is up: Web UI ${stack.webUiUrl}, Temporal ${stack.temporal.address}, ` +
      `RPC ${stack.anvil.rpcUrl} (chain ${stack.anvil.chainId}) and ${stack.secondAnvil.rpcUrl} ` +
      `(chain ${stack.secondAnvil.chainId}), as the chains file says: ${stack.chainsFile}`,
  );
  const { apiKey: operatorKey } = await createApiKey(
    relayer.database,
    { role: 'operator', label: 'demo operator' },
    new Date(),
  );
  step(`API ${relayer.apiUrl} (OpenAPI at ${relayer.apiUrl}/openapi.json); try, as tenant acme:`);
  console.log(
    [
      `  export RELAYER_API_URL=${relayer.apiUrl} RELAYER_API_KEY=${tenantKey}`,
      `  export DATABASE_URL=${databaseUrl}   # for tenants and keys`,
      `  npm run -s relayer -- list`,
      `  npm run -s relayer -- submit --chain-id ${chainId} --from ${tenantWallet} ` +
        `--to ${privateKeyToAccount(generatePrivateKey()).address} --eth 0.01 --wait`,
      `  npm run -s relayer -- keys list`,
    ].join('\n'),
  );
  step(`an operator's key (review, wallets, assets, webhooks of every tenant): ${operatorKey}`);
  const usdc = await deployTestToken(stack.anvil, 'standard', { symbol: 'USDC', decimals: 6 });
  const vault = await deployTestVault(stack.anvil);
  step(
    `a token to register, as the operator: test USDC at ${usdc.address} ` +
      `(npm run -s relayer -- assets register ${usdc.address} --chain-id ${chainId} --alias USDC)`,
  );
  step(
    `a contract to call: the test vault at ${vault.address} (test/harness/contracts/test-vault.sol); ` +
      `acme has a wallet of its own there (${tenantWallet}). Allow its deposit, as the operator, then call it:`,
  );
  console.log(
    [
      `  RELAYER_API_KEY=${operatorKey} npm run -s relayer -- calls allow acme ${vault.address} ` +
        `--chain-id ${chainId} --function "deposit(bytes32)" --max-value 1 --label "vault"`,
      `  npm run -s relayer -- submit --chain-id ${chainId} --to ${vault.address} ` +
        `--abi "deposit(bytes32)" --arg 0x${'4711'.padEnd(64, '0')} --eth 0.5 --wait`,
    ].join('\n'),
  );
  await suggestTokenDeposit(stack, relayer, tenantKey, step);
}

/**
 * A token deposit to try by hand: acme's deposit address on the second chain, and the customer's
 * (anvil's unlocked deployer account's) USDT transfer to it as one JSON-RPC call.
 */
async function suggestTokenDeposit(
  stack: EmbeddedStack,
  relayer: RelayerProcess,
  tenantKey: string,
  step: (message: string) => void,
): Promise<void> {
  const chain = stack.secondAnvil;
  const token = stack.depositToken;
  const { address } = await createApiClient(relayer.apiUrl!, tenantKey).depositAddress({
    chainId: chain.chainId,
  });
  const data = encodeFunctionData({
    abi: erc20Abi,
    functionName: 'transfer',
    args: [address as Hex, parseUnits('100', token.decimals)],
  });
  const send = {
    jsonrpc: '2.0',
    id: 1,
    method: 'eth_sendTransaction',
    params: [{ from: deployerClient(chain).account.address, to: token.address, data }],
  };
  step(
    `a token deposit: acme's deposit address on chain ${chain.chainId} is ${address}; a customer ` +
      `sends it 100 ${token.symbol} (${token.address}), credited three blocks later:`,
  );
  console.log(
    [
      `  curl -s -X POST ${chain.rpcUrl} -H 'Content-Type: application/json' -d '${JSON.stringify(send)}'`,
      `  npm run -s relayer -- deposits list`,
      `  npm run -s relayer -- balance`,
    ].join('\n'),
  );
}
