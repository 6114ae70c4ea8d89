import {
  concat,
  encodeAbiParameters,
  encodeFunctionData,
  getContractAddress,
  keccak256,
  type Hex,
} from 'viem';
import { depositFactoryAbi } from './contracts/deposit-forwarders-code';

// Where a tenant's deposits go on a chain, worked out without the chain: CREATE2 from the
// chain's deposit factory (chain/contracts/deposit-forwarders.sol), so no key is kept per address.

/** EIP-1167's init code for a proxy to `code` (the EIP's bytes around the address). */
export const proxyInitCode = (code: Hex): Hex =>
  concat(['0x3d602d80600a3d3981f3363d3d373d3d3d363d73', code, '0x5af43d82803e903d91602b57fd5bf3']);

/** The forwarder's code every proxy runs: the factory's first creation (a contract's nonce 1). */
export const forwarderCodeOf = (factory: Hex): Hex =>
  getContractAddress({ from: factory, nonce: 1n });

/** The salt of a tenant's `index`-th deposit address on a chain (0: the one by default). */
export const depositSalt = (tenantId: string, chainId: number, index: number): Hex =>
  keccak256(
    encodeAbiParameters(
      [{ type: 'string' }, { type: 'string' }, { type: 'uint256' }, { type: 'uint32' }],
      ['payment-relayer deposit', tenantId, BigInt(chainId), index],
    ),
  );

/** The address the factory deploys the salt's forwarder at (what its `forwarderOf` answers). */
export const depositAddressOf = (factory: Hex, salt: Hex): Hex =>
  getContractAddress({
    opcode: 'CREATE2',
    from: factory,
    salt,
    bytecode: proxyInitCode(forwarderCodeOf(factory)),
  });

/** The treasury's call that deploys the salt's forwarder if need be and empties it into `to`. */
export const sweepCallData = (salt: Hex, tokens: readonly Hex[], to: Hex): Hex =>
  encodeFunctionData({
    abi: depositFactoryAbi,
    functionName: 'sweep',
    args: [salt, [...tokens], to],
  });
