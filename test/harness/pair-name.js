const { relative } = require('node:path');

/** A test file's pair as test/tiers.js and test/timings.json name it: `project path/under/test`. */
function pairName(project, testPath, rootDir) {
  const file = relative(`${rootDir}/test`, testPath).replace(/\.test\.ts$/, '');
  return `${project} ${file}`;
}

module.exports = { pairName };
