// Running jobs ordered by their projected end (begin + time limit): what a
// backfilling scheduler needs to compute reservations.

import { OrderedSet, type OrderSpec } from "./_ordered_set.ts";

/** A job that holds nodes now. */
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

/** Running jobs, persistent, ordered by projected end then job id. */
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
  const deficit = nodes - free;
  let released = 0;
  for (
    const r of running.values({
      id: -Infinity,
      beginTime: 0,
      numNodes: 0,
      timeLimit: 0,
      projectedEnd: now,
    })
  ) {
    if (r.projectedEnd <= now) continue;
    released += r.numNodes;
    if (released >= deficit) return r.projectedEnd;
  }
  return now;
}
