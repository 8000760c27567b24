// The streaming API: a thin imperative shell around the pure reducer. It holds
// one immutable state, turns method calls into inputs, hands the rows each
// step makes final to the caller's sinks (or keeps them for `finish`), and
// supplies the one fact the core cannot read itself: available memory.

import type { DecisionRow, PendReason } from "../core/decisions.ts";
import { checkArray, checkObject, checkOptionalBoolean } from "../core/_input_check.ts";
import { EvtsimError } from "../core/errors.ts";
import type { EndJobOptions, JobUpdate } from "../core/live.ts";
import { checkLiveInputKind } from "../core/_live_inputs_derived.ts";
import type { LiveInput } from "../core/live_inputs.ts";
import type { PolicyRegistry } from "../core/policies.ts";
import {
  activeJobCount,
  availableNodes,
  type BackfillWindow,
  backfillWindow,
  headShadowTime,
  nodesInUse,
  pendingReason,
  statistics,
} from "../core/queries.ts";
import type { QueueDef } from "../core/queues.ts";
import type { SimState } from "../core/state.ts";
import { initialState } from "./initial_state.ts";
import type { Statistics } from "../core/statistics.ts";
import { type Input, step, type StepResult } from "../core/step.ts";
import type {
  JobRow,
  JobSpec,
  Notice,
  ResourceRow,
  SimulationConfig,
  StepRows,
} from "../core/types.ts";
import { checkSinks, RowDelivery } from "./_delivery.ts";
import type { SimulationSinks } from "./sinks.ts";
export type { SimulationSinks } from "./sinks.ts";
import * as inputs from "./inputs.ts";
import { checkMemoryPressureFraction, memoryPressureLimit } from "./memory.ts";
import { withDecisions } from "../core/reconfigure.ts";
import type { MetricsOptions, ResourceMetrics } from "../core/metrics.ts";
import { MachineUse } from "./_machine_use.ts";
import {
  Recorder,
  type RecordingOptions,
  type RecordingSink,
  type RecordingStatus,
} from "./recorder.ts";

/**
 * Options of a {@link Simulation}: the configuration plus the shell-only settings.
 *
 * @example
 * ```ts
 * import { Simulation, type SimulationOptions } from "@evtsim/evtsim";
 * const options: SimulationOptions = {
 *   totalNodes: 16,
 *   backfillPolicy: "none",
 *   jobs: [{ submitTime: 0, numNodes: 16, timeLimit: 10 }, { submitTime: 0, numNodes: 1, timeLimit: 10 }],
 * };
 * const sim = new Simulation(options);
 * const n = sim.initializeTrace();
 * for (let id = 0; id < n; id++) sim.submitJob(id, 0);
 * // Without backfilling the 1-node job waits behind the whole-machine job.
 * if (sim.finish().jobs[1].beginTime !== 10) throw new Error("job 1 should start at 10");
 * ```
 */
export interface SimulationOptions extends SimulationConfig {
  /** A trace to load with {@link Simulation.initializeTrace} (any order; sorted when loaded). */
  readonly jobs?: readonly JobSpec[];
  /**
   * DR_EVT's `--check_memory_pressure F` (0 < F ≤ 1): refuse to grow the job
   * store when its projected use exceeds F × available memory. Needs `--allow-sys`.
   */
  readonly checkMemoryPressure?: number;
  /** Where picker and admission names are looked up (default: evtsim's own). */
  readonly registry?: PolicyRegistry;
}

/**
 * What {@link Simulation.finish} returns.
 *
 * @example
 * ```ts
 * import { Simulation, type SimulationOutput } from "@evtsim/evtsim";
 * const sim = new Simulation({ totalNodes: 8 });
 * sim.appendJobs([{ submitTime: 0, numNodes: 8, timeLimit: 10 }, { submitTime: 5, numNodes: 8, timeLimit: 10 }]);
 * const out: SimulationOutput = sim.finish();
 * // Job 1 waits 5 s for job 0; finishing again returns the same output.
 * if (out.jobs.length !== 2 || out.statistics.averageWait !== 2.5 || out.statistics.makespan !== 20) {
 *   throw new Error("output");
 * }
 * if (sim.finish() !== out) throw new Error("finish should be idempotent");
 * ```
 */
export interface SimulationOutput {
  /** Job rows not handed to a sink, in job-id order. */
  readonly jobs: readonly JobRow[];
  /** Resource rows not handed to a sink, in time order. */
  readonly resources: readonly ResourceRow[];
  /** Notices not handed to a sink. */
  readonly notices: readonly Notice[];
  /** Decisions (with `decisions: true` and no `onDecision` sink). */
  readonly decisions: readonly DecisionRow[];
  /** Statistics of the whole run. */
  readonly statistics: Statistics;
}

/**
 * Options of {@link Simulation.finish}.
 *
 * @example
 * ```ts
 * import { type FinishOptions, Simulation } from "@evtsim/evtsim";
 * const rowsWritten = (options: FinishOptions) => {
 *   const sim = new Simulation({ totalNodes: 8 });
 *   sim.appendJobs([{ submitTime: 0, numNodes: 8, timeLimit: 10 }, { submitTime: 0, numNodes: 8, timeLimit: 10 }]);
 *   sim.advanceTo(15);
 *   return sim.finish(options).jobs.length;
 * };
 * // By default every pending event is processed; `false` stops at the clock, like `--max_time 15`.
 * if (rowsWritten({}) !== 2 || rowsWritten({ runToCompletion: false }) !== 1) throw new Error("finish");
 * ```
 */
export interface FinishOptions {
  /**
   * Process every pending event first (default true). `false` finishes at the
   * current clock, leaving running and waiting jobs out, like `--max_time`.
   */
  readonly runToCompletion?: boolean;
}

/**
 * A simulation driven call by call, as DR_EVT's streaming API is. Jobs are
 * appended (created and submitted in one call) or preloaded and submitted;
 * the caller moves the clock with {@link Simulation.advanceTo} and
 * {@link Simulation.runUntilExclusive}. Time never goes back: a target or a
 * submit time before the clock throws an `EvtsimError` of kind `"time"` and
 * changes nothing. Every method is one `step` of the pure reducer (`finish`
 * two), and its rows reach the sinks before its new state is kept, so a call
 * that throws (a bad argument, a broken contract, or a sink that throws; see
 * {@link SimulationSinks}) leaves the simulation exactly as it was and can be
 * retried. Every argument is type-checked: a wrong type throws an
 * `EvtsimError` of kind `"usage"` (or `"input"` for a job spec).
 *
 * @example
 * ```ts
 * import { Simulation } from "@evtsim/evtsim";
 * const sim = new Simulation({ totalNodes: 100, backfillPolicy: "easy" });
 * sim.appendJobs([
 *   { submitTime: 0, numNodes: 70, timeLimit: 200 },
 *   { submitTime: 10, numNodes: 45, timeLimit: 300 },
 * ]);
 * sim.advanceTo(15);
 * if (sim.nodesInUse !== 70 || sim.activeJobCount !== 1) throw new Error("job 1 should wait");
 * sim.appendJob({ submitTime: 20, numNodes: 20, timeLimit: 50 });
 * const out = sim.finish();
 * // Job 2 is backfilled ahead of job 1: it fits the 30 free nodes and ends before 200.
 * if (out.jobs[2].beginTime !== 20) throw new Error("job 2 should be backfilled at 20");
 * ```
 */
export class Simulation {
  #state: SimState;
  readonly #config: SimulationConfig;
  readonly #memoryFraction: number | undefined;
  #trace: readonly JobSpec[];
  /** An input other than initializeTrace has been applied. */
  #touched = false;
  /** Store size up to which an unbounded store passed the memory check. */
  #memoryCheckedUpTo = 0;
  readonly #delivery: RowDelivery;
  readonly #registry: PolicyRegistry | undefined;
  #output: SimulationOutput | undefined;
  /** The recording in progress, or the last one (for its status). */
  #recorder: Recorder | undefined;
  /** The caller asked for decisions (a recording's own are not passed on). */
  readonly #wantsDecisions: boolean;
  /** On a machine (a resource model naming its nodes): its utilization, call by call. */
  readonly #machineUse: MachineUse | undefined;

  /**
   * Creates a simulation at its start time with all nodes free. Throws an
   * `EvtsimError` of kind `"usage"` for an invalid configuration.
   *
   * @example
   * ```ts
   * import { Simulation } from "@evtsim/evtsim";
   * const rows: number[] = [];
   * const sim = new Simulation({ totalNodes: 8 }, { onJobRow: (r) => rows.push(r.jobId) });
   * sim.appendJob({ submitTime: 0, numNodes: 8, timeLimit: 10 });
   * sim.finish();
   * console.assert(rows.length === 1 && rows[0] === 0);
   * ```
   */
  constructor(options: SimulationOptions, sinks: SimulationSinks = {}) {
    checkObject(options, "Simulation: options");
    checkSinks(sinks);
    const { jobs, checkMemoryPressure, registry, ...given } = options;
    if (jobs !== undefined) checkArray(jobs, "Simulation: options.jobs");
    const config = sinks.onDecision !== undefined
      ? { ...given, decisions: given.decisions === "heads" ? "heads" as const : true }
      : given;
    this.#config = config;
    this.#wantsDecisions = config.decisions !== undefined && config.decisions !== false;
    // On a machine the utilization reads each job's allocation from its
    // DISPATCH row, as simulate --machine and serve --machine do (both run
    // with decisions on). Without decisions it is not known: making them
    // only for this would cost EASY on a machine about 60% more CPU time.
    const nodes = given.resourceModel?.nodes;
    this.#machineUse = nodes !== undefined && this.#wantsDecisions
      ? new MachineUse(nodes)
      : undefined;
    this.#registry = registry;
    this.#state = initialState(config, { registry });
    this.#delivery = new RowDelivery(sinks);
    this.#trace = jobs ?? [];
    this.#memoryFraction = checkMemoryPressure === undefined
      ? undefined
      : checkMemoryPressureFraction(checkMemoryPressure);
  }

  /** The current immutable state; keep it as a snapshot or step it with the pure API. */
  get state(): SimState {
    this.#delivery.refuseReentry("state");
    return this.#state;
  }

  /**
   * Sets the trace that {@link Simulation.initializeTrace} loads (replacing
   * any given to the constructor). Only allowed before jobs are appended or
   * submitted and before the clock moves.
   *
   * @example
   * ```ts
   * import { Simulation } from "@evtsim/evtsim";
   * const sim = new Simulation({ totalNodes: 8 });
   * sim.loadTrace([{ submitTime: 5, numNodes: 1, timeLimit: 1 }, { submitTime: 0, numNodes: 1, timeLimit: 1 }]);
   * console.assert(sim.initializeTrace() === 2);
   * ```
   */
  loadTrace(jobs: readonly JobSpec[]): void {
    this.#delivery.refuseReentry("loadTrace");
    checkArray(jobs, "loadTrace: jobs");
    this.#requireUntouched("loadTrace");
    this.#trace = [...jobs];
  }

  /**
   * Loads the trace (from the constructor or {@link Simulation.loadTrace})
   * into the job store without submitting it: takes the first `maxJobs` jobs
   * (0 = all), sorts them stably by submit time, and chooses each run time.
   * Job `i` of the sorted trace gets id `i`; submit it with
   * {@link Simulation.submitJob}. Idempotent: calling it again reloads from
   * scratch. Returns the number of jobs loaded.
   *
   * @example
   * ```ts
   * import { Simulation } from "@evtsim/evtsim";
   * const sim = new Simulation({
   *   totalNodes: 8,
   *   jobs: [{ submitTime: 5, numNodes: 4, timeLimit: 10 }, { submitTime: 0, numNodes: 4, timeLimit: 10 }],
   * });
   * const n = sim.initializeTrace();
   * for (let id = 0; id < n; id++) sim.submitJob(id, id === 0 ? 0 : 5);
   * console.assert(sim.finish().jobs[1].submitTime === 5);
   * ```
   */
  initializeTrace(maxJobs = 0): number {
    this.#delivery.refuseReentry("initializeTrace");
    this.#requireUntouched("initializeTrace");
    if (this.isRecording) {
      throw new EvtsimError("state", "initializeTrace must come before recording starts");
    }
    if (!Number.isInteger(maxJobs) || maxJobs < 0) {
      throw new EvtsimError("usage", `max jobs must be a non-negative integer, got ${maxJobs}`);
    }
    const taken = maxJobs > 0 ? this.#trace.slice(0, maxJobs) : [...this.#trace];
    taken.sort((a, b) => a.submitTime - b.submitTime); // Array#sort is stable
    const fresh = initialState(this.#config, { registry: this.#registry });
    const r = step(
      fresh,
      inputs.appendJobs(taken, {
        submit: false,
        maxStoreCapacity: this.#storeLimit(fresh, taken.length),
      }),
    );
    this.#delivery.deliver("initializeTrace", [r.rows]);
    this.#state = r.state;
    this.#memoryCheckedUpTo = 0;
    return taken.length;
  }

  /**
   * Creates a job and submits it at its submit time (≥ the clock); returns
   * its id. Nothing happens until the clock reaches the submit time. With
   * `{ submit: false }` the job is only stored, as DR_EVT's streaming API
   * appends it, and {@link Simulation.submitJob} submits it later (then its
   * submit time is the one given there).
   *
   * @example
   * ```ts
   * import { Simulation } from "@evtsim/evtsim";
   * const sim = new Simulation({ totalNodes: 100 });
   * const id = sim.appendJob({ submitTime: 10, numNodes: 20, queue: "pbatch", timeLimit: 200 });
   * sim.advanceTo(10);
   * console.assert(id === 0 && sim.nodesInUse === 20);
   * // DR_EVT's two steps: append, then submit.
   * const later = sim.appendJob({ submitTime: 30, numNodes: 10, timeLimit: 50 }, { submit: false });
   * sim.advanceTo(40);
   * console.assert(later === 1 && sim.nodesInUse === 20); // stored, not submitted
   * sim.submitJob(later, 40);
   * sim.advanceTo(40);
   * console.assert(sim.nodesInUse === 30);
   * ```
   */
  appendJob(job: JobSpec, options: { readonly submit?: boolean } = {}): number {
    this.#delivery.refuseReentry("appendJob");
    return this.appendJobs([job], options)[0];
  }

  /**
   * Creates and submits several jobs; returns their ids in order.
   * All-or-nothing: if the batch is not sorted by submit time, has a submit
   * time before the clock, does not fit a full store under
   * `jobStoreOverflow: "abort"`, or is refused under memory pressure, it
   * throws and nothing is appended, written or numbered. With
   * `{ submit: false }` the jobs are only stored (in any order) and each is
   * submitted later with {@link Simulation.submitJob}.
   *
   * @example
   * ```ts
   * import { EvtsimError, Simulation } from "@evtsim/evtsim";
   * const sim = new Simulation({ totalNodes: 100 });
   * try {
   *   sim.appendJobs([{ submitTime: 20, numNodes: 1, timeLimit: 5 }, { submitTime: 10, numNodes: 1, timeLimit: 5 }]);
   * } catch (e) {
   *   console.assert(e instanceof EvtsimError);
   * }
   * console.assert(sim.appendJobs([{ submitTime: 10, numNodes: 1, timeLimit: 5 }])[0] === 0);
   * ```
   */
  appendJobs(jobs: readonly JobSpec[], options: { readonly submit?: boolean } = {}): number[] {
    this.#delivery.refuseReentry("appendJobs");
    checkArray(jobs, "appendJobs: jobs");
    checkObject(options, "appendJobs: options");
    checkOptionalBoolean(options.submit, "appendJobs: options.submit");
    const limit = this.#storeLimit(this.#state, jobs.length);
    const input = inputs.appendJobs(jobs, { submit: options.submit, maxStoreCapacity: limit });
    const ids = this.#apply("appendJobs", input).ids;
    if (limit !== undefined && this.#state.store.capacity === 0) {
      // Re-check an unbounded store only when it has doubled, as if it grew by doubling.
      this.#memoryCheckedUpTo = Math.min(limit, 2 * this.#state.store.records.size);
    }
    return [...ids];
  }

  /**
   * Submits a preloaded job (see {@link Simulation.initializeTrace}) at
   * `submitTime` (≥ the clock). A job is submitted at most once.
   *
   * @example
   * ```ts
   * import { Simulation } from "@evtsim/evtsim";
   * const sim = new Simulation({ totalNodes: 8, jobs: [{ submitTime: 0, numNodes: 2, timeLimit: 5 }] });
   * sim.initializeTrace();
   * sim.submitJob(0, 3);
   * sim.advanceTo(3);
   * console.assert(sim.nodesInUse === 2);
   * ```
   */
  submitJob(id: number, submitTime: number): void {
    this.#delivery.refuseReentry("submitJob");
    this.#apply("submitJob", inputs.submitJob(id, submitTime));
  }

  /**
   * Processes every event up to and including `time`; the clock ends at
   * `time`. Contract: no job is appended or submitted later with a submit time
   * at or before `time` whose arrival should have been seen by this advance.
   *
   * @example
   * ```ts
   * import { Simulation } from "@evtsim/evtsim";
   * const sim = new Simulation({ totalNodes: 8 });
   * sim.appendJob({ submitTime: 0, numNodes: 2, timeLimit: 100 });
   * sim.advanceTo(100);
   * console.assert(sim.currentTime === 100 && sim.nodesInUse === 0);
   * ```
   */
  advanceTo(time: number): void {
    this.#delivery.refuseReentry("advanceTo");
    this.#apply("advanceTo", inputs.advanceTo(time));
  }

  /**
   * Processes every event strictly before `time`; the clock ends at the last
   * processed time (a target equal to the clock does nothing).
   *
   * @example
   * ```ts
   * import { Simulation } from "@evtsim/evtsim";
   * const sim = new Simulation({ totalNodes: 8 });
   * sim.appendJob({ submitTime: 0, numNodes: 2, timeLimit: 100 });
   * sim.runUntilExclusive(100);
   * console.assert(sim.currentTime === 0 && sim.nodesInUse === 2); // the end at 100 is not processed
   * ```
   */
  runUntilExclusive(time: number): void {
    this.#delivery.refuseReentry("runUntilExclusive");
    this.#apply("runUntilExclusive", inputs.runUntilExclusive(time));
  }

  /**
   * Processes every pending event; the clock ends at the last processed time.
   *
   * @example
   * ```ts
   * import { Simulation } from "@evtsim/evtsim";
   * const sim = new Simulation({ totalNodes: 8 });
   * sim.appendJob({ submitTime: 0, numNodes: 2, timeLimit: 100 });
   * sim.runToCompletion();
   * console.assert(sim.currentTime === 100 && sim.statistics().jobsCompleted === 1);
   * ```
   */
  runToCompletion(): void {
    this.#delivery.refuseReentry("runToCompletion");
    this.#apply("runToCompletion", inputs.runToCompletion());
  }

  /**
   * Writes the finished front of the job store and every buffered resource
   * row now. Never changes which rows are written, only when.
   *
   * @example
   * ```ts
   * import { Simulation } from "@evtsim/evtsim";
   * let written = 0;
   * const sim = new Simulation({ totalNodes: 8 }, { onJobRow: () => written++ });
   * sim.appendJob({ submitTime: 0, numNodes: 2, timeLimit: 10 });
   * sim.advanceTo(10);
   * sim.flush();
   * console.assert(written === 1);
   * ```
   */
  flush(): void {
    this.#delivery.refuseReentry("flush");
    this.#apply("flush", inputs.flush());
  }

  /**
   * Runs to completion (unless `runToCompletion: false`), writes every
   * remaining row and closes the simulation; later inputs throw. Returns the
   * rows not handed to sinks and the final statistics. Calling it again
   * returns the same output.
   *
   * @example
   * ```ts
   * import { Simulation } from "@evtsim/evtsim";
   * const sim = new Simulation({ totalNodes: 8 });
   * sim.appendJobs([{ submitTime: 0, numNodes: 8, timeLimit: 10 }, { submitTime: 0, numNodes: 8, timeLimit: 10 }]);
   * sim.advanceTo(10);
   * const out = sim.finish({ runToCompletion: false }); // like --max_time 10
   * console.assert(out.jobs.length === 1 && out.statistics.jobsRunning === 1);
   * ```
   */
  finish(options: FinishOptions = {}): SimulationOutput {
    this.#delivery.refuseReentry("finish");
    checkObject(options, "finish: options");
    checkOptionalBoolean(options.runToCompletion, "finish: options.runToCompletion");
    if (this.#output !== undefined) return this.#output;
    if (options.runToCompletion ?? true) {
      this.#apply("finish", inputs.runToCompletion(), inputs.finish());
    } else {
      this.#apply("finish", inputs.finish());
    }
    this.#output = {
      jobs: this.#delivery.jobs,
      resources: this.#delivery.resources,
      notices: this.#delivery.notices,
      decisions: this.#delivery.decisions,
      statistics: this.statistics(),
    };
    return this.#output;
  }

  /**
   * Cancels a waiting job at `time` (default: the clock). Like every live
   * event it is checked now (an unknown, running, finished or not yet
   * submitted job throws an `EvtsimError` and nothing changes) and takes
   * effect when the clock processes `time`: for the clock's own time, at the
   * next advance (`advanceTo(currentTime)` applies it and runs a round).
   *
   * @example
   * ```ts
   * import { Simulation } from "@evtsim/evtsim";
   * const sim = new Simulation({ totalNodes: 4 });
   * const [a, b] = sim.appendJobs([
   *   { submitTime: 0, numNodes: 4, timeLimit: 100 },
   *   { submitTime: 0, numNodes: 4, timeLimit: 10 },
   * ]);
   * sim.advanceTo(5);
   * sim.cancelJob(b);
   * sim.advanceTo(5);
   * const rows = sim.finish().jobs;
   * console.assert(rows[1].outcome === "cancelled" && rows[1].beginTime === 5 && rows[0].endTime === 100);
   * console.assert(a === 0);
   * ```
   */
  cancelJob(id: number, time?: number): void {
    this.#delivery.refuseReentry("cancelJob");
    this.#apply("cancelJob", inputs.cancelJob(id, time));
  }

  /**
   * Ends a running job at `time` (default: the clock): its nodes are free from
   * then. `outcome` says how (`completed`, `failed` or `killed`); under
   * `runTimeMode: "external"` this is the only way a job ends.
   *
   * @example
   * ```ts
   * import { Simulation } from "@evtsim/evtsim";
   * const sim = new Simulation({ totalNodes: 4, runTimeMode: "external" });
   * sim.appendJobs([{ submitTime: 0, numNodes: 4, timeLimit: 100 }, { submitTime: 0, numNodes: 4, timeLimit: 100 }]);
   * sim.advanceTo(0);
   * sim.endJob(0, 42);
   * sim.advanceTo(42);
   * console.assert(sim.nodesInUse === 4 && sim.activeJobCount === 0); // job 1 took the nodes at 42
   * ```
   */
  endJob(id: number, time?: number, options: EndJobOptions = {}): void {
    this.#delivery.refuseReentry("endJob");
    this.#apply("endJob", inputs.endJob(id, time, options));
  }

  /**
   * Changes a waiting job's priority or queue at `time` (default: the clock).
   *
   * @example
   * ```ts
   * import { Simulation } from "@evtsim/evtsim";
   * const sim = new Simulation({ totalNodes: 4, queues: [{ name: "a" }, { name: "b", priority: 1 }] });
   * sim.appendJob({ submitTime: 0, numNodes: 1, timeLimit: 10, queue: "a" });
   * sim.updateJob(0, { queue: "b" });
   * sim.advanceTo(0);
   * console.assert(sim.finish().jobs[0].queue === "b");
   * ```
   */
  updateJob(id: number, update: JobUpdate, time?: number): void {
    this.#delivery.refuseReentry("updateJob");
    this.#apply("updateJob", inputs.updateJob(id, update, time));
  }

  /**
   * Adds a queue or changes one (priority, `maxRunning`, open/closed, picker)
   * at `time` (default: the clock); fields left out keep their value.
   *
   * @example
   * ```ts
   * import { Simulation } from "@evtsim/evtsim";
   * const sim = new Simulation({ totalNodes: 4, queues: [{ name: "batch", open: false }] });
   * sim.appendJob({ submitTime: 0, numNodes: 1, timeLimit: 10 });
   * sim.advanceTo(50);
   * console.assert(sim.nodesInUse === 0 && sim.pendingReason(0)?.code === "queue_closed");
   * sim.updateQueue({ name: "batch", open: true });
   * sim.advanceTo(50);
   * console.assert(sim.nodesInUse === 1);
   * ```
   */
  updateQueue(queue: QueueDef, time?: number): void {
    this.#delivery.refuseReentry("updateQueue");
    this.#apply("updateQueue", inputs.updateQueue(queue, time));
  }

  /**
   * Sets the usable node count at `time` (default: the clock). Running jobs
   * beyond a cut drain (or are killed, with `onCapacityCut: "kill"`); a
   * waiting job larger than the capacity is held until it comes back.
   *
   * @example
   * ```ts
   * import { Simulation } from "@evtsim/evtsim";
   * const sim = new Simulation({ totalNodes: 8 });
   * sim.changeCapacity(2, 0);
   * sim.appendJob({ submitTime: 0, numNodes: 4, timeLimit: 10 });
   * sim.advanceTo(100);
   * console.assert(sim.nodesInUse === 0 && sim.pendingReason(0)?.code === "exceeds_capacity");
   * ```
   */
  changeCapacity(capacity: number, time?: number): void {
    this.#delivery.refuseReentry("changeCapacity");
    this.#apply("changeCapacity", inputs.changeCapacity(capacity, time));
  }

  /**
   * Takes a machine's nodes offline (`down`) or back online (`up`) by name at
   * `time` (default: the clock), exactly as a row of its capacity schedule
   * does: jobs running on nodes going down drain (or are killed, with
   * `onCapacityCut: "kill"`), and a waiting job that no longer fits the
   * machine is held until nodes come back. Needs a resource model (a
   * machine); an unknown node name is refused and nothing changes. Nodes
   * that `failed` (unplanned) go offline too, and what runs on them ends at
   * once: killed, or requeued with `onNodeFailure: "requeue"`.
   *
   * @example
   * ```ts
   * import { Simulation, topologyCluster } from "@evtsim/evtsim";
   * const model = topologyCluster([{ name: "n1", capacity: { cpu: 8 } }, { name: "n2", capacity: { cpu: 8 } }]);
   * const sim = new Simulation({ totalNodes: 2, resourceModel: model });
   * sim.changeNodes({ time: 0, down: ["n2"] });
   * sim.appendJob({ submitTime: 0, numNodes: 0, timeLimit: 10, demand: { replicas: 2, perReplica: { cpu: 8 } } });
   * sim.advanceTo(5);
   * console.assert(sim.pendingReason(0)?.code === "exceeds_capacity");
   * sim.changeNodes({ up: ["n2"] });
   * console.assert(sim.finish().jobs[0].beginTime === 5);
   *
   * // A failure requeues the job running on n1; it starts again on n2.
   * const failing = new Simulation({ totalNodes: 2, resourceModel: model, onNodeFailure: "requeue" });
   * failing.appendJob({ submitTime: 0, numNodes: 0, timeLimit: 100, demand: { replicas: 1, perReplica: { cpu: 8 } } });
   * failing.advanceTo(10);
   * failing.changeNodes({ failed: ["n1"] });
   * const row = failing.finish().jobs[0];
   * console.assert(row.beginTime === 10 && row.requeues === 1 && failing.statistics().lostWork === 10);
   * ```
   */
  changeNodes(change: inputs.NodeChange): void {
    this.#delivery.refuseReentry("changeNodes");
    checkObject(change, "changeNodes");
    this.#apply("changeNodes", inputs.changeNodes(change));
  }

  /**
   * Gives any live event as its input value (`{ kind, ...fields }`, as
   * `LIVE_INPUTS` defines each kind): the one call behind `cancelJob`,
   * `endJob`, `updateJob`, `updateQueue`, `changeCapacity` and
   * `changeNodes`, for a caller (a front, a log) that holds events as data.
   * Throws an `EvtsimError` of kind `"usage"` for a kind that is not a live
   * event or a field of the wrong type, and as the named call does when the
   * event cannot apply.
   *
   * @example
   * ```ts
   * import { type LiveInput, Simulation } from "@evtsim/evtsim";
   * const sim = new Simulation({ totalNodes: 4 });
   * sim.appendJobs([{ submitTime: 0, numNodes: 4, timeLimit: 10 }, { submitTime: 0, numNodes: 4, timeLimit: 10 }]);
   * sim.advanceTo(0);
   * const events: LiveInput[] = [{ kind: "cancelJob", id: 1, time: 2 }, { kind: "endJob", id: 0, time: 3 }];
   * for (const e of events) sim.pushLiveEvent(e);
   * const rows = sim.finish().jobs;
   * console.assert(rows[0].endTime === 3 && rows[1].outcome === "cancelled");
   * ```
   */
  pushLiveEvent(input: LiveInput): void {
    this.#delivery.refuseReentry("pushLiveEvent");
    checkObject(input, "pushLiveEvent");
    checkLiveInputKind(input.kind, "pushLiveEvent: kind");
    this.#apply(input.kind, input);
  }

  /**
   * Why a waiting job has not started ("why is my job waiting?"): the reason
   * a round at the clock would give it. Undefined when the job is not waiting;
   * a job id never created is a `state` error ("no job 9: the jobs so far are 0..2").
   *
   * @example
   * ```ts
   * import { Simulation } from "@evtsim/evtsim";
   * const sim = new Simulation({ totalNodes: 10 });
   * sim.appendJobs([
   *   { submitTime: 0, numNodes: 6, timeLimit: 100 },
   *   { submitTime: 0, numNodes: 8, timeLimit: 10 },
   *   { submitTime: 0, numNodes: 4, timeLimit: 500 },
   * ]);
   * sim.advanceTo(0);
   * console.assert(sim.pendingReason(1)?.message === "needs 8 nodes, 4 free");
   * console.assert(sim.pendingReason(2)?.code === "reservation_blocked");
   * ```
   */
  pendingReason(id: number): PendReason | undefined {
    this.#delivery.refuseReentry("pendingReason");
    return pendingReason(this.#state, id);
  }

  /** The simulation clock. */
  get currentTime(): number {
    this.#delivery.refuseReentry("currentTime");
    return this.#state.time;
  }

  /**
   * Nodes holding a running job: the nodes allocated; on a machine (a
   * resource model naming its nodes) the nodes a job runs on, however
   * little of each it takes.
   */
  get nodesInUse(): number {
    this.#delivery.refuseReentry("nodesInUse");
    return nodesInUse(this.#state);
  }

  /**
   * Nodes free now (usable capacity minus allocated, never negative); on a
   * machine (a resource model naming its nodes) the nodes online that hold
   * no job, see {@link Simulation.backfillWindow} for the rest of its room.
   */
  get availableNodes(): number {
    this.#delivery.refuseReentry("availableNodes");
    return availableNodes(this.#state);
  }

  /** Jobs that have arrived and wait to start. */
  get activeJobCount(): number {
    this.#delivery.refuseReentry("activeJobCount");
    return activeJobCount(this.#state);
  }

  /**
   * Statistics so far: wait, turnaround, bounded slowdown, utilization,
   * makespan and job counts. On a machine (a resource model that names its
   * nodes) with decisions on, the utilization counts node equivalents, as
   * `simulate --machine`'s statistics do (see {@link Simulation.resourceMetrics});
   * without decisions the allocations are not known and the utilization is
   * the node count's (a job asking for cores, memory or GPUs counts 0): give
   * `decisions: "heads"` for the machine's figure.
   *
   * @example
   * ```ts
   * import { Simulation } from "@evtsim/evtsim";
   * const sim = new Simulation({ totalNodes: 10 });
   * sim.appendJobs([{ submitTime: 0, numNodes: 10, timeLimit: 10 }, { submitTime: 0, numNodes: 10, timeLimit: 10 }]);
   * sim.runToCompletion();
   * const s = sim.statistics();
   * console.assert(s.averageWait === 5 && s.makespan === 20 && s.utilization === 1);
   * ```
   */
  statistics(): Statistics {
    this.#delivery.refuseReentry("statistics");
    const s = statistics(this.#state);
    return this.#machineUse === undefined ? s : this.#machineUse.statistics(this.#state, s);
  }

  /**
   * On a machine (a resource model that names its nodes) with decisions on
   * (`decisions` or an `onDecision` sink: each job's allocation is read from
   * its DISPATCH row, as simulate --machine does): utilization per resource
   * and per partition, and in node equivalents, of the jobs that have ended
   * so far, as `simulate --machine --stats_json` gives it (`resources`) for
   * a run stopped now; undefined on whole nodes or without decisions.
   *
   * @example
   * ```ts
   * import { Simulation, topologyCluster } from "@evtsim/evtsim";
   * const model = topologyCluster([{ name: "n1", capacity: { cpu: 8 } }, { name: "n2", capacity: { cpu: 8 } }]);
   * const sim = new Simulation({ totalNodes: 2, resourceModel: model, decisions: "heads" });
   * const job = (cpu: number, limit: number) => ({
   *   submitTime: 0, numNodes: 0, timeLimit: limit, demand: { replicas: 1, perReplica: { cpu } },
   * });
   * sim.appendJobs([job(8, 10), job(4, 20)]);
   * sim.advanceTo(15);
   * // Job 0 (all of n1) has ended: 8 of 16 cpu for its 10 s; one node of two.
   * const r = sim.resourceMetrics()!;
   * console.assert(r.by_resource.cpu.utilization === 0.5 && sim.statistics().utilization === 0.5);
   * ```
   */
  resourceMetrics(options: MetricsOptions = {}): ResourceMetrics | undefined {
    this.#delivery.refuseReentry("resourceMetrics");
    return this.#machineUse?.metrics(this.#state, options);
  }

  /**
   * The waiting head job's reservation (shadow time), or −1 when nothing waits.
   *
   * @example
   * ```ts
   * import { Simulation } from "@evtsim/evtsim";
   * const sim = new Simulation({ totalNodes: 10 });
   * sim.appendJobs([{ submitTime: 0, numNodes: 10, timeLimit: 30 }, { submitTime: 0, numNodes: 5, timeLimit: 10 }]);
   * console.assert(sim.headShadowTime() === -1);
   * sim.advanceTo(0);
   * console.assert(sim.headShadowTime() === 30);
   * ```
   */
  headShadowTime(): number {
    this.#delivery.refuseReentry("headShadowTime");
    return headShadowTime(this.#state);
  }

  /**
   * Free nodes now, the head's shadow time and the limit-based releases of
   * running jobs up to it (merged per time). On a machine (a resource model
   * naming its nodes) also the nodes with any free room, the idle ones and
   * the free units of each resource, and per release the units coming back.
   *
   * @example
   * ```ts
   * import { Simulation } from "@evtsim/evtsim";
   * const sim = new Simulation({ totalNodes: 10 });
   * sim.appendJobs([{ submitTime: 0, numNodes: 6, timeLimit: 30 }, { submitTime: 0, numNodes: 8, timeLimit: 10 }]);
   * sim.advanceTo(0);
   * const w = sim.backfillWindow();
   * console.assert(w.availableNodes === 4 && w.shadowTime === 30);
   * console.assert(w.releases.length === 1 && w.releases[0].nodesReleased === 6);
   * ```
   */
  backfillWindow(): BackfillWindow {
    this.#delivery.refuseReentry("backfillWindow");
    return backfillWindow(this.#state);
  }

  /**
   * Starts recording to `sink`: a `.replay` log of every input from now on
   * and the decisions each makes (header, a snapshot of the state now, then
   * events, sessions and periodic snapshots). Decisions are switched on for
   * the recording (see {@link RecordingOptions}); they reach this
   * simulation's own sinks and output only if it asked for them. Throws an
   * `EvtsimError` when already recording or when the sink fails at once.
   *
   * @example
   * ```ts
   * import { Simulation } from "@evtsim/evtsim";
   * let log = "";
   * const sim = new Simulation({ totalNodes: 4 });
   * sim.appendJob({ submitTime: 0, numNodes: 4, timeLimit: 10 });
   * sim.advanceTo(5); // recording may start in the middle of a run
   * sim.startRecording({ write: (text) => void (log += text) });
   * sim.appendJob({ submitTime: 5, numNodes: 2, timeLimit: 10 });
   * sim.advanceTo(10);
   * if (sim.stopRecording() !== 2) throw new Error("two events");
   * const sessions = log.trimEnd().split("\n").map((l) => JSON.parse(l)).filter((m) => m.type === "session");
   * // Job 1 waits at 5 (the head does not fit: a PEND) and starts at 10 (a DISPATCH).
   * const seen = sessions.map((m) => `${m.time} ${m.decisions[0][0]} ${m.decisions[0][1]}`);
   * if (seen.join(", ") !== "5 PEND 1, 10 DISPATCH 1") throw new Error(seen.join(", "));
   * ```
   */
  startRecording(sink: RecordingSink, options: RecordingOptions = {}): void {
    if (this.isRecording) throw new EvtsimError("state", "already recording");
    const recorder = new Recorder(sink, this.#state, options);
    this.#recorder = recorder;
    this.#state = recorder.initial;
  }

  /**
   * Stops recording: writes the end message, closes the sink and returns
   * the number of events recorded. Throws an `EvtsimError` when not recording.
   *
   * @example
   * ```ts
   * import { EvtsimError, Simulation } from "@evtsim/evtsim";
   * const sim = new Simulation({ totalNodes: 4 });
   * sim.startRecording({ write: () => {} });
   * sim.advanceTo(1);
   * if (sim.stopRecording() !== 1 || sim.isRecording) throw new Error("stopped after 1 event");
   * try {
   *   sim.stopRecording();
   *   throw new Error("stopping twice must fail");
   * } catch (e) {
   *   if (!(e instanceof EvtsimError)) throw e;
   * }
   * ```
   */
  stopRecording(): number {
    const recorder = this.#recorder;
    if (recorder === undefined || !recorder.active) {
      throw new EvtsimError("state", "not recording");
    }
    const events = recorder.stop(this.#state.time);
    this.#state = withDecisions(this.#state, recorder.previousDecisions);
    return events;
  }

  /** Whether a recording is running (false again once its sink has failed). */
  get isRecording(): boolean {
    return this.#recorder?.active === true;
  }

  /**
   * The recording's status: running or not, events written, the clock when
   * it started, and why it stopped if its sink failed.
   *
   * @example
   * ```ts
   * import { Simulation } from "@evtsim/evtsim";
   * const sim = new Simulation({ totalNodes: 4 });
   * sim.startRecording({ write: (text) => { if (text.includes('"event"')) throw new Error("disk full"); } });
   * sim.advanceTo(3); // the sink fails: recording stops, the simulation goes on
   * const s = sim.recordingStatus();
   * if (s.recording || s.error !== "disk full" || sim.currentTime !== 3) throw new Error("status");
   * ```
   */
  recordingStatus(): RecordingStatus {
    const r = this.#recorder;
    if (r === undefined) return { recording: false, events: 0 };
    return {
      recording: r.active,
      events: r.events,
      startedAt: r.startedAt,
      ...(r.error === undefined ? {} : { error: r.error.message }),
    };
  }

  // ---- internals ----------------------------------------------------------

  // One call: step every input, deliver all their rows, and only then keep
  // the new state. Anything thrown (by a step or by a sink) leaves the
  // simulation as it was before the call. A running recording then logs the
  // call's inputs and decisions; a recording whose sink fails stops, and the
  // simulation goes on.
  #apply(what: string, ...steps: Input[]): StepResult {
    let r: StepResult | undefined;
    const results: { input: Input; before: number; result: StepResult; ms: number }[] = [];
    const batches: StepRows[] = [];
    let state = this.#state;
    const recorder = this.#recorder?.active ? this.#recorder : undefined;
    for (const input of steps) {
      const t0 = recorder === undefined ? 0 : performance.now();
      r = step(state, input);
      if (recorder !== undefined) {
        results.push({ input, before: state.time, result: r, ms: performance.now() - t0 });
      }
      state = r.state;
      batches.push(r.rows);
    }
    this.#delivery.deliver(what, batches, this.#wantsDecisions);
    this.#state = state;
    this.#machineUse?.take(batches);
    this.#touched = true;
    if (recorder !== undefined) {
      for (const x of results) {
        if (!recorder.record(x.input, x.before, x.result, x.ms)) {
          this.#state = withDecisions(this.#state, recorder.previousDecisions);
          break;
        }
      }
    }
    return r!;
  }

  #requireUntouched(what: string): void {
    if (this.#touched) {
      throw new EvtsimError(
        "state",
        `${what} must come before any job is appended or submitted and before the clock moves`,
      );
    }
  }

  /** The memory-pressure limit for appending `n` jobs to `state`, when it can matter. */
  #storeLimit(state: SimState, n: number): number | undefined {
    if (this.#memoryFraction === undefined) return undefined;
    const store = state.store;
    const needed = store.records.size + n;
    if (store.capacity > 0) {
      // A bounded store only grows past its capacity, and never under `abort`.
      if (needed <= store.capacity || state.config.jobStoreOverflow === "abort") return undefined;
    } else if (needed <= this.#memoryCheckedUpTo) {
      return undefined;
    }
    return memoryPressureLimit(this.#memoryFraction);
  }
}
