import { getAddress, parseEther, type Hex } from 'viem';
import {
  depositFactoryAbi,
  depositFactoryBytecode,
} from '../../chain/contracts/deposit-forwarders-code';
import { depositAddressOf, depositSalt } from '../../chain/deposit-addresses';
import { startAnvil, type Anvil } from '../harness/stack/anvil';
import { deployTestToken, type TestToken } from '../harness/stack/test-tokens';
import { anvilWalletClient } from '../harness/stack/solidity';

// The deposit factory on a real EVM: an address worked out off-chain receives the native coin and
// a token before any code is there, and only the factory's owner moves them, to where it says.

let anvil: Anvil;
let token: TestToken;
let factory: Hex;
const treasury = getAddress('0x00000000000000000000000000000000000d0c05');

const clientOf = (key: Hex) => anvilWalletClient(anvil, key);
const owner = () => clientOf(anvil.keys[0]!);
const stranger = () => clientOf(anvil.keys[1]!);

async function sweep(salt: Hex, tokens: Hex[], by = owner()) {
  const hash = await by.writeContract({
    address: factory,
    abi: depositFactoryAbi,
    functionName: 'sweep',
    args: [salt, tokens, treasury],
  });
  return by.waitForTransactionReceipt({ hash });
}

beforeAll(async () => {
  anvil = await startAnvil();
  token = await deployTestToken(anvil, 'standard', { symbol: 'DUSD', decimals: 6 });
  const hash = await owner().deployContract({
    abi: depositFactoryAbi,
    bytecode: depositFactoryBytecode,
    args: [owner().account.address],
  });
  factory = getAddress((await owner().waitForTransactionReceipt({ hash })).contractAddress!);
});

afterAll(async () => {
  await anvil?.stop();
});

describe('deposit forwarders', () => {
  it('the address worked out here is the one the factory deploys at', async () => {
    const salt = depositSalt('acme', anvil.chainId, 0);
    const onChain = await owner().readContract({
      address: factory,
      abi: depositFactoryAbi,
      functionName: 'forwarderOf',
      args: [salt],
    });
    expect(onChain).toBe(depositAddressOf(factory, salt));
  });

  it('funds sent before any code is there reach the treasury by the owner’s sweep only', async () => {
    const salt = depositSalt('acme', anvil.chainId, 1);
    const address = depositAddressOf(factory, salt);
    await owner().waitForTransactionReceipt({
      hash: await owner().sendTransaction({ to: address, value: parseEther('1.5') }),
    });
    await token.write('mint', [address, 2_500_000n]);
    expect(await owner().getCode({ address })).toBeUndefined();

    await expect(sweep(salt, [token.address], stranger())).rejects.toThrow(/NotTheOwner/);
    const receipt = await sweep(salt, [token.address]);
    expect(receipt.status).toBe('success');
    expect(await owner().getBalance({ address: treasury })).toBe(parseEther('1.5'));
    expect(await token.balanceOf(treasury)).toBe(2_500_000n);
    expect(await owner().getBalance({ address })).toBe(0n);
    expect(await owner().getCode({ address })).toBeDefined();

    // Deployed now: the next deposit to the same address is swept by the same call.
    await owner().waitForTransactionReceipt({
      hash: await owner().sendTransaction({ to: address, value: parseEther('0.5') }),
    });
    expect((await sweep(salt, [token.address])).status).toBe('success');
    expect(await owner().getBalance({ address: treasury })).toBe(parseEther('2'));
  });
});
