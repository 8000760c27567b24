// The interface every scheduling policy implements. A scheduler owns its
// wait queue as a persistent value: the engine hands it the queue and gets a
// new one back, so the policy stays a pure function of its inputs.

import type { JobRecord } from "../core/types.ts";
import type { RunningSet } from "../core/running.ts";

/**
 * What a scheduler sees when it is asked to start jobs.
 *
 * @example
 * ```ts
 * import { advanceTo, appendJobs, availableNodes, initialState, type SchedulingContext, step } from "../mod.ts";
 * const jobs = [{ submitTime: 0, numNodes: 6, timeLimit: 100 }, { submitTime: 0, numNodes: 4, timeLimit: 10 }];
 * let s = step(initialState({ totalNodes: 8, backfillPolicy: "none" }), appendJobs(jobs)).state;
 * s = step(s, advanceTo(0)).state;
 * // What the engine hands the state's policy at each scheduling call.
 * const ctx: SchedulingContext = { now: s.time, freeNodes: availableNodes(s), running: s.running };
 * // Job 1 needs 4 nodes and 2 are free; job 0's 6 nodes are projected back at 100.
 * if (s.scheduler.schedule(s.queue, ctx).start.length !== 0) throw new Error("job 1 must wait");
 * if (s.scheduler.shadowTime(s.queue, ctx) !== 100) throw new Error("job 1 is reserved for 100");
 * ```
 */
export interface SchedulingContext {
  /** The simulation clock. */
  readonly now: number;
  /** Nodes free now (usable capacity minus allocated). */
  readonly freeNodes: number;
  /** Jobs running now, ordered by projected end. */
  readonly running: RunningSet;
}

/**
 * The outcome of one scheduling call.
 *
 * @example
 * ```ts
 * import { advanceTo, appendJobs, initialState, type ScheduleResult, step } from "../mod.ts";
 * const jobs = [{ submitTime: 0, numNodes: 6, timeLimit: 100 }, { submitTime: 0, numNodes: 4, timeLimit: 10 }];
 * let s = step(initialState({ totalNodes: 8 }), appendJobs(jobs)).state;
 * s = step(s, advanceTo(0)).state; // job 0 runs, job 1 waits
 * // Ask the state's policy what it would do at 100 with every node free.
 * const r: ScheduleResult<unknown> = s.scheduler.schedule(s.queue, { now: 100, freeNodes: 8, running: s.running });
 * if (r.start.map((j) => j.id).join() !== "1" || s.scheduler.size(r.queue) !== 0) throw new Error("job 1 starts");
 * if (s.scheduler.size(s.queue) !== 1) throw new Error("the state's queue must be unchanged");
 * ```
 */
export interface ScheduleResult<Q> {
  /** The wait queue without the started jobs. */
  readonly queue: Q;
  /** Jobs to start now, in this order. Empty means nothing can start. */
  readonly start: readonly JobRecord[];
}

/**
 * A scheduling policy over a persistent wait queue `Q`. The engine calls
 * `schedule` repeatedly at one timestamp until it returns nothing.
 *
 * @example
 * ```ts
 * import { advanceTo, appendJobs, initialState, type JobRecord, type Scheduler, step } from "../mod.ts";
 * // Strict FCFS without backfilling, over a frozen array in arrival order.
 * const fcfs: Scheduler<readonly JobRecord[]> = {
 *   name: "fcfs-array",
 *   empty: () => Object.freeze([]),
 *   insert: (q, job) => Object.freeze([...q, job]),
 *   size: (q) => q.length,
 *   waiting: (q) => q,
 *   schedule: (q, { freeNodes }) => {
 *     let n = 0; // start heads while they fit; no later job may pass a head that does not
 *     for (let free = freeNodes; n < q.length && q[n].numNodes <= free; n++) free -= q[n].numNodes;
 *     return { queue: n === 0 ? q : Object.freeze(q.slice(n)), start: q.slice(0, n) };
 *   },
 *   shadowTime: (q, { now, freeNodes, running }) => {
 *     if (q.length === 0) return -1;
 *     let free = freeNodes; // add the releases still ahead, by projected end, until the head fits
 *     if (free >= q[0].numNodes) return now;
 *     for (const r of running.values()) {
 *       if (r.projectedEnd > now && (free += r.numNodes) >= q[0].numNodes) return r.projectedEnd;
 *     }
 *     return now; // as evtsim's own policies do when overdue jobs hold the missing nodes
 *   },
 * };
 * // Check it with jobs and a running set from a real state: job 0 holds 6 of 8 nodes until 100.
 * const job = (numNodes: number) => ({ submitTime: 5, numNodes, timeLimit: 10 });
 * const jobs = [{ submitTime: 0, numNodes: 6, timeLimit: 100 }, job(4), job(1)];
 * let s = step(initialState({ totalNodes: 8 }), appendJobs(jobs)).state;
 * s = step(s, advanceTo(0)).state;
 * const q = [s.store.records.get(1)!, s.store.records.get(2)!].reduce(fcfs.insert, fcfs.empty());
 * const ctx = { now: 0, freeNodes: 2, running: s.running };
 * // The 4-node head does not fit; the 1-node job would, but may not pass it.
 * if (fcfs.schedule(q, ctx).start.length !== 0 || fcfs.shadowTime(q, ctx) !== 100) throw new Error("wait");
 * const later = fcfs.schedule(q, { ...ctx, now: 100, freeNodes: 8 });
 * if (later.start.map((j) => j.id).join() !== "1,2" || fcfs.size(later.queue) !== 0) throw new Error("start");
 * if (fcfs.size(q) !== 2) throw new Error("schedule must not change its input queue");
 * ```
 */
export interface Scheduler<Q> {
  /** Name shown in reports. */
  readonly name: string;
  /** An empty wait queue. */
  empty(): Q;
  /** The queue with an eligible (already submitted) job added. */
  insert(queue: Q, job: JobRecord): Q;
  /** Number of waiting jobs. */
  size(queue: Q): number;
  /** Waiting jobs in the policy's queue order. */
  waiting(queue: Q): Iterable<JobRecord>;
  /** One scheduling call. Must not mutate `queue`. */
  schedule(queue: Q, ctx: SchedulingContext): ScheduleResult<Q>;
  /** The head job's reservation (shadow time), or −1 when nothing waits. */
  shadowTime(queue: Q, ctx: SchedulingContext): number;
}
