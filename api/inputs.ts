// Constructors for the reducer's inputs, so callers of the pure API build
// `Input` values without spelling out `kind` strings by hand.

import type { EndJobOptions, JobUpdate } from "../core/live.ts";
import type { QueueDef } from "../core/queues.ts";
import {
  checkArray,
  checkObject,
  checkOptionalBoolean,
  checkTimeArgument,
  describeValue,
} from "../core/_input_check.ts";
import { EvtsimError } from "../core/errors.ts";
import { liveInputFromArgs } from "../core/_live_inputs_derived.ts";
import type { LiveInputKind } from "../core/live_inputs.ts";
import type { Input } from "../core/step.ts";
import type { JobSpec } from "../core/types.ts";

/**
 * Options of an {@link appendJobs} input.
 *
 * @example
 * ```ts
 * import { appendJobs, type AppendJobsOptions, initialState, step, submitJob } from "@evtsim/evtsim";
 * const storeOnly: AppendJobsOptions = { submit: false, maxStoreCapacity: 1000 };
 * let s = step(initialState({ totalNodes: 8 }), appendJobs([{ submitTime: 0, numNodes: 2, timeLimit: 5 }], storeOnly)).state;
 * // Stored but not submitted: nothing arrives until `submitJob`.
 * if (s.store.records.size !== 1 || s.arrivals.size !== 0) throw new Error("stored only");
 * s = step(s, submitJob(0, 4)).state;
 * if (s.arrivals.size !== 1) throw new Error("job 0 should arrive at 4");
 * ```
 */
export interface AppendJobsOptions {
  /** Submit each job at its own submit time (default true). `false` only stores them. */
  readonly submit?: boolean;
  /**
   * Largest job-store capacity the append may grow the store to, in records
   * (the memory-pressure limit; see `memoryPressureLimit`). Unlimited when absent.
   */
  readonly maxStoreCapacity?: number;
}

/**
 * An input that creates jobs (ids in order) and, unless `submit` is false,
 * submits them. All-or-nothing: the batch must be sorted by submit time, no
 * submit time may be before the clock, and it must fit the job store.
 * Throws an `EvtsimError` of kind `"usage"` when `jobs` is not an array or
 * an option has the wrong type (the job specs are checked by `step`).
 *
 * @example
 * ```ts
 * import { appendJobs, initialState, step } from "@evtsim/evtsim";
 * const r = step(initialState({ totalNodes: 8 }), appendJobs([{ submitTime: 0, numNodes: 2, timeLimit: 5 }]));
 * console.assert(r.ids[0] === 0);
 * ```
 */
export function appendJobs(jobs: readonly JobSpec[], options: AppendJobsOptions = {}): Input {
  checkArray(jobs, "appendJobs: jobs");
  checkObject(options, "appendJobs: options");
  checkOptionalBoolean(options.submit, "appendJobs: options.submit");
  const cap = options.maxStoreCapacity;
  if (cap !== undefined && typeof cap !== "number") {
    throw new EvtsimError(
      "usage",
      `appendJobs: options.maxStoreCapacity: expected a number of records, got ${
        describeValue(cap)
      }`,
    );
  }
  return {
    kind: "appendJobs",
    jobs,
    ...(options.submit === undefined ? {} : { submit: options.submit }),
    ...(options.maxStoreCapacity === undefined
      ? {}
      : { maxStoreCapacity: options.maxStoreCapacity }),
  };
}

/**
 * An input that submits a stored (preloaded) job at `submitTime` (≥ the clock).
 * Throws an `EvtsimError` of kind `"usage"` unless both are numbers.
 *
 * @example
 * ```ts
 * import { appendJobs, initialState, step, submitJob } from "@evtsim/evtsim";
 * let s = initialState({ totalNodes: 8 });
 * s = step(s, appendJobs([{ submitTime: 0, numNodes: 2, timeLimit: 5 }], { submit: false })).state;
 * s = step(s, submitJob(0, 3)).state;
 * console.assert(s.arrivals.size === 1);
 * ```
 */
export function submitJob(id: number, submitTime: number): Input {
  if (typeof id !== "number") {
    throw new EvtsimError(
      "usage",
      `submitJob: id: expected a job id (a number), got ${describeValue(id)}`,
    );
  }
  checkTimeArgument(submitTime, "submitJob: submitTime");
  return { kind: "submitJob", id, submitTime };
}

/**
 * An input that processes every event up to and including `time`; the clock
 * ends at `time`. Throws an `EvtsimError` of kind `"usage"` unless `time` is
 * a number; stepping it throws one of kind `"time"` if `time` is before the
 * clock.
 *
 * @example
 * ```ts
 * import { advanceTo, initialState, step } from "@evtsim/evtsim";
 * const s = step(initialState({ totalNodes: 8 }), advanceTo(50)).state;
 * console.assert(s.time === 50);
 * ```
 */
export function advanceTo(time: number): Input {
  checkTimeArgument(time, "advanceTo: time");
  return { kind: "advanceTo", time };
}

/**
 * An input that processes every event strictly before `time`; the clock ends
 * at the last processed time (it does not move when nothing happens).
 * Throws an `EvtsimError` of kind `"usage"` unless `time` is a number.
 *
 * @example
 * ```ts
 * import { appendJobs, initialState, runUntilExclusive, step } from "@evtsim/evtsim";
 * let s = initialState({ totalNodes: 8 });
 * s = step(s, appendJobs([{ submitTime: 10, numNodes: 2, timeLimit: 5 }])).state;
 * s = step(s, runUntilExclusive(10)).state;
 * console.assert(s.allocatedNodes === 0); // the arrival at 10 is not processed yet
 * ```
 */
export function runUntilExclusive(time: number): Input {
  checkTimeArgument(time, "runUntilExclusive: time");
  return { kind: "runUntilExclusive", time };
}

/**
 * An input that processes every pending event; the clock ends at the last
 * processed time.
 *
 * @example
 * ```ts
 * import { appendJobs, initialState, runToCompletion, step } from "@evtsim/evtsim";
 * let s = initialState({ totalNodes: 8 });
 * s = step(s, appendJobs([{ submitTime: 0, numNodes: 2, timeLimit: 5 }])).state;
 * s = step(s, runToCompletion()).state;
 * console.assert(s.time === 5 && s.allocatedNodes === 0);
 * ```
 */
export function runToCompletion(): Input {
  return { kind: "runToCompletion" };
}

/**
 * An input that writes the finished front of the job store and every buffered
 * resource row now, instead of when a buffer fills. Never changes results.
 *
 * @example
 * ```ts
 * import { flush, initialState, step } from "@evtsim/evtsim";
 * const { rows } = step(initialState({ totalNodes: 8 }), flush());
 * console.assert(rows.resources.length === 1); // the baseline row
 * ```
 */
export function flush(): Input {
  return { kind: "flush" };
}

/**
 * An input that writes every finished job and buffered resource row and
 * closes the simulation. It does not advance the clock: jobs still running or
 * waiting are left out, as with DR_EVT's `--max_time`.
 *
 * @example
 * ```ts
 * import { appendJobs, finish, initialState, runToCompletion, step } from "@evtsim/evtsim";
 * let s = initialState({ totalNodes: 8 });
 * s = step(s, appendJobs([{ submitTime: 0, numNodes: 2, timeLimit: 5 }])).state;
 * s = step(s, runToCompletion()).state;
 * const { rows } = step(s, finish());
 * console.assert(rows.jobs.length === 1 && rows.jobs[0].endTime === 5);
 * ```
 */
export function finish(): Input {
  return { kind: "finish" };
}

/**
 * An input that cancels a waiting job at `time` (default: the clock). It
 * takes effect when the clock processes that time (at the next advance for
 * the clock's own time); a cancelled job never starts and is written with
 * begin = end = the cancel time.
 *
 * @example
 * ```ts
 * import { advanceTo, appendJobs, cancelJob, initialState, runToCompletion, step } from "@evtsim/evtsim";
 * const job = { submitTime: 0, numNodes: 8, timeLimit: 10 };
 * let s = step(initialState({ totalNodes: 8 }), appendJobs([job, job])).state;
 * s = step(s, advanceTo(0)).state;
 * s = step(s, cancelJob(1, 5)).state;
 * s = step(s, runToCompletion()).state;
 * console.assert(s.stats.jobsCancelled === 1 && s.stats.jobsCompleted === 1);
 * ```
 */
export function cancelJob(id: number, time?: number): Input {
  return live("cancelJob", id, time);
}

/**
 * An input that ends a running job at `time` (default: the clock): early,
 * failed or killed, or, under `runTimeMode: "external"`, its only way to end.
 *
 * @example
 * ```ts
 * import { advanceTo, appendJobs, endJob, initialState, step } from "@evtsim/evtsim";
 * let s = step(initialState({ totalNodes: 8 }), appendJobs([{ submitTime: 0, numNodes: 8, timeLimit: 100 }])).state;
 * s = step(s, advanceTo(0)).state;
 * s = step(s, endJob(0, 30, { outcome: "killed" })).state;
 * s = step(s, advanceTo(30)).state;
 * console.assert(s.allocatedNodes === 0 && s.stats.jobsKilled === 1);
 * ```
 */
export function endJob(id: number, time?: number, options: EndJobOptions = {}): Input {
  return live("endJob", id, time, options);
}

/**
 * An input that changes a waiting job's priority or queue at `time` (default: the clock).
 *
 * @example
 * ```ts
 * import { appendJobs, initialState, step, updateJob } from "@evtsim/evtsim";
 * let s = step(initialState({ totalNodes: 8 }), appendJobs([{ submitTime: 5, numNodes: 1, timeLimit: 1 }])).state;
 * s = step(s, updateJob(0, { priority: 3 })).state;
 * console.assert(s.liveEvents.size === 1);
 * ```
 */
export function updateJob(id: number, update: JobUpdate, time?: number): Input {
  return live("updateJob", id, update, time);
}

/**
 * An input that adds a queue or changes one (fields left out keep their value)
 * at `time` (default: the clock).
 *
 * @example
 * ```ts
 * import { initialState, step, updateQueue } from "@evtsim/evtsim";
 * let s = initialState({ totalNodes: 8, queues: [{ name: "batch" }] });
 * s = step(s, updateQueue({ name: "batch", open: false })).state;
 * console.assert(s.liveEvents.first()?.kind === "updateQueue");
 * ```
 */
export function updateQueue(queue: QueueDef, time?: number): Input {
  return live("updateQueue", queue, time);
}

/**
 * An input that sets the usable node count at `time` (default: the clock).
 * A cut never preempts: running jobs keep their nodes.
 *
 * @example
 * ```ts
 * import { advanceTo, changeCapacity, initialState, step } from "@evtsim/evtsim";
 * let s = step(initialState({ totalNodes: 8 }), changeCapacity(4, 10)).state;
 * s = step(s, advanceTo(10)).state;
 * console.assert(s.capacity === 4);
 * ```
 */
export function changeCapacity(capacity: number, time?: number): Input {
  return live("changeCapacity", capacity, time);
}

/** A live change of a machine's nodes: the nodes going offline and back online, by name. */
export interface NodeChange {
  /** When (default: the clock). */
  readonly time?: number;
  /** Nodes going offline: they take no new job; what runs on them drains or is killed (`onCapacityCut`). */
  readonly down?: readonly string[];
  /** Nodes coming back online (a repair, after `failed`). */
  readonly up?: readonly string[];
  /**
   * Nodes failing (unplanned): offline as `down`, and what runs on them ends
   * at once, killed or requeued (`onNodeFailure`), never drained.
   */
  readonly failed?: readonly string[];
}

/**
 * An input that takes a machine's nodes offline (`down`) or back online
 * (`up`) by name at `time` (default: the clock), as a row of a machine's
 * capacity schedule does: the same drain or kill, held jobs and resource
 * rows. Needs a resource model with named nodes; an unknown name is refused.
 *
 * @example
 * ```ts
 * import { advanceTo, changeNodes, initialState, step, topologyCluster } from "@evtsim/evtsim";
 * const model = topologyCluster([{ name: "n1", capacity: { cpu: 8 } }, { name: "n2", capacity: { cpu: 8 } }]);
 * let s = step(initialState({ totalNodes: 2, resourceModel: model }), changeNodes({ time: 10, down: ["n2"] })).state;
 * s = step(s, advanceTo(10)).state;
 * console.assert(s.capacity === 1);
 * ```
 */
export function changeNodes(change: NodeChange): Input {
  return live("changeNodes", change);
}

// The live inputs' creators take their arguments in the order their
// definition's `params` lists them (core/live_inputs.ts), which builds the
// input; `step` checks it.
function live(kind: LiveInputKind, ...args: unknown[]): Input {
  return liveInputFromArgs(kind, args) as Input;
}
