import { priorityKeys } from '../domain/intent-priority';

/**
 * Who an intent is to the permit line: its priority rank (Temporal's priority key: 1 urgent, 3
 * normal, 5 bulk; lower goes first), its tenant and the tenant's weight. Temporal orders the task
 * queues by these; the line orders its own slots by the same.
 */
export interface LinePlace {
  rank: number;
  tenant: string;
  weight: number;
}

/** Where a try names no place (an old workflow's, a test's): normal, of nobody. */
export const unplaced: LinePlace = { rank: priorityKeys.normal, tenant: '', weight: 1 };

/**
 * How many slots ahead a newcomer looks at for one to take (the Redis line scans as many):
 * bounded, so a reservation costs the same with 50 slots ahead as with 5,000.
 */
export const displaceScan = 64;

export interface SlotHolder {
  slot: number;
  place: LinePlace;
  /** It was moved back once already: never again, so no intent pays more than one extra timer. */
  moved: boolean;
}

/**
 * Whether `newcomer` goes before `holder`: a higher priority always; at the same priority, when
 * the holder's tenant holds more of the slots ahead than its weight's share beside the newcomer's
 * tenant with this one slot more (weighted fair shares, counted in slots held).
 */
export function goesBefore(
  newcomer: LinePlace,
  holder: LinePlace,
  slotsHeld: (tenant: string) => number,
): boolean {
  if (newcomer.rank !== holder.rank) return newcomer.rank < holder.rank;
  if (newcomer.tenant === holder.tenant) return false;
  const holderShare = slotsHeld(holder.tenant) / holder.weight;
  const newcomerShare = (slotsHeld(newcomer.tenant) + 1) / newcomer.weight;
  return holderShare > newcomerShare;
}

/**
 * The slot a newcomer takes instead of `candidate` (the one the line would give it), or
 * undefined: the earliest of the first `displaceScan` holders ahead of `candidate` — past
 * `notBefore`, so none being taken right now — that it goes before and that was never moved.
 * That holder takes `candidate`: the line's slots stay the same set, only their order changes.
 */
export function slotToTake(
  holders: Iterable<[string, SlotHolder]>,
  newcomer: LinePlace,
  candidate: number,
  notBefore: number,
  slotsHeld: (tenant: string) => number,
): { key: string; slot: number } | undefined {
  const ahead = [...holders]
    .filter(([, holder]) => holder.slot > notBefore && holder.slot < candidate)
    .sort(([, a], [, b]) => a.slot - b.slot)
    .slice(0, displaceScan);
  const taken = ahead.find(
    ([, holder]) => !holder.moved && goesBefore(newcomer, holder.place, slotsHeld),
  );
  return taken && { key: taken[0], slot: taken[1].slot };
}
