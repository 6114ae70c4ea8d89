/** The types of test/harness/tier-pairs.js (plain JavaScript, for jest.config.js). */
export interface TestPlan {
  tiers: Record<string, Record<string, readonly string[] | '*'>>;
  projectDirectories: Record<string, string>;
}
export interface TierPair {
  project: string;
  file: string;
}
export const testRoot: string;
export function filesOfDirectory(directory: string): string[];
export function pairsOf(
  plan: TestPlan,
  tierName: string,
  listDirectory?: (directory: string) => string[],
): TierPair[];
export function tierProblems(
  plan: TestPlan,
  listDirectory?: (directory: string) => string[],
  fileExists?: (file: string) => boolean,
): string[];
