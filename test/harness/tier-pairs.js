const { readdirSync } = require('node:fs');
const { resolve } = require('node:path');

const testRoot = resolve(__dirname, '..');

/** The test files directly in test/<directory>, as paths under test/ without `.test.ts`. */
function filesOfDirectory(directory) {
  return readdirSync(resolve(testRoot, directory))
    .filter((name) => name.endsWith('.test.ts'))
    .map((name) => `${directory}/${name.slice(0, -'.test.ts'.length)}`)
    .sort();
}

/**
 * Every (project, file) pair of `tierName` in `plan` (test/tiers.js), `'*'` expanded through
 * `listDirectory` (the file system's unless a test hands in another).
 */
function pairsOf(plan, tierName, listDirectory = filesOfDirectory) {
  const tier = plan.tiers[tierName];
  if (!tier) throw new Error(`no tier "${tierName}": choose from ${Object.keys(plan.tiers)}`);
  return Object.entries(tier).flatMap(([project, files]) =>
    (files === '*' ? listDirectory(plan.projectDirectories[project]) : files).map((file) => ({
      project,
      file,
    })),
  );
}

/**
 * What is wrong with `plan`: a pair in two tiers, a file of a project's directory in no tier, a
 * named file that does not exist, a `'*'` for a project without a directory. Empty when sound.
 */
function tierProblems(plan, listDirectory = filesOfDirectory, fileExists = () => true) {
  const problems = [];
  const tierOf = new Map();
  for (const tierName of Object.keys(plan.tiers)) {
    const undirected = Object.entries(plan.tiers[tierName]).filter(
      ([project, files]) => files === '*' && !plan.projectDirectories[project],
    );
    for (const [project] of undirected) {
      problems.push(`${tierName}: project ${project} has no directory for '*'`);
    }
    if (undirected.length > 0) continue;
    for (const { project, file } of pairsOf(plan, tierName, listDirectory)) {
      const pair = `${project} ${file}`;
      if (tierOf.has(pair)) problems.push(`${pair}: in tiers ${tierOf.get(pair)} and ${tierName}`);
      else tierOf.set(pair, tierName);
      if (!fileExists(file)) problems.push(`${pair}: no file test/${file}.test.ts`);
    }
  }
  for (const [project, directory] of Object.entries(plan.projectDirectories)) {
    for (const file of listDirectory(directory)) {
      if (!tierOf.has(`${project} ${file}`)) problems.push(`${project} ${file}: in no tier`);
    }
  }
  return problems;
}

module.exports = { filesOfDirectory, pairsOf, tierProblems, testRoot };
