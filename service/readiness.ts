import type { ServiceDependencies } from './dependencies';

/** One thing the process needs right now, and how to see that it answers. */
export interface ReadinessProbe {
  name: string;
  probe(): Promise<unknown>;
}

/** Temporal, the database and every chain: each must answer for the process to be ready. */
export const readinessProbes = ({
  client,
  database,
  chains,
}: Pick<ServiceDependencies, 'client' | 'database' | 'chains'>): ReadinessProbe[] => [
  { name: 'temporal', probe: () => client.workflowService.getSystemInfo({}) },
  { name: 'database', probe: () => database.ping() },
  ...chains.chainIds.map((chainId) => ({
    name: `chain ${chainId}`,
    probe: () => chains.get(chainId).ready(),
  })),
];
