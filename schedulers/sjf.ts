// Shortest / longest job first as DR_EVT implements them: the head is always
// the oldest waiting job; only backfill candidates are taken in time-limit
// order, and one job starts per call.

import { OrderedSet, type OrderSpec } from "../core/_ordered_set.ts";
import { reservationTime } from "../core/running.ts";
import type { JobRecord } from "../core/types.ts";
import type { Scheduler, ScheduleResult, SchedulingContext } from "./scheduler.ts";
import { emptyFcfsQueue, type FcfsQueue } from "./wait_queue.ts";

/** The SJF/LJF wait queue: one FCFS index for the head, one by limit. */
export interface LimitOrderedQueue {
  readonly byArrival: FcfsQueue;
  readonly byLimit: OrderedSet<JobRecord>;
}

function limitOrder(longestFirst: boolean): OrderSpec<JobRecord> {
  // Equal limits keep insertion (job id) order, as a std::multimap does.
  return {
    compare: longestFirst
      ? (a, b) => b.timeLimit - a.timeLimit || a.id - b.id
      : (a, b) => a.timeLimit - b.timeLimit || a.id - b.id,
    p1: (x) => x.numNodes,
    p2: (x) => (longestFirst ? -x.timeLimit : x.timeLimit),
  };
}

/**
 * DR_EVT's `sjf` (or `ljf` with `longestFirst`). Per call: if the oldest job
 * fits, it alone starts. Otherwise its reservation is the shadow time; if
 * that is in the future, the first job in limit order (ascending for SJF,
 * descending for LJF) with `nodes <= free` and `limit <= shadow - now` (not
 * strict, as in DR_EVT) starts. Backfill policy `conservative` behaves as
 * `easy` here, as in DR_EVT; `none` starts heads only.
 */
export function limitOrderedScheduler(
  longestFirst: boolean,
  backfill: boolean,
): Scheduler<LimitOrderedQueue> {
  const spec = limitOrder(longestFirst);
  return {
    name: longestFirst ? "ljf" : "sjf",
    empty: () => ({ byArrival: emptyFcfsQueue(), byLimit: OrderedSet.empty(spec) }),
    insert: (q, job) => ({ byArrival: q.byArrival.add(job), byLimit: q.byLimit.add(job) }),
    size: (q) => q.byArrival.size,
    waiting: (q) => q.byArrival.values(),
    schedule: (q, ctx) => scheduleOne(q, ctx, backfill, longestFirst),
    shadowTime: (q, ctx) => {
      const head = headOf(q);
      if (head === undefined) return -1;
      return reservationTime(head.numNodes, ctx.freeNodes, ctx.running, ctx.now);
    },
  };
}

// The oldest job; among equal submit times, the first in limit order.
function headOf(q: LimitOrderedQueue): JobRecord | undefined {
  const oldest = q.byArrival.first();
  if (oldest === undefined) return undefined;
  const t = oldest.submitTime;
  let best = oldest;
  for (const job of q.byArrival.values()) {
    if (job.submitTime !== t) break;
    if (q.byLimit.spec.compare(job, best) < 0) best = job;
  }
  return best;
}

function remove(q: LimitOrderedQueue, job: JobRecord): LimitOrderedQueue {
  return { byArrival: q.byArrival.delete(job), byLimit: q.byLimit.delete(job) };
}

function scheduleOne(
  q: LimitOrderedQueue,
  ctx: SchedulingContext,
  backfill: boolean,
  longestFirst: boolean,
): ScheduleResult<LimitOrderedQueue> {
  const head = headOf(q);
  if (head === undefined) return { queue: q, start: [] };
  const free = ctx.freeNodes;
  if (head.numNodes <= free) return { queue: remove(q, head), start: [head] };
  if (!backfill) return { queue: q, start: [] };
  const shadow = reservationTime(head.numNodes, free, ctx.running, ctx.now);
  if (shadow <= ctx.now) return { queue: q, start: [] };
  const window = shadow - ctx.now;
  const pick = q.byLimit.findFirst(
    undefined,
    longestFirst
      ? (minNodes) => minNodes <= free
      : (minNodes, minLimit) => minNodes <= free && minLimit <= window,
    (job) => job.numNodes <= free && job.timeLimit <= window,
  );
  if (pick === undefined) return { queue: q, start: [] };
  return { queue: remove(q, pick), start: [pick] };
}
