// A picker whose order is a total order on jobs (a key order), kept in a
// persistent tree with subtree minima of node count and time limit, plus an
// optional per-size-class index. Such a picker gets the indexed fast path:
// "the first candidate after the cursor with nodes <= free and a limit that
// fits" skips whole subtrees that cannot hold one. `builtin_fcfs` uses it for
// each queue; a user's own order gets the same speed through it.

import type {
  CandidateSearch,
  Picker,
  PickerSession,
  PickerSetup,
  SessionContext,
} from "../core/picker.ts";
import type { TreeNode } from "../core/_ordered_set.ts";
import type { JobRecord } from "../core/types.ts";
import {
  dequeue,
  emptySizeClassedQueue,
  enqueue,
  firstFitting,
  jobOrder,
  persistentQueue,
  type SizeClassedQueue,
  transientQueue,
} from "./wait_queue.ts";

/**
 * Options of {@link orderedPicker}.
 *
 * @example
 * ```ts
 * import { orderedPicker, type OrderedPickerOptions, Simulation } from "@evtsim/evtsim";
 * const options: OrderedPickerOptions = {
 *   name: "smallest_first",
 *   compare: (a, b) => a.numNodes - b.numNodes || a.id - b.id,
 * };
 * const sim = new Simulation({ totalNodes: 4, picker: orderedPicker(options), backfillPolicy: "none" });
 * sim.appendJobs([
 *   { submitTime: 0, numNodes: 4, timeLimit: 10 },
 *   { submitTime: 1, numNodes: 4, timeLimit: 10 },
 *   { submitTime: 2, numNodes: 1, timeLimit: 10 },
 * ]);
 * // At 10 the 1-node job 2 goes before the earlier 4-node job 1.
 * const begins = sim.finish().jobs.map((r) => r.beginTime).join();
 * console.assert(begins === "0,20,10", begins);
 * ```
 */
export interface OrderedPickerOptions {
  /** The name to register it under. */
  readonly name: string;
  /** A total order on waiting jobs (ties broken, e.g. by id). */
  readonly compare: (a: JobRecord, b: JobRecord) => number;
}

/**
 * A picker that offers waiting jobs in the order `compare` gives, with the
 * indexed candidate search. Without configured queues it offers every
 * waiting job; with queues, use it per queue through `builtin_fcfs` (it
 * offers the search only when no queues are configured).
 *
 * @example
 * ```ts
 * import { defaultRegistry, orderedPicker, Simulation } from "@evtsim/evtsim";
 * // Shortest time limit first, as a plain key order (not DR_EVT's SJF, which keeps the oldest job as head).
 * const shortest = orderedPicker({
 *   name: "shortest_limit",
 *   compare: (a, b) => a.timeLimit - b.timeLimit || a.id - b.id,
 * });
 * const sim = new Simulation({ totalNodes: 4, picker: shortest, backfillPolicy: "none" });
 * sim.appendJobs([
 *   { submitTime: 0, numNodes: 4, timeLimit: 10 },
 *   { submitTime: 1, numNodes: 4, timeLimit: 50 },
 *   { submitTime: 2, numNodes: 4, timeLimit: 20 },
 * ]);
 * const begins = sim.finish().jobs.map((r) => r.beginTime).join();
 * if (begins !== "0,30,10") throw new Error(begins);
 * if (!defaultRegistry().pickers.has("builtin_fcfs")) throw new Error("registry");
 * ```
 */
export function orderedPicker(options: OrderedPickerOptions): Picker {
  return keyOrderPicker(options) as Picker;
}

/** {@link orderedPicker} with its state type (for `builtin_fcfs`). */
export function keyOrderPicker(options: OrderedPickerOptions): Picker<SizeClassedQueue> {
  const order = jobOrder(options.compare);
  return {
    name: options.name,
    stableOrder: true,
    init: (setup: PickerSetup) => emptySizeClassedQueue(setup.searchByLimit, order),
    beginEdit: transientQueue,
    endEdit: persistentQueue,
    onQueueUpdate: (q) => q,
    onJobPush: enqueue,
    onJobStateChange: (q, job, change) => change === "pending" ? enqueue(q, job) : dequeue(q, job),
    onJobUpdate: (q, before, after) => enqueue(dequeue(q, before), after),
    size: (q) => q.all.size,
    pending: (q) => q.all.values(),
    // With queues, jobs of a queue that may not start are pended by the core
    // and must not count as ahead of others: only the walk gets that right.
    beginSession: (q, ctx) => orderedSession(q, ctx, !ctx.queuesConfigured),
  };
}

/** A session over a key-ordered queue; also used per queue by `builtin_fcfs`. */
export function orderedSession(
  start: SizeClassedQueue,
  _ctx: SessionContext,
  searchable: boolean,
): OrderedSession {
  return new OrderedSession(start, searchable);
}

// A class rather than closures: a round opens one session, and a run has
// hundreds of thousands of rounds.
class OrderedSession implements PickerSession<SizeClassedQueue>, CandidateSearch {
  q: SizeClassedQueue;
  /** The last candidate handed out (dispatched ones have left `q`). */
  cursor: JobRecord | undefined = undefined;
  exhausted = false;
  /** maxNodesBefore resumes where it stopped: candidates only move forward. */
  scannedTo: JobRecord | undefined = undefined;
  maxScanned = -Infinity;
  /** `nextJob`'s in-order stack, valid while the tree and the cursor are as it left them. */
  stack: TreeNode<JobRecord>[] = [];
  stackValid = false;
  /** Whether the last call was a step of `nextJob` (the next one builds the stack). */
  walking = false;
  readonly search: CandidateSearch | undefined;

  constructor(q: SizeClassedQueue, searchable: boolean) {
    this.q = q;
    this.search = searchable ? this : undefined;
  }

  nextJob(): JobRecord | undefined {
    if (this.exhausted) return undefined;
    // The nodes after the cursor still to visit, as an in-order stack: a
    // walk costs O(1) a step instead of a search from the root. The first
    // step after a start or a search (the tree changed or the cursor
    // jumped) searches from the root, as EASY's head needs only that one;
    // the next one builds the stack.
    const stack = this.stack;
    if (!this.stackValid) {
      if (!this.walking) {
        this.walking = true;
        const next = this.q.all.after(this.cursor);
        if (next === undefined) this.exhausted = true;
        else this.cursor = next;
        return next;
      }
      stack.length = 0;
      const cmp = this.q.all.spec.compare;
      const cursor = this.cursor;
      let n = this.q.all.root;
      while (n !== null) {
        if (cursor === undefined || cmp(n.v, cursor) > 0) {
          stack.push(n);
          n = n.l;
        } else n = n.r;
      }
      this.stackValid = true;
    }
    const top = stack.pop();
    if (top === undefined) {
      this.exhausted = true;
      return undefined;
    }
    for (let r = top.r; r !== null; r = r.l) stack.push(r);
    this.cursor = top.v;
    return top.v;
  }

  onDispatch(job: JobRecord): void {
    this.q = dequeue(this.q, job);
    this.stackValid = false;
    this.walking = false;
  }

  onPend(_job: JobRecord): void {}

  // O(log n): `to` must be the tree's own record, with exactly `n`
  // candidates between the cursor and it.
  skip(n: number, to: JobRecord): boolean {
    if (this.exhausted) return false;
    const all = this.q.all;
    if (all.find(to) !== to) return false;
    const cursor = this.cursor;
    const from = cursor === undefined ? 0 : all.rank(cursor) + (all.has(cursor) ? 1 : 0);
    if (all.rank(to) - from !== n) return false;
    this.cursor = to;
    this.stackValid = false;
    this.walking = false;
    return true;
  }

  endSession(): SizeClassedQueue {
    return this.q;
  }

  nextFitting(
    maxNodes: number,
    limitFits: (limit: number) => boolean,
    noRoomFrom?: (job: JobRecord) => number,
  ): JobRecord | undefined {
    if (this.exhausted) return undefined;
    this.stackValid = false;
    this.walking = false;
    const found = firstFitting(this.q, this.cursor, maxNodes, limitFits, noRoomFrom);
    if (found === undefined) this.exhausted = true;
    else this.cursor = found;
    return found;
  }

  minNodesBefore(job: JobRecord | undefined): number {
    return job === undefined ? this.q.all.min1 : this.q.all.min1Before(job);
  }

  maxNodesBefore(job: JobRecord | undefined): number {
    const all = this.q.all;
    const cmp = all.spec.compare;
    for (const j of all.values(this.scannedTo)) {
      if (job !== undefined && cmp(j, job) >= 0) break;
      if (j.numNodes > this.maxScanned) this.maxScanned = j.numNodes;
    }
    this.scannedTo = job;
    return this.maxScanned;
  }
}
