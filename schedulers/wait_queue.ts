// The FCFS-ordered wait queue shared by the FCFS, EASY and CONSERVATIVE
// policies: ordered by submit time then job id, with subtree minima of node
// count and time limit so candidate searches skip jobs that cannot start.

import { OrderedSet, type OrderSpec } from "../core/_ordered_set.ts";
import type { JobRecord } from "../core/types.ts";

const FCFS_ORDER: OrderSpec<JobRecord> = {
  compare: (a, b) => a.submitTime - b.submitTime || a.id - b.id,
  p1: (x) => x.numNodes,
  p2: (x) => x.timeLimit,
};

/** Waiting jobs in submit order (ties by job id). */
export type FcfsQueue = OrderedSet<JobRecord>;

/** An empty FCFS wait queue. */
export function emptyFcfsQueue(): FcfsQueue {
  return OrderedSet.empty(FCFS_ORDER);
}
