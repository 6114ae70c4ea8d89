/** The types of test/tiers.js (plain JavaScript, for jest.config.js). */
export type TierFiles = readonly string[] | '*';
export const tiers: Record<string, Record<string, TierFiles>>;
export const projectDirectories: Record<string, string>;
export const onNode24: { tier: string; projects: readonly string[] };
