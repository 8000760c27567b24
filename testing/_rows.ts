// Private helpers of the invariant checkers: what a scheduler saw at an
// instant, recomputed from the output rows alone (never from the engine's
// own state), so that the checks can catch an engine that tracks it wrongly.

import type { CapacityChange, JobRow } from "../core/types.ts";

/**
 * DR_EVT's reservation: the earliest projected end (begin + limit) of a
 * running job at which `nodes` nodes are free, or `now` if they are free now
 * (or never: DR_EVT counts only releases after now, and falls back to now
 * when they do not cover the deficit).
 */
export function reservationFromRows(
  nodes: number,
  free: number,
  running: readonly JobRow[],
  now: number,
): number {
  if (nodes <= free) return now;
  const ends = running
    .map((r) => ({ end: r.beginTime + r.timeLimit, nodes: r.numNodes }))
    .filter((e) => e.end > now)
    .sort((a, b) => a.end - b.end);
  let released = 0;
  for (const e of ends) {
    released += e.nodes;
    if (released >= nodes - free) return e.end;
  }
  return now;
}

/**
 * The usable node count in force at `t`: the last change with `time <= t`
 * (changes at `t` apply before the ends and the scheduling at `t`), or the
 * whole machine before the first change.
 */
export function capacityAt(
  schedule: readonly CapacityChange[],
  totalNodes: number,
  t: number,
): number {
  let c = totalNodes;
  for (const change of schedule) {
    if (change.time > t) break;
    c = change.capacity;
  }
  return c;
}

/**
 * Instants at which the capacity schedule itself makes the engine schedule:
 * where applying the changes at that instant, in order, raises the count at
 * least once (a cut alone never starts anything).
 */
export function capacityRaises(
  schedule: readonly CapacityChange[],
  totalNodes: number,
): number[] {
  const out: number[] = [];
  let c = totalNodes;
  for (const change of schedule) {
    if (change.capacity > c && out[out.length - 1] !== change.time) out.push(change.time);
    c = change.capacity;
  }
  return out;
}

/** At most this many violations are listed per check; the rest are counted. */
export const MAX_REPORTED = 20;

/** The first {@link MAX_REPORTED} violations, and a count of the rest. */
export function capped(out: readonly string[]): string[] {
  if (out.length <= MAX_REPORTED) return [...out];
  return [...out.slice(0, MAX_REPORTED), `… and ${out.length - MAX_REPORTED} more`];
}
