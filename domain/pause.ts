/**
 * An operator's stop of the whole relayer, one tenant or one chain: nothing new takes a permit
 * (so nothing new is signed) until it is resumed; admission goes on, or is refused.
 */
export const PauseScope = { relayer: 'relayer', tenant: 'tenant', chain: 'chain' } as const;
export type PauseScope = (typeof PauseScope)[keyof typeof PauseScope];

export interface Pause {
  id: string;
  scope: PauseScope;
  /** The tenant's id or the chain's id as text; '' for the whole relayer. */
  target: string;
  note: string;
  /** New intents in its scope are refused (503 paused) rather than admitted to wait. */
  refuseAdmission: boolean;
  pausedBy: string;
  pausedAt: Date;
  resumedBy: string | null;
  resumedAt: Date | null;
  resumeNote: string | null;
}

/** The first of `pauses` an intent of `tenantId` on `chainId` falls under, if any. */
export function pauseOver(
  pauses: readonly Pause[],
  intent: { tenantId: string; chainId: number },
): Pause | undefined {
  return pauses.find(
    (pause) =>
      pause.scope === PauseScope.relayer ||
      (pause.scope === PauseScope.tenant && pause.target === intent.tenantId) ||
      (pause.scope === PauseScope.chain && pause.target === String(intent.chainId)),
  );
}

/** How a pause is named to a person: `the relayer`, `tenant acme`, `chain 8453`. */
export const pauseSubject = (pause: Pick<Pause, 'scope' | 'target'>): string =>
  pause.scope === PauseScope.relayer ? 'the relayer' : `${pause.scope} ${pause.target}`;
