// The interface every scheduling policy implements. A scheduler owns its
// wait queue as a persistent value: the engine hands it the queue and gets a
// new one back, so the policy stays a pure function of its inputs.

import type { JobRecord } from "../core/types.ts";
import type { RunningSet } from "../core/running.ts";

/** What a scheduler sees when it is asked to start jobs. */
export interface SchedulingContext {
  /** The simulation clock. */
  readonly now: number;
  /** Nodes free now (usable capacity minus allocated). */
  readonly freeNodes: number;
  /** Jobs running now, ordered by projected end. */
  readonly running: RunningSet;
}

/** The outcome of one scheduling call. */
export interface ScheduleResult<Q> {
  /** The wait queue without the started jobs. */
  readonly queue: Q;
  /** Jobs to start now, in this order. Empty means nothing can start. */
  readonly start: readonly JobRecord[];
}

/**
 * A scheduling policy over a persistent wait queue `Q`. The engine calls
 * `schedule` repeatedly at one timestamp until it returns nothing.
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
