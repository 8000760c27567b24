// DR_EVT's SJF and LJF as pickers. The oldest waiting job (equal submit
// times in limit order) is always offered first, as DR_EVT's head; then
// every other job in time-limit order (ascending for SJF, descending for
// LJF, ties by job id, as a std::multimap keeps them). A session ends after
// its first start, so that the next one offers the new oldest job first:
// DR_EVT starts one job per call. With the `easy` admission this is exactly
// DR_EVT's `sjf`/`ljf` priority policy; `backfillEndsByShadow` carries its
// boundary (`limit <= shadow - now`).

import { OrderedSet, type OrderSpec } from "../core/_ordered_set.ts";
import type { CandidateSearch, Picker, PickerSession } from "../core/picker.ts";
import type { JobRecord } from "../core/types.ts";
import { type FcfsQueue, jobOrder } from "./wait_queue.ts";

const ARRIVAL_ORDER = jobOrder((a, b) => a.submitTime - b.submitTime || a.id - b.id);

/** The SJF/LJF picker state: one index by arrival for the head, one by limit. */
interface LimitOrderedQueue {
  /** Waiting jobs by submit time, then id. */
  readonly byArrival: FcfsQueue;
  /** Waiting jobs by time limit, then id. */
  readonly byLimit: OrderedSet<JobRecord>;
}

function limitOrder(longestFirst: boolean): OrderSpec<JobRecord> {
  return {
    compare: longestFirst
      ? (a, b) => b.timeLimit - a.timeLimit || a.id - b.id
      : (a, b) => a.timeLimit - b.timeLimit || a.id - b.id,
    p1: (x) => x.numNodes,
    p2: (x) => (longestFirst ? -x.timeLimit : x.timeLimit),
  };
}

/**
 * DR_EVT's `sjf` picker (or `ljf` with `longestFirst`).
 *
 * @example
 * ```ts
 * import { limitOrderPicker, Simulation } from "@evtsim/evtsim";
 * const sim = new Simulation({ totalNodes: 10, picker: limitOrderPicker(false), backfillPolicy: "easy" });
 * sim.appendJobs([
 *   { submitTime: 0, numNodes: 6, timeLimit: 100 },
 *   { submitTime: 1, numNodes: 8, timeLimit: 10 }, // the head: waits for job 0
 *   { submitTime: 2, numNodes: 4, timeLimit: 50 },
 *   { submitTime: 2, numNodes: 4, timeLimit: 20 },
 * ]);
 * // Jobs 2 and 3 compete for the 4 free nodes: SJF backfills the shorter job 3 first.
 * if (sim.finish().jobs[3].beginTime !== 2) throw new Error("job 3 backfilled at 2");
 * ```
 */
export function limitOrderPicker(longestFirst: boolean): Picker {
  return limitPicker(longestFirst) as Picker;
}

function limitPicker(longestFirst: boolean): Picker<LimitOrderedQueue> {
  const spec = limitOrder(longestFirst);
  const add = (q: LimitOrderedQueue, job: JobRecord): LimitOrderedQueue => ({
    byArrival: q.byArrival.add(job),
    byLimit: q.byLimit.add(job),
  });
  const remove = (q: LimitOrderedQueue, job: JobRecord): LimitOrderedQueue => ({
    byArrival: q.byArrival.delete(job),
    byLimit: q.byLimit.delete(job),
  });
  return {
    name: longestFirst ? "ljf" : "sjf",
    backfillEndsByShadow: true,
    init: () => ({ byArrival: OrderedSet.empty(ARRIVAL_ORDER), byLimit: OrderedSet.empty(spec) }),
    beginEdit: (q, owner) => ({
      byArrival: q.byArrival.transient(owner),
      byLimit: q.byLimit.transient(owner),
    }),
    endEdit: (q) => ({ byArrival: q.byArrival.persistent(), byLimit: q.byLimit.persistent() }),
    onQueueUpdate: (q) => q,
    onJobPush: add,
    onJobStateChange: (q, job, change) => (change === "pending" ? add(q, job) : remove(q, job)),
    onJobUpdate: (q, before, after) => add(remove(q, before), after),
    size: (q) => q.byArrival.size,
    pending: (q) => orderOf(q),
    beginSession: (q, ctx) => session(q, longestFirst, !ctx.queuesConfigured),
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

function* orderOf(q: LimitOrderedQueue): Generator<JobRecord> {
  const head = headOf(q);
  if (head === undefined) return;
  yield head;
  for (const j of q.byLimit.values()) if (j.id !== head.id) yield j;
}

function session(
  q: LimitOrderedQueue,
  longestFirst: boolean,
  searchable: boolean,
): PickerSession<LimitOrderedQueue> {
  const head = headOf(q);
  const cmp = q.byLimit.spec.compare;
  let state = q;
  let offeredHead = false;
  // Last job handed out from the limit order.
  let cursor: JobRecord | undefined;
  let ended = head === undefined;
  let scannedTo: JobRecord | undefined;
  let maxScanned = head?.numNodes ?? -Infinity;

  const search: CandidateSearch = {
    nextFitting(maxNodes, limitFits) {
      if (ended) return undefined;
      if (!offeredHead) {
        offeredHead = true;
        if (head!.numNodes <= maxNodes && limitFits(head!.timeLimit)) return head;
      }
      const found = state.byLimit.findFirst(
        cursor,
        longestFirst
          ? (minNodes) => minNodes <= maxNodes
          : (minNodes, minLimit) => minNodes <= maxNodes && limitFits(minLimit),
        (j) => j.id !== head!.id && j.numNodes <= maxNodes && limitFits(j.timeLimit),
      );
      if (found === undefined) ended = true;
      else cursor = found;
      return found;
    },
    minNodesBefore(job) {
      if (head === undefined || job === undefined || job.id === head.id) {
        return job === undefined ? state.byLimit.min1 : Infinity;
      }
      return Math.min(head.numNodes, state.byLimit.min1Before(job));
    },
    maxNodesBefore(job) {
      for (const j of state.byLimit.values(scannedTo)) {
        if (job !== undefined && cmp(j, job) >= 0) break;
        if (j.numNodes > maxScanned) maxScanned = j.numNodes;
      }
      scannedTo = job;
      return maxScanned;
    },
  };
  return {
    nextJob() {
      if (ended) return undefined;
      if (!offeredHead) {
        offeredHead = true;
        return head;
      }
      for (const j of state.byLimit.values(cursor)) {
        if (j.id === head!.id || (cursor !== undefined && cmp(j, cursor) === 0)) continue;
        cursor = j;
        return j;
      }
      ended = true;
      return undefined;
    },
    onDispatch(job) {
      state = { byArrival: state.byArrival.delete(job), byLimit: state.byLimit.delete(job) };
      // One start per session: the next session offers the new oldest job first.
      ended = true;
    },
    onPend() {},
    endSession: () => state,
    ...(searchable ? { search } : {}),
  };
}
