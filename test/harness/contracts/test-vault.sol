// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// A contract tenants' intents call in the tests: deposits by reference (payable), a record with
/// a guard that reverts with a reason, and a switch its deployer closes, so a call simulated
/// while open can be mined once closed.
contract TestVault {
    address public immutable owner;
    bool public closed;
    mapping(bytes32 => uint256) public deposited;
    uint256 public recorded;

    event Deposited(address indexed from, bytes32 indexed ref, uint256 value);

    constructor() {
        owner = msg.sender;
    }

    function deposit(bytes32 ref) external payable {
        require(!closed, "TestVault: closed");
        deposited[ref] += msg.value;
        emit Deposited(msg.sender, ref, msg.value);
    }

    function record(uint256 value) external {
        require(!closed, "TestVault: closed");
        require(value <= 1000, "TestVault: value above 1000");
        recorded = value;
    }

    function close() external {
        require(msg.sender == owner, "TestVault: not the owner");
        closed = true;
    }
}
