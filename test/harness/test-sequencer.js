const Sequencer = require('@jest/test-sequencer').default;
const { pairName } = require('./pair-name');
const timings = require('../timings.json');

/**
 * Slowest first by the committed timings (test/timings.json), so a fresh clone starts its long
 * files at once instead of last; a file without one goes by jest's own order after them. One
 * exception: the time-skipping workflow tests go first. The Java test server they start has ~5 s
 * to answer the SDK, which a machine busy with the other suites' servers does not always give it.
 */
class SlowestFirst extends Sequencer {
  sort(tests) {
    const jestOrder = super.sort(tests);
    const project = (test) => test.context.config.displayName?.name ?? 'default';
    const seconds = (test) =>
      timings[pairName(project(test), test.path, test.context.config.rootDir)]?.seconds ?? -1;
    const byCost = [...jestOrder].sort((a, b) => seconds(b) - seconds(a));
    const first = (test) => project(test) === 'workflow';
    return [...byCost.filter(first), ...byCost.filter((test) => !first(test))];
  }
}

module.exports = SlowestFirst;
