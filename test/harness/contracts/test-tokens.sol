// SPDX-License-Identifier: UNLICENSED
pragma solidity 0.8.28;

/**
 * ERC-20 tokens for the relayer's tests, each misbehaving the way deployed tokens are known to
 * (the "weird ERC-20" catalogue): no return value, `false` instead of a revert, a fee taken on
 * transfer, a blocklist and a pause. Anyone may mint: these live on a test chain only.
 */
abstract contract TestTokenBase {
    string public name;
    string public symbol;
    uint8 public immutable decimals;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    constructor(string memory name_, string memory symbol_, uint8 decimals_) {
        name = name_;
        symbol = symbol_;
        decimals = decimals_;
    }

    function mint(address to, uint256 amount) external {
        totalSupply += amount;
        balanceOf[to] += amount;
        emit Transfer(address(0), to, amount);
    }

    function approve(address spender, uint256 amount) external returns (bool) {
        allowance[msg.sender][spender] = amount;
        emit Approval(msg.sender, spender, amount);
        return true;
    }

    function move(address from, address to, uint256 amount) internal virtual {
        require(balanceOf[from] >= amount, "transfer amount exceeds balance");
        balanceOf[from] -= amount;
        balanceOf[to] += amount;
        emit Transfer(from, to, amount);
    }
}

/** A well-behaved token: reverts on failure, returns true on success. */
contract StandardToken is TestTokenBase {
    constructor(string memory name_, string memory symbol_, uint8 decimals_)
        TestTokenBase(name_, symbol_, decimals_) {}

    function transfer(address to, uint256 amount) external returns (bool) {
        move(msg.sender, to, amount);
        return true;
    }
}

/** USDT's shape: transfer returns nothing at all. */
contract NoReturnToken is TestTokenBase {
    constructor(string memory name_, string memory symbol_, uint8 decimals_)
        TestTokenBase(name_, symbol_, decimals_) {}

    function transfer(address to, uint256 amount) external {
        move(msg.sender, to, amount);
    }
}

/**
 * Returns false instead of reverting while `failing` is set, moving nothing (the receipt still
 * says success). A test turns it on after a transfer was checked and signed.
 */
contract FalseReturnToken is TestTokenBase {
    bool public failing;

    constructor(string memory name_, string memory symbol_, uint8 decimals_)
        TestTokenBase(name_, symbol_, decimals_) {}

    function setFailing(bool failing_) external {
        failing = failing_;
    }

    function transfer(address to, uint256 amount) external returns (bool) {
        if (failing || balanceOf[msg.sender] < amount) return false;
        move(msg.sender, to, amount);
        return true;
    }
}

/** Takes `feeBasisPoints` of every transfer for a collector: two Transfer logs, less delivered. */
contract FeeOnTransferToken is TestTokenBase {
    uint256 public immutable feeBasisPoints;
    address public constant collector = address(0xFEE);

    constructor(string memory name_, string memory symbol_, uint8 decimals_, uint256 feeBasisPoints_)
        TestTokenBase(name_, symbol_, decimals_)
    {
        feeBasisPoints = feeBasisPoints_;
    }

    function transfer(address to, uint256 amount) external returns (bool) {
        uint256 fee = (amount * feeBasisPoints) / 10_000;
        move(msg.sender, collector, fee);
        move(msg.sender, to, amount - fee);
        return true;
    }
}

/** USDC's controls: a pause and a blocklist of senders and recipients, each a revert. */
contract BlocklistPausableToken is TestTokenBase {
    bool public paused;
    mapping(address => bool) public blocked;

    constructor(string memory name_, string memory symbol_, uint8 decimals_)
        TestTokenBase(name_, symbol_, decimals_) {}

    function setPaused(bool paused_) external {
        paused = paused_;
    }

    function setBlocked(address account, bool blocked_) external {
        blocked[account] = blocked_;
    }

    function transfer(address to, uint256 amount) external returns (bool) {
        require(!paused, "Pausable: paused");
        require(!blocked[msg.sender] && !blocked[to], "Blocklistable: account is blocked");
        move(msg.sender, to, amount);
        return true;
    }
}
