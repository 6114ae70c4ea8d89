const Sequencer = require('@jest/test-sequencer').default;

/**
 * Jest's order (failed first, then the slowest by the last run's times), with one exception: the
 * time-skipping workflow tests go first. The Java test server they start has ~5 s to answer the
 * SDK, which a machine busy with the other suites' servers does not always give it.
 */
class TimeSkippingFirst extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    const first = (test) => test.context.config.displayName?.name === 'workflow';
    return [...sorted.filter(first), ...sorted.filter((test) => !first(test))];
  }
}

module.exports = TimeSkippingFirst;
