// A topology cluster's free units per node and resource, and their sums
// per resource, as jobs start and end.

import type { TopologyState } from "./topology_cluster.ts";
import type { Runs } from "./_topology_runs.ts";

/**
 * Adds (sign +1) or takes (−1) the units of the replicas of `runs` (each
 * needing `amounts` of columns `cols`) to a state's free units of `R`
 * resources per node, and their sums.
 */
export function takeUnits(
  state: TopologyState,
  R: number,
  takeCols: readonly number[],
  takeAmounts: readonly number[],
  runs: Runs,
  sign: number,
): void {
  const free = state.free;
  const sums = state.freeSums as Float64Array;
  if (state.offline === undefined || state.offline.size === 0) {
    // Every node online: no unit is below zero, so a run's change of the
    // sum is its change per node times its nodes (integers: exact).
    for (let j = 0; j < takeCols.length; j++) {
      const c = takeCols[j];
      const amount = takeAmounts[j];
      let sum = sums[c];
      for (let p = 0; p < runs.length; p += 3) {
        const delta = sign * amount * runs[p + 2];
        const count = runs[p + 1];
        for (let at = runs[p] * R + c, end = at + count * R; at < end; at += R) free[at] += delta;
        sum += delta * count;
      }
      sums[c] = sum;
    }
    return;
  }
  for (let j = 0; j < takeCols.length; j++) {
    const c = takeCols[j];
    const amount = takeAmounts[j];
    let sum = sums[c];
    for (let p = 0; p < runs.length; p += 3) {
      const delta = sign * amount * runs[p + 2];
      for (let at = runs[p] * R + c, end = at + runs[p + 1] * R; at < end; at += R) {
        const before = free[at];
        const after = before + delta;
        free[at] = after;
        // An offline node's units below zero count as none.
        sum += (after > 0 ? after : 0) - (before > 0 ? before : 0);
      }
    }
    sums[c] = sum;
  }
}

/** Per resource of `R`, what the nodes have free (an offline node's units below zero count 0). */
export function sumFree(free: Float64Array, R: number): Float64Array {
  const sums = new Float64Array(R);
  for (let j = 0; j < free.length; j++) {
    const f = free[j];
    if (f > 0) sums[j % R] += f;
  }
  return sums;
}
