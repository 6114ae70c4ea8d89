import * as workflows from '../../workflows';
import { versioningBehaviours } from '../../workflows/versioning';

/** Every workflow type the worker registers (the bundle's exports) states its versioning. */
describe('workflow versioning', () => {
  const workflowTypes = Object.entries(workflows).filter(
    ([, exported]) => typeof exported === 'function',
  );

  it('finds the workflow types the worker registers', () => {
    expect(workflowTypes.map(([name]) => name)).toEqual(
      expect.arrayContaining(['paymentIntentV2', 'paymentBatch', 'depositScan', 'depositUpkeep']),
    );
  });

  it.each(workflowTypes)('%s declares its behaviour', (_name, workflow) => {
    expect(versioningBehaviours.get(workflow as () => Promise<unknown>)).toMatch(
      /^(PINNED|AUTO_UPGRADE)$/,
    );
  });

  it('runs the deposit scan and upkeep on the current build, as the sweeps (docs/operations.md)', () => {
    expect(versioningBehaviours.get(workflows.depositScan)).toBe('AUTO_UPGRADE');
    expect(versioningBehaviours.get(workflows.depositUpkeep)).toBe('AUTO_UPGRADE');
  });
});
