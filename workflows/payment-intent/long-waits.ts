import { ActivityFailure, isCancellation } from '@temporalio/workflow';
import type { IntentShape } from './shape';
import { allowUpgrade } from './steps';

/**
 * Called before each wait for a person (approval, review): the first time, moves the run off the
 * build that started it (workflows/versioning.ts), so that build's workers can retire while it
 * waits. A move that fails leaves the run pinned (its build's workers then stay): the wait goes on.
 */
export function longWaits(shape: IntentShape): { enter(): Promise<void> } {
  let moved = false;
  return {
    async enter() {
      if (moved || !shape.upgradeInLongWaits()) return;
      moved = true;
      try {
        await allowUpgrade();
      } catch (error) {
        if (!(error instanceof ActivityFailure) || isCancellation(error)) throw error;
      }
    },
  };
}
