// Running jobs ordered by their projected end (begin + time limit): what a
// backfilling scheduler needs to compute reservations.

import { OrderedSet, type OrderSpec } from "./_ordered_set.ts";

/**
 * A job that holds nodes now.
 *
 * @example
 * ```ts
 * import { advanceTo, appendJobs, initialState, type RunningJob, step } from "@evtsim/evtsim";
 * const job = { submitTime: 5, numNodes: 2, timeLimit: 60, actualRunTime: 10 };
 * let s = step(initialState({ totalNodes: 8 }), appendJobs([job])).state;
 * s = step(s, advanceTo(5)).state;
 * const r: RunningJob | undefined = s.running.first();
 * // Schedulers plan with the limit: the projected end is 5 + 60, though the job ends at 15.
 * if (r?.id !== 0 || r.beginTime !== 5 || r.projectedEnd !== 65) throw new Error("projected end");
 * ```
 */
export interface RunningJob {
  /** The job's id. */
  readonly id: number;
  /** When it started. */
  readonly beginTime: number;
  /** Nodes it holds. */
  readonly numNodes: number;
  /** Its requested time limit. */
  readonly timeLimit: number;
  /** beginTime + timeLimit: when the scheduler expects the nodes back. */
  readonly projectedEnd: number;
}

const RUNNING_ORDER: OrderSpec<RunningJob> = {
  compare: (a, b) => a.projectedEnd - b.projectedEnd || a.id - b.id,
  p1: (x) => x.numNodes,
  p2: (x) => x.projectedEnd,
};

/**
 * Running jobs, persistent, ordered by projected end then job id: what an
 * admission policy sees as `AdmissionSession.running` and a state holds as
 * `SimState.running`.
 *
 * Stable members: `size`, `first()` (the job projected to end first),
 * `values()` (every running job in projected-end order), `toArray()`, and
 * `has(job)` / `after(job)` with a `RunningJob` taken from the set. The other
 * members of the underlying ordered set (updates, subtree summaries, `scan`,
 * `root`) are internal and may change in any release.
 *
 * @example
 * ```ts
 * import { advanceTo, appendJobs, initialState, type RunningSet, step } from "@evtsim/evtsim";
 * const job = (timeLimit: number) => ({ submitTime: 0, numNodes: 2, timeLimit });
 * let s = step(initialState({ totalNodes: 8 }), appendJobs([job(100), job(20), job(50)])).state;
 * s = step(s, advanceTo(0)).state;
 * const running: RunningSet = s.running;
 * // Ordered by projected end (begin + limit), not by id.
 * const ids = running.toArray().map((r) => r.id).join();
 * if (ids !== "1,2,0" || running.size !== 3) throw new Error(ids);
 * ```
 */
export type RunningSet = OrderedSet<RunningJob>;

/** An empty running set. */
export function emptyRunningSet(): RunningSet {
  return OrderedSet.empty(RUNNING_ORDER);
}

/** Makes the running-set entry for a job that starts at `now`. */
export function runningJob(
  id: number,
  numNodes: number,
  timeLimit: number,
  now: number,
): RunningJob {
  return { id, beginTime: now, numNodes, timeLimit, projectedEnd: now + timeLimit };
}

// One key for every removal from the running set: a removal compares with
// it and keeps nothing of it (an object per ended job before).
const removalKey = { id: 0, beginTime: 0, numNodes: 0, timeLimit: 0, projectedEnd: 0 };

/**
 * The key that finds a running job's entry (what {@link runningJob} made
 * for it), to remove it; the same object every call, changed by the next.
 */
export function runningKey(
  id: number,
  numNodes: number,
  timeLimit: number,
  beginTime: number,
): RunningJob {
  removalKey.id = id;
  removalKey.beginTime = beginTime;
  removalKey.numNodes = numNodes;
  removalKey.timeLimit = timeLimit;
  removalKey.projectedEnd = beginTime + timeLimit;
  return removalKey;
}

/**
 * The earliest time at which `nodes` nodes are projected to be free, given
 * `free` nodes free now, counting only running jobs whose projected end is
 * after `now` (DR_EVT's `calculate_fcfs_reservation`). When the projected
 * releases never cover the deficit it returns `now`, which blocks backfilling,
 * exactly as DR_EVT does.
 */
export function reservationTime(
  nodes: number,
  free: number,
  running: RunningSet,
  now: number,
): number {
  if (nodes <= free) return now;
  deficit = nodes - free;
  released = 0;
  at = now;
  // Sorts after every job ending at `now` or before: the walk starts after them.
  probe.projectedEnd = now;
  running.scan(probe, release);
  return released >= deficit ? at : now;
}

// One probe and one visitor for every call rather than an object and a
// closure each: EASY computes a reservation in every pass. The visitor calls
// nothing that could call reservationTime again.
const probe = { id: Infinity, beginTime: 0, numNodes: 0, timeLimit: 0, projectedEnd: 0 };
let deficit = 0;
let released = 0;
let at = 0;

function release(r: RunningJob): boolean {
  released += r.numNodes;
  if (released < deficit) return false;
  at = r.projectedEnd;
  return true;
}
