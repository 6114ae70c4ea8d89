import { keccak256 } from 'viem';
import { depositAddressOf, depositSalt, forwarderCodeOf } from '../../chain/deposit-addresses';
import {
  depositFactoryAbi,
  depositFactoryBytecode,
  depositForwarderAbi,
} from '../../chain/contracts/deposit-forwarders-code';
import { compiledDepositContracts } from '../../dev/contracts/write-deposit-forwarders';

// A deposit address follows from the factory's bytes and the salt: bytes that changed would move
// every address already handed out, and deposits sent there would reach no forwarder we can deploy.

/** The factory's creation code as committed when deposit addresses were first handed out. */
const pinnedFactoryCodeHash = '0x872bf3b09198a82463147b9190c5260adfab98622f271e515efc899d25cfc4e5';

describe('deposit addresses', () => {
  it('the committed factory is what its source compiles to, and its bytes are the pinned ones', () => {
    const { factory, forwarder } = compiledDepositContracts();
    expect(depositFactoryBytecode).toBe(factory.bytecode);
    expect(depositFactoryAbi).toEqual(factory.abi);
    expect(depositForwarderAbi).toEqual(forwarder.abi);
    expect(keccak256(depositFactoryBytecode)).toBe(pinnedFactoryCodeHash);
  });

  it('an address follows from the factory, the tenant, the chain and the index alone', () => {
    const factory = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
    expect(depositAddressOf(factory, depositSalt('acme', 31337, 0))).toBe(
      '0xa8c4806Dd2e9cC2eB8AD7876ec753B786D4dbC34',
    );
    expect(forwarderCodeOf(factory)).not.toBe(factory);
    const addresses = new Set(
      [
        depositSalt('acme', 31337, 0),
        depositSalt('acme', 31337, 1),
        depositSalt('acme', 1, 0),
        depositSalt('globex', 31337, 0),
      ].map((salt) => depositAddressOf(factory, salt)),
    );
    expect(addresses.size).toBe(4);
  });
});
