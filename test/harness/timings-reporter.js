const { mkdirSync, readFileSync, writeFileSync } = require('node:fs');
const { dirname, resolve } = require('node:path');
const { pairName } = require('./pair-name');

/**
 * Writes each (project, file) pair's seconds and test count to test-output/pair-timings.json (or
 * TEST_TIMINGS_FILE), added to what earlier runs wrote there (a run of each tier fills it); `npm
 * run docs:tests` takes them into test/timings.json and docs/testing.md.
 */
class TimingsReporter {
  constructor(globalConfig) {
    const file = process.env.TEST_TIMINGS_FILE ?? 'test-output/pair-timings.json';
    this.file = resolve(globalConfig.rootDir, file);
    this.pairs = {};
  }

  onTestResult(test, result) {
    const project = test.context.config.displayName?.name ?? 'default';
    this.pairs[pairName(project, test.path, test.context.config.rootDir)] = {
      seconds: Math.round((result.perfStats.end - result.perfStats.start) / 100) / 10,
      tests: result.numPassingTests + result.numFailingTests + result.numPendingTests,
      status: result.numFailingTests > 0 || result.testExecError ? 'failed' : 'passed',
    };
  }

  onRunComplete() {
    let earlier = {};
    try {
      earlier = JSON.parse(readFileSync(this.file, 'utf8'));
    } catch {
      // the first run writes it
    }
    mkdirSync(dirname(this.file), { recursive: true });
    writeFileSync(this.file, `${JSON.stringify({ ...earlier, ...this.pairs }, null, 2)}\n`);
  }
}

module.exports = TimingsReporter;
