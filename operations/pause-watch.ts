import { pauseOver, type Pause } from '../domain/pause';
import type { Database } from '../store/database';
import { getIntent } from '../store/intents';
import { activePauses } from '../store/pauses';

/** The pauses in force as this process last read them (every `everyMs`), for the permit steps. */
export interface PauseWatch {
  current(): readonly Pause[];
  /** Reads them now (a test, or a process that must act on a pause at once). */
  refresh(): Promise<void>;
  stop(): void;
}

export function watchPauses(database: Database, everyMs = 1000): PauseWatch {
  let pauses: readonly Pause[] = [];
  const refresh = async () => {
    pauses = await activePauses(database.kysely);
  };
  // A read that fails keeps the last answer: a database blip must neither pause nor resume.
  const timer = setInterval(() => void refresh().catch(() => undefined), everyMs);
  timer.unref();
  return { current: () => pauses, refresh, stop: () => clearInterval(timer) };
}

/**
 * The pause the intent falls under, if any. Its row is read only while some pause is in force,
 * so an unpaused relayer pays nothing for it; a pause seen is read again before it refuses,
 * so an intent told of its resume is not refused by this process's older look.
 */
export async function pauseOfIntent(
  database: Database,
  watch: PauseWatch | undefined,
  intentId: string,
): Promise<Pause | undefined> {
  if (!watch || watch.current().length === 0) return undefined;
  const intent = await getIntent(database.kysely, intentId);
  if (!pauseOver(watch.current(), intent)) return undefined;
  await watch.refresh();
  return pauseOver(watch.current(), intent);
}
