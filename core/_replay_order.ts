// The order in which replay applies starts that share a timestamp.
//
// A recorded schedule says when each job began, not in which order jobs that
// began at the same instant were picked; but the resource trace has one row
// per start, so that order shows in the intermediate allocated counts. The
// simulation starts jobs in the order its policy returns them. With
// positive run times that order follows from the recorded data alone, with
// no scheduling decision taken again:
//
// - FCFS, EASY and CONSERVATIVE (all `fcfs*` priorities) start heads in queue
//   order, then backfills in queue order; every job behind the blocked head
//   comes later in the queue, so the whole instant is in (submit, id) order.
// - SJF / LJF start heads one per call, oldest first (equal submit times in
//   limit order), then backfills in limit order (ascending for SJF,
//   descending for LJF, ties by id). The heads started at an instant are
//   exactly the jobs ahead, in head order, of the first waiting job that did
//   not start then (the blocked head); the others are backfills.

import type { OrderedSet } from "./_ordered_set.ts";
import type { JobRecord, PriorityPolicy } from "./types.ts";

type Compare = (a: JobRecord, b: JobRecord) => number;

const bySubmitThenId: Compare = (a, b) => a.submitTime - b.submitTime || a.id - b.id;

/**
 * Orders jobs that start at one instant as `policy` would have started them.
 * `starting` are the records starting now; `waiting` holds every submitted,
 * not yet started job (the starting ones included), in (submit, id) order.
 */
export function orderSameTimeStarts(
  policy: PriorityPolicy,
  starting: readonly JobRecord[],
  waiting: OrderedSet<JobRecord>,
): JobRecord[] {
  if (policy !== "sjf" && policy !== "ljf") return [...starting].sort(bySubmitThenId);
  const byLimit: Compare = policy === "sjf"
    ? (a, b) => a.timeLimit - b.timeLimit || a.id - b.id
    : (a, b) => b.timeLimit - a.timeLimit || a.id - b.id;
  const headOrder: Compare = (a, b) => a.submitTime - b.submitTime || byLimit(a, b);
  const blocked = blockedHead(starting, waiting, byLimit);
  const heads: JobRecord[] = [];
  const backfills: JobRecord[] = [];
  for (const job of starting) {
    (blocked === undefined || headOrder(job, blocked) < 0 ? heads : backfills).push(job);
  }
  return heads.sort(headOrder).concat(backfills.sort(byLimit));
}

// The first waiting job in head order that does not start now: the oldest
// submit time among them, and within it the first in limit order.
function blockedHead(
  starting: readonly JobRecord[],
  waiting: OrderedSet<JobRecord>,
  byLimit: Compare,
): JobRecord | undefined {
  const ids = new Set(starting.map((j) => j.id));
  let best: JobRecord | undefined;
  for (const job of waiting.values()) {
    if (ids.has(job.id)) continue;
    if (best === undefined) best = job;
    else if (job.submitTime !== best.submitTime) break;
    else if (byLimit(job, best) < 0) best = job;
  }
  return best;
}
