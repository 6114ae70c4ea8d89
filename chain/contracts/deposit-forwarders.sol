// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

// A tenant's deposit address exists only as an address until funds arrive: CREATE2 from the
// factory and a salt, so no key is kept per address and the address pays no gas. The factory's
// owner (the house's sweeping wallet) deploys it and empties it in one transaction. The address
// follows from these bytes: nothing here may change once an address is handed out.

interface IERC20Balance {
    function balanceOf(address account) external view returns (uint256);
}

/// The code every deposit address runs, through an EIP-1167 proxy: it holds what was sent to it
/// until its factory moves it, and nobody else can.
contract DepositForwarder {
    error NotTheFactory();
    error TransferFailed(address token);

    /// Baked into the code, so a proxy reads its factory without storage.
    address public immutable factory;

    constructor() {
        factory = msg.sender;
    }

    /// Empty: a plain transfer of the native coin is accepted.
    receive() external payable {}

    /// Moves all of each token, then all of the native coin, to `to`; answers the native amount.
    function flush(address[] calldata tokens, address payable to) external returns (uint256 native) {
        if (msg.sender != factory) revert NotTheFactory();
        for (uint256 i = 0; i < tokens.length; i++) {
            uint256 balance = IERC20Balance(tokens[i]).balanceOf(address(this));
            if (balance == 0) continue;
            // SafeERC20's rule: no revert, and no `false` (nothing returned is success).
            (bool ok, bytes memory answer) = tokens[i].call(
                abi.encodeWithSelector(0xa9059cbb, to, balance)
            );
            if (!ok || (answer.length > 0 && !abi.decode(answer, (bool)))) {
                revert TransferFailed(tokens[i]);
            }
        }
        native = address(this).balance;
        if (native > 0) {
            (bool sent, ) = to.call{value: native}("");
            if (!sent) revert TransferFailed(address(0));
        }
    }
}

/// Every deposit address of one chain: only its owner sweeps them, to the address it names.
contract DepositFactory {
    error NotTheOwner();
    error DeployFailed(bytes32 salt);

    address public immutable owner;
    DepositForwarder public immutable forwarderCode;

    /// Tokens swept show in their own Transfer logs; the native coin moves without a log.
    event Swept(bytes32 indexed salt, address indexed forwarder, address to, uint256 native);

    constructor(address owner_) {
        owner = owner_;
        forwarderCode = new DepositForwarder();
    }

    /// EIP-1167's init code for a proxy to the forwarder's code (the EIP's bytes, 55 of them).
    function proxyInitCode() public view returns (bytes memory) {
        return
            abi.encodePacked(
                hex"3d602d80600a3d3981f3363d3d373d3d3d363d73",
                address(forwarderCode),
                hex"5af43d82803e903d91602b57fd5bf3"
            );
    }

    function forwarderOf(bytes32 salt) public view returns (address) {
        bytes32 digest = keccak256(
            abi.encodePacked(bytes1(0xff), address(this), salt, keccak256(proxyInitCode()))
        );
        return address(uint160(uint256(digest)));
    }

    /// Deploys the salt's forwarder if it is not yet, then empties it into `to`.
    function sweep(bytes32 salt, address[] calldata tokens, address payable to) external {
        if (msg.sender != owner) revert NotTheOwner();
        address forwarder = forwarderOf(salt);
        if (forwarder.code.length == 0) {
            bytes memory code = proxyInitCode();
            address deployed;
            assembly {
                deployed := create2(0, add(code, 0x20), mload(code), salt)
            }
            if (deployed != forwarder) revert DeployFailed(salt);
        }
        uint256 native = DepositForwarder(payable(forwarder)).flush(tokens, to);
        emit Swept(salt, forwarder, to, native);
    }
}
