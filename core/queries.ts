// Read-only monitors over a state: what DR_EVT's get_* calls report. The
// job counts and statistics are here; the node counts, the head's
// reservation, the pend reasons and the backfill window each in a file of
// their own (core/_node_counts.ts, _head_reservation.ts, _pend_reasons.ts,
// _backfill_window.ts), exported from here.

import type { SimState } from "./state.ts";
import { unplaceableCache } from "./_unplaceable.ts";
import { holdCapacity, holdReason } from "./_hold_rule.ts";
import { type Statistics, summarize } from "./statistics.ts";
import { nodesInUse } from "./_node_counts.ts";

export { availableNodes, nodesInUse } from "./_node_counts.ts";
export { headJob, headReservation, headShadowTime } from "./_head_reservation.ts";
export { pendingReason, waitingReasons } from "./_pend_reasons.ts";
export { type BackfillWindow, backfillWindow, type ProjectedRelease } from "./_backfill_window.ts";
export { reservationTime } from "./running.ts";

/**
 * Eligible jobs waiting in the scheduler's queue (arrived, not started).
 *
 * @example
 * ```ts
 * import { activeJobCount, advanceTo, appendJobs, initialState, step } from "@evtsim/evtsim";
 * const jobs = [{ submitTime: 0, numNodes: 10, timeLimit: 9 }, { submitTime: 0, numNodes: 10, timeLimit: 9 }];
 * let s = step(initialState({ totalNodes: 10 }), appendJobs(jobs)).state;
 * s = step(s, advanceTo(0)).state;
 * console.assert(activeJobCount(s) === 1);
 * ```
 */
export function activeJobCount(state: SimState): number {
  return state.runMode.waitingJobs(state);
}

/**
 * Statistics of the run so far: wait, turnaround, bounded slowdown,
 * utilization, makespan and job counts.
 *
 * @example
 * ```ts
 * import { appendJobs, initialState, runToCompletion, statistics, step } from "@evtsim/evtsim";
 * const jobs = [{ submitTime: 0, numNodes: 10, timeLimit: 10 }, { submitTime: 0, numNodes: 10, timeLimit: 10 }];
 * let s = step(initialState({ totalNodes: 10 }), appendJobs(jobs)).state;
 * s = step(s, runToCompletion()).state;
 * console.assert(statistics(s).averageWait === 5 && statistics(s).utilization === 1);
 * ```
 */
export function statistics(state: SimState): Statistics {
  return summarize(state.stats, {
    currentTime: state.time,
    totalNodes: state.config.totalNodes,
    nodesInUse: nodesInUse(state),
    jobsRunning: state.running.size,
    jobsWaiting: activeJobCount(state) + state.arrivals.size,
    jobsHeld: heldJobCount(state),
  });
}

/**
 * Waiting jobs that need more nodes than the machine has now, and on a
 * resource model the jobs that do not fit its online nodes or can never be
 * placed at all (all held with `exceeds_capacity`); 0 under
 * `capacitySemantics: "drevt"` (which holds no job).
 *
 * @example
 * ```ts
 * import { heldJobCount, Simulation } from "@evtsim/evtsim";
 * const sim = new Simulation({ totalNodes: 8, capacitySchedule: [{ time: 0, capacity: 4 }] });
 * sim.appendJobs([{ submitTime: 0, numNodes: 6, timeLimit: 10 }, { submitTime: 0, numNodes: 2, timeLimit: 10 }]);
 * sim.advanceTo(0);
 * // Job 0 cannot run on 4 nodes: it is held, and job 1 goes ahead.
 * if (heldJobCount(sim.state) !== 1 || sim.statistics().jobsHeld !== 1) throw new Error("held");
 * ```
 */
export function heldJobCount(state: SimState): number {
  // DR_EVT's rules hold no job: one that does not fit blocks the queue.
  if (!state.runMode.decides || state.config.capacitySemantics === "drevt") return 0;
  const capacity = holdCapacity(state.capacity, state.config.totalNodes, false);
  // On a machine: a demand job the model can never place (unless the policy
  // is offered it), or that does not fit the nodes online, is held as well:
  // the round's own rule (core/_hold_rule.ts).
  const res = state.resources;
  if (capacity === Infinity && res === undefined) return 0;
  const never = res === undefined || state.admission.offersUnplaceable === true
    ? undefined
    : unplaceableCache(res.model);
  let held = 0;
  for (const job of state.picker.pending(state.pickerState)) {
    if (holdReason(capacity, res?.model, res?.state, never, job) !== undefined) held++;
  }
  return held;
}
