import { condition, setHandler } from '@temporalio/workflow';
import { intentResumedSignal } from './messages';
import { refuseIfExpired } from './deadlines';

/** How a paused intent waits: until a resume signal, or its recheck time, or its deadline. */
export interface PauseWaits {
  /** The resume signals seen so far: a wait starts from the count before its permit try. */
  seen(): number;
  untilResumed(since: number, maxMs: number, validUntil: number | undefined): Promise<void>;
}

/** Registers the resume signal's handler (no command: histories without pauses are unchanged). */
export function pauseWaits(): PauseWaits {
  let resumes = 0;
  setHandler(intentResumedSignal, () => {
    resumes++;
  });
  return {
    seen: () => resumes,
    async untilResumed(since, maxMs, validUntil) {
      const cutMs = validUntil === undefined ? maxMs : Math.min(maxMs, validUntil - Date.now());
      if (cutMs > 0) await condition(() => resumes > since, cutMs);
      // Past its deadline the run ends here; otherwise it asks for its permit again.
      refuseIfExpired({ validUntil });
    },
  };
}
