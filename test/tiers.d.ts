/** The types of test/tiers.js (plain JavaScript, for jest.config.js). */
import type { TestPlan } from './harness/tier-pairs';

export const tiers: TestPlan['tiers'];
export const projectDirectories: TestPlan['projectDirectories'];
export const onNode24: { tier: string; projects: readonly string[] };
