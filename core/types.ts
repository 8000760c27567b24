// The values that cross the boundary of the pure reducer: configuration,
// inputs, and the rows it emits. Everything here is plain data, except that
// a configuration may carry a picker or admission policy of the caller's own.

import type { Admission } from "./admission.ts";
import type { DecisionRow } from "./decisions.ts";
import type { Picker } from "./picker.ts";
import type { QueueDef } from "./queues.ts";
import type { ResourceDemand, ResourceModel } from "./resource_model.ts";

/**
 * Backfilling policy, as DR_EVT's `--backfill_policy` names it.
 *
 * @example
 * ```ts
 * import { type BackfillPolicy, Simulation } from "@evtsim/evtsim";
 * const beginOfJob2 = (backfillPolicy: BackfillPolicy) => {
 *   const sim = new Simulation({ totalNodes: 10, backfillPolicy });
 *   sim.appendJobs([
 *     { submitTime: 0, numNodes: 6, timeLimit: 100 },
 *     { submitTime: 0, numNodes: 8, timeLimit: 10 },
 *     { submitTime: 0, numNodes: 4, timeLimit: 10 },
 *   ]);
 *   return sim.finish().jobs[2].beginTime;
 * };
 * // Job 2 fits beside job 0 and ends long before job 1 could start: only backfilling runs it now.
 * if (beginOfJob2("easy") !== 0 || beginOfJob2("none") !== 110) throw new Error("backfill");
 * ```
 */
export type BackfillPolicy = "easy" | "conservative" | "none";

/**
 * Priority policy, as DR_EVT's `--priority_policy` names it. `fcfs`,
 * `fcfs_alt` and `fcfs_conservative` order the wait queue by submit time
 * (then job id); `sjf` / `ljf` keep the oldest job as the head and order
 * backfill candidates by time limit. See `schedulers/mod.ts` for how each
 * (priority, backfill) pair maps to an algorithm.
 *
 * @example
 * ```ts
 * import { type PriorityPolicy, Simulation } from "@evtsim/evtsim";
 * const beginOfJob3 = (priorityPolicy: PriorityPolicy) => {
 *   const sim = new Simulation({ totalNodes: 10, priorityPolicy });
 *   sim.appendJobs([
 *     { submitTime: 0, numNodes: 6, timeLimit: 100 },
 *     { submitTime: 1, numNodes: 8, timeLimit: 10 }, // the head: waits for job 0
 *     { submitTime: 2, numNodes: 4, timeLimit: 50 },
 *     { submitTime: 2, numNodes: 4, timeLimit: 20 },
 *   ]);
 *   return sim.finish().jobs[3].beginTime;
 * };
 * // Jobs 2 and 3 compete for the 4 free nodes: SJF backfills the shorter job 3 first.
 * if (beginOfJob3("sjf") !== 2 || beginOfJob3("fcfs") !== 52) throw new Error("priority");
 * ```
 */
export type PriorityPolicy = "fcfs" | "fcfs_alt" | "fcfs_conservative" | "sjf" | "ljf";

/**
 * How each job's actual run time is chosen when it is created.
 *
 * @example
 * ```ts
 * import { type RunTimeMode, Simulation } from "@evtsim/evtsim";
 * const endOf = (runTimeMode: RunTimeMode) => {
 *   const sim = new Simulation({ totalNodes: 4, runTimeMode });
 *   sim.appendJob({ submitTime: 0, numNodes: 1, timeLimit: 100, actualRunTime: 30 });
 *   return sim.finish().jobs[0].endTime;
 * };
 * // "actual" uses the recorded run time, "limit" runs every job for its full time limit.
 * if (endOf("actual") !== 30 || endOf("limit") !== 100) throw new Error("run time mode");
 * // "external": only the caller ends a job (a live scheduler learns ends from outside).
 * const live = new Simulation({ totalNodes: 4, runTimeMode: "external" });
 * const id = live.appendJob({ submitTime: 0, numNodes: 1, timeLimit: 100 });
 * live.advanceTo(500);
 * live.endJob(id, 500);
 * if (live.finish().jobs[0].endTime !== 500) throw new Error("external end");
 * ```
 */
export type RunTimeMode = "actual" | "limit" | "distribution" | "external";

/**
 * Distribution used by `runTimeMode: "distribution"`.
 *
 * @example
 * ```ts
 * import { type RunTimeDistribution, Simulation } from "@evtsim/evtsim";
 * const runTime = (runTimeDistribution: RunTimeDistribution, seed: number) => {
 *   const config = { runTimeMode: "distribution", runTimeScale: 0.5, runTimeStddev: 0.25 } as const;
 *   const sim = new Simulation({ totalNodes: 4, ...config, runTimeDistribution, seed });
 *   sim.appendJob({ submitTime: 0, numNodes: 1, timeLimit: 100 });
 *   return sim.finish().jobs[0].endTime;
 * };
 * // Uniform on [limit × f, limit × (f + s)] = [50, 75]; the same seed draws the same run time.
 * const t = runTime("uniform", 7);
 * if (t < 50 || t > 75 || runTime("uniform", 7) !== t) throw new Error("uniform draw");
 * ```
 */
export type RunTimeDistribution = "normal" | "lognormal" | "uniform";

/**
 * What the job store does when an append does not fit after reclaiming.
 *
 * @example
 * ```ts
 * import { EvtsimError, type JobStoreOverflow, Simulation } from "@evtsim/evtsim";
 * const appendTwo = (jobStoreOverflow: JobStoreOverflow) =>
 *   new Simulation({ totalNodes: 4, jobStoreCapacity: 1, jobStoreOverflow })
 *     .appendJobs([{ submitTime: 0, numNodes: 1, timeLimit: 5 }, { submitTime: 0, numNodes: 1, timeLimit: 5 }]);
 * if (appendTwo("grow").length !== 2) throw new Error("grow should double the store");
 * try {
 *   appendTwo("abort");
 *   throw new Error("abort should refuse the batch");
 * } catch (e) {
 *   if (!(e instanceof EvtsimError)) throw e;
 * }
 * ```
 */
export type JobStoreOverflow = "abort" | "grow";

/**
 * Simulation configuration; names follow the CLI options in camelCase.
 *
 * @example
 * ```ts
 * import { initialState, type SimulationConfig } from "@evtsim/evtsim";
 * const config: SimulationConfig = { totalNodes: 128, backfillPolicy: "conservative", startTime: 3600 };
 * const s = initialState(config);
 * // Fields left out get their defaults; the clock starts at `startTime`.
 * if (s.time !== 3600 || s.config.priorityPolicy !== "fcfs" || s.config.runTimeMode !== "actual") {
 *   throw new Error("defaults");
 * }
 * ```
 */
export interface SimulationConfig {
  /** Number of identical nodes in the machine. */
  readonly totalNodes: number;
  /**
   * Backfilling (admission) policy by registered name (default `easy`): the
   * built-ins are `none`, `easy` and `conservative`.
   */
  readonly backfillPolicy?: BackfillPolicy | (string & Record<never, never>);
  /**
   * DR_EVT's priority policy (default `fcfs`). It selects the picker when
   * `picker` is not given: `fcfs*` → `builtin_fcfs`, `sjf` → `sjf`, `ljf` →
   * `ljf` (and, as in DR_EVT, `sjf`/`ljf` with `conservative` backfill EASY).
   */
  readonly priorityPolicy?: PriorityPolicy;
  /**
   * The picker: a registered name (`builtin_fcfs`, `sjf`, `ljf`, or one you
   * registered) or a picker value of your own. Overrides `priorityPolicy`.
   */
  readonly picker?: string | Picker;
  /** An admission policy value of your own; overrides `backfillPolicy`. */
  readonly admission?: Admission;
  /**
   * Settings of pickers, by picker name (e.g. `{ fairshare: { halfLife: 86400 } }`):
   * plain JSON data handed to the picker of that name, which checks it. Recorded
   * with the configuration (snapshots, `.replay` headers).
   */
  readonly pickerSettings?: Readonly<Record<string, unknown>>;
  /**
   * Queues (name, priority, limits, open/closed, per-queue picker). With
   * queues, every job's `queue` must name one of them (a job without one goes
   * to the first); without, `queue` is only a label carried to the output.
   */
  readonly queues?: readonly QueueDef[];
  /**
   * Emit scheduling decisions as rows (default false). `true`: DISPATCH rows
   * and a PEND row whenever a waiting job's reason changes — every waiting
   * job is looked at in every round, which costs a walk over the whole wait
   * queue per round. `"heads"`: DISPATCH rows and PEND rows only for the jobs
   * the admission policy looks at one by one on its fastest path (with the
   * built-in pickers: the blocked head, and jobs of closed or full queues
   * offered before it); the run costs what it costs without decisions.
   */
  readonly decisions?: boolean | "heads";
  /** How actual run times are chosen (default `actual`). */
  readonly runTimeMode?: RunTimeMode;
  /** Distribution for `runTimeMode: "distribution"` (default `normal`). */
  readonly runTimeDistribution?: RunTimeDistribution;
  /** Scale factor f of the distribution (default 1). */
  readonly runTimeScale?: number;
  /** Spread s of the distribution (default 0). */
  readonly runTimeStddev?: number;
  /** Seed of the run-time generator (default 0). */
  readonly seed?: number;
  /** Job-store capacity; 0 means unbounded (default 0). */
  readonly jobStoreCapacity?: number;
  /** What happens when the job store is full after reclaiming (default `grow`). */
  readonly jobStoreOverflow?: JobStoreOverflow;
  /** Write and reclaim finished records after this many completions; 0 = when full. */
  readonly jobFlushInterval?: number;
  /** Resource rows buffered before they are emitted; 0 means 4096. */
  readonly resourceHistoryCapacity?: number;
  /**
   * `false`: no resource rows are made (a run whose caller reads none, such
   * as a sweep cell's stats-only run, which drops its resource timeline).
   * Internal: not an evtsim option; default `true`.
   *
   * @internal
   */
  readonly resourceRows?: boolean;
  /** Clock value at the start (default 0); also the resource baseline time. */
  readonly startTime?: number;
  /** Usable-capacity change points `(time, capacity)`, sorted by time. */
  readonly capacitySchedule?: ReadonlyArray<CapacityChange>;
  /**
   * What a capacity cut does to running jobs beyond the new capacity:
   * `drain` (default) lets them run on, the cut nodes leave as they end;
   * `kill` ends the latest-started ones at the cut, outcome `killed`.
   */
  readonly onCapacityCut?: CapacityCutPolicy;
  /**
   * `evtsim` (default): a waiting job needing more nodes than the present
   * capacity is held (`exceeds_capacity`) while later jobs go ahead, and
   * free capacity is never negative. `drevt`: DR_EVT's rule, such a job
   * waits at the head and blocks the jobs behind it, and the resource
   * timeline shows negative free nodes while drained jobs run.
   */
  readonly capacitySemantics?: CapacitySemantics;
  /**
   * What a node failure (a capacity change's `failed` nodes) does to the jobs
   * running there: `kill` (default) ends them at once as killed (exit status
   * 137); `requeue` puts them back to waiting, same id, their resources free
   * from that instant, until a job has been requeued `requeueLimit` times
   * (then it is killed).
   */
  readonly onNodeFailure?: "kill" | "requeue";
  /** How many times a job may be requeued after node failures (default 3). */
  readonly requeueLimit?: number;
  /**
   * A power cap (watts): a start whose projected machine draw would exceed
   * it is not made (a PEND row `power_cap`; docs/power.md). With
   * `powerCapSchedule`, the cap before its first change.
   */
  readonly powerCap?: number;
  /** Power cap changes (time, watts), sorted by time; each holds until the next. */
  readonly powerCapSchedule?: readonly PowerCapChange[];
  /** Watts each node draws while it holds no job (default 0). */
  readonly idleWatts?: number;
  /** Watts each node draws while it holds a job (default 0), besides the job's own `power`. */
  readonly busyWatts?: number;
  /**
   * With a `resourceModel` that lists its nodes: the idle and busy watts of
   * its nodes, as runs in the model's node order (a machine file's groups),
   * instead of `idleWatts` and `busyWatts`; a node holds a job while any
   * running job has an allocation on it.
   */
  readonly nodeWatts?: readonly NodeWatts[];
  /**
   * A resource model that places jobs besides the node-count pool (e.g.
   * `topologyCluster(nodes)`): a job then starts only where the model places
   * it, and every job needs a `demand`. Not for replay states or snapshots.
   */
  readonly resourceModel?: ResourceModel;
}

/**
 * What a capacity cut does to running jobs beyond the new capacity.
 *
 * @example
 * ```ts
 * import { type CapacityCutPolicy, Simulation } from "@evtsim/evtsim";
 * // A cut to 4 nodes at 10 while two 4-node jobs run: how the second started ends.
 * const endOf = (onCapacityCut: CapacityCutPolicy) => {
 *   const sim = new Simulation({ totalNodes: 8, capacitySchedule: [{ time: 10, capacity: 4 }], onCapacityCut });
 *   sim.appendJobs([{ submitTime: 0, numNodes: 4, timeLimit: 100 }, { submitTime: 5, numNodes: 4, timeLimit: 100 }]);
 *   const row = sim.finish().jobs[1];
 *   return `${row.endTime} ${row.outcome ?? "completed"}`;
 * };
 * console.assert(endOf("drain") === "105 completed" && endOf("kill") === "10 killed");
 * ```
 */
export type CapacityCutPolicy = "drain" | "kill";

/**
 * Whose rules a capacity change follows: evtsim's (held jobs, free never
 * negative) or DR_EVT's (a too-large job blocks the queue).
 *
 * @example
 * ```ts
 * import { type CapacitySemantics, Simulation } from "@evtsim/evtsim";
 * // 4 of 8 nodes usable: a job of 8 nodes, then one of 2.
 * const started = (capacitySemantics: CapacitySemantics) => {
 *   const sim = new Simulation({ totalNodes: 8, capacitySchedule: [{ time: 0, capacity: 4 }], capacitySemantics });
 *   sim.appendJobs([{ submitTime: 0, numNodes: 8, timeLimit: 10 }, { submitTime: 0, numNodes: 2, timeLimit: 10 }]);
 *   return sim.finish().jobs.map((r) => r.jobId).join();
 * };
 * // evtsim holds the 8-node job aside and starts job 1; DR_EVT's rule leaves job 1 blocked behind it.
 * console.assert(started("evtsim") === "1" && started("drevt") === "");
 * ```
 */
export type CapacitySemantics = "evtsim" | "drevt";

/**
 * A change of the usable node count at a point in time.
 *
 * @example
 * ```ts
 * import { type CapacityChange, Simulation } from "@evtsim/evtsim";
 * const maintenance: CapacityChange[] = [{ time: 10, capacity: 4 }, { time: 50, capacity: 8 }];
 * const sim = new Simulation({ totalNodes: 8, capacitySchedule: maintenance });
 * sim.appendJob({ submitTime: 20, numNodes: 6, timeLimit: 5 });
 * // Only 4 nodes are usable from 10 to 50, so the 6-node job waits until the capacity returns.
 * if (sim.finish().jobs[0].beginTime !== 50) throw new Error("job 0 should start at 50");
 * ```
 */
export interface CapacityChange {
  /** When the change takes effect (seconds). */
  readonly time: number;
  /** Usable nodes from then on (an integer in 0..totalNodes). */
  readonly capacity: number;
  /**
   * With a resource model (a machine): the nodes that go offline then, by
   * name. They take no new job; jobs running on them drain or are killed
   * (`onCapacityCut`). `capacity` is then the count of nodes online after it.
   */
  readonly down?: readonly string[];
  /** With a resource model: the nodes that come back online then, by name. */
  readonly up?: readonly string[];
  /**
   * With a resource model: the nodes that fail then, by name (unplanned).
   * They go offline as `down` ones do, and the jobs running on them end at
   * once, never drained: killed or requeued (`onNodeFailure`). A repair is
   * an `up` of the same node.
   */
  readonly failed?: readonly string[];
}

/**
 * A job as a trace or a caller describes it.
 *
 * @example
 * ```ts
 * import { type JobSpec, Simulation } from "@evtsim/evtsim";
 * const job: JobSpec = { submitTime: 0, numNodes: 16, timeLimit: 3600, actualRunTime: 1800, queue: "pbatch" };
 * const sim = new Simulation({ totalNodes: 64 });
 * const id = sim.appendJob(job);
 * const row = sim.finish().jobs[id];
 * // Under the default `runTimeMode: "actual"` the recorded run time decides the end.
 * if (row.endTime !== 1800 || row.queue !== "pbatch") throw new Error("job row");
 * ```
 */
export interface JobSpec {
  /** When the job is submitted (seconds). */
  readonly submitTime: number;
  /** Nodes requested. */
  readonly numNodes: number;
  /** Requested time limit (seconds); planning always uses it. */
  readonly timeLimit: number;
  /** Recorded run time (seconds); used by `runTimeMode: "actual"`. */
  readonly actualRunTime?: number;
  /** Queue name (DR_EVT `q_id` / `queue`), carried to the output. */
  readonly queue?: string;
  /** Job priority within its queue: higher goes first under `builtin_fcfs` (default 0). */
  readonly priority?: number;
  /** The submitting user (trace column `user`, SWF field 12), carried for pickers that use it. */
  readonly user?: string;
  /** The account or group (trace column `account`, SWF field 13), carried for pickers that use it. */
  readonly account?: string;
  /** What the job asks of the configuration's `resourceModel` (required when there is one). */
  readonly demand?: ResourceDemand;
  /**
   * The job's own draw while it runs (watts, on top of its nodes' busy
   * watts; a pcon trace gives its `avgpcon`): a power cap counts it
   * (docs/power.md). Absent: 0.
   */
  readonly power?: number;
}

/**
 * A job with a recorded begin and end, for replay.
 *
 * @example
 * ```ts
 * import { initialState, type RecordedJob, step } from "@evtsim/evtsim";
 * const jobs: RecordedJob[] = [
 *   { submitTime: 0, numNodes: 4, timeLimit: 100, beginTime: 5, endTime: 50 },
 *   { submitTime: 10, numNodes: 2, timeLimit: 100, beginTime: 10, endTime: 20 },
 * ];
 * let s = initialState({ totalNodes: 8 }, { replay: true });
 * s = step(s, { kind: "replayJobs", jobs }).state;
 * s = step(s, { kind: "runToCompletion" }).state;
 * const { rows } = step(s, { kind: "finish" });
 * // A replay keeps the recorded times; the scheduler is never asked.
 * if (rows.jobs[0].beginTime !== 5 || rows.jobs[1].endTime !== 20) throw new Error("replay");
 * ```
 */
export interface RecordedJob extends JobSpec {
  /** Recorded start time (seconds); authoritative in a replay. */
  readonly beginTime: number;
  /** Recorded end time (seconds); authoritative in a replay. */
  readonly endTime: number;
}

/**
 * A job record in the store: the spec plus its stable id and chosen run time.
 *
 * @example
 * ```ts
 * import { appendJobs, initialState, type JobRecord, runToCompletion, step } from "@evtsim/evtsim";
 * const job = { submitTime: 5, numNodes: 2, timeLimit: 60, actualRunTime: 30 };
 * let s = step(initialState({ totalNodes: 8 }), appendJobs([job])).state;
 * const created: JobRecord = s.store.records.get(0)!;
 * s = step(s, runToCompletion()).state;
 * const done: JobRecord = s.store.records.get(0)!; // held until written and reclaimed
 * if (created.runTime !== 30 || created.beginTime !== -1) throw new Error("created");
 * if (done.beginTime !== 5 || done.endTime !== 35) throw new Error("done");
 * ```
 */
export interface JobRecord {
  /** Stable job id, in creation order (never a physical index). */
  readonly id: number;
  /** When the job is (or will be) submitted (seconds). */
  readonly submitTime: number;
  /** Nodes requested. */
  readonly numNodes: number;
  /** Requested time limit (seconds); reservations use it. */
  readonly timeLimit: number;
  /** The run time that decides the end event. */
  readonly runTime: number;
  /** Queue name, when the trace had one. */
  readonly queue: string | undefined;
  /** Priority within its queue (0 unless given). */
  readonly priority: number;
  /** The submitting user, when the trace had one. */
  readonly user?: string;
  /** The account or group, when the trace had one. */
  readonly account?: string;
  /** −1 until the job starts. */
  readonly beginTime: number;
  /** −1 until the job ends. */
  readonly endTime: number;
  /** Rejected at submission: never queued, never written. */
  readonly rejected: boolean;
  /** Started before a warm start: occupies nodes but is never written. */
  readonly hidden: boolean;
  /** Stored without being submitted (a preloaded trace job); `submitJob` clears it. */
  readonly unsubmitted?: boolean;
  /** How the job ended, when not by running to its end: cancelled, failed or killed. */
  readonly outcome?: JobOutcome;
  /** Exit status of a job that did not complete normally. */
  readonly exitStatus?: number;
  /** What the job asks of the configuration's `resourceModel`, when it has one. */
  readonly demand?: ResourceDemand;
  /** The job's own draw while it runs (watts), when given. */
  readonly power?: number;
  /** Times a node failure or a preemption requeued it (absent: never). */
  readonly requeues?: number;
  /** Times a preemption ended its run, requeued or cancelled (absent: never). */
  readonly preemptions?: number;
  /**
   * A requeued job's first submit time (its `submitTime` is then the time of
   * its last requeue, as Slurm resets it, which orders it in the queue).
   */
  readonly firstSubmitTime?: number;
  /**
   * Times a `suspend` preemption stopped it (absent: never). While such a
   * job waits or runs again, its `runTime` and `timeLimit` are what remain
   * of them (docs/preemption.md).
   */
  readonly suspensions?: number;
  /** A suspended job's first start (its row's begin time). */
  readonly firstBeginTime?: number;
  /** A suspended job's time limit as submitted (its row's time limit). */
  readonly fullTimeLimit?: number;
  /** While a suspended job waits: the instant it was suspended. */
  readonly suspendedAt?: number;
  /** Seconds it has waited suspended, over its finished suspensions. */
  readonly suspendedSeconds?: number;
  /**
   * A preemption's victim running on through its queue's grace time: the
   * instant it stops (its end event's time until then).
   */
  readonly graceStop?: number;
}

/**
 * How a job that did not complete normally ended: `cancelled` while waiting
 * (begin = end = the cancel time), or ended early by the caller as `failed`
 * or `killed`.
 *
 * @example
 * ```ts
 * import { type JobOutcome, Simulation } from "@evtsim/evtsim";
 * const sim = new Simulation({ totalNodes: 4 });
 * const [a, b] = sim.appendJobs([
 *   { submitTime: 0, numNodes: 4, timeLimit: 100 },
 *   { submitTime: 0, numNodes: 4, timeLimit: 100 },
 * ]);
 * sim.advanceTo(10);
 * sim.cancelJob(b, 10);
 * sim.endJob(a, 20, { outcome: "failed", exitStatus: 3 });
 * const outcomes: (JobOutcome | undefined)[] = sim.finish().jobs.map((r) => r.outcome);
 * if (outcomes.join() !== "failed,cancelled") throw new Error(outcomes.join());
 * ```
 */
export type JobOutcome = "cancelled" | "failed" | "killed";

/**
 * One row of the schedule output, written once per finished job.
 *
 * @example
 * ```ts
 * import { type JobRow, Simulation } from "@evtsim/evtsim";
 * const sim = new Simulation({ totalNodes: 8 });
 * sim.appendJobs([
 *   { submitTime: 0, numNodes: 8, timeLimit: 10 },
 *   { submitTime: 5, numNodes: 4, timeLimit: 10, queue: "debug" },
 * ]);
 * const row: JobRow = sim.finish().jobs[1];
 * // Job 1 waits for job 0's nodes: submitted at 5, begins at 10, ends at 20.
 * if (row.jobId !== 1 || row.beginTime !== 10 || row.endTime !== 20 || row.queue !== "debug") {
 *   throw new Error("job 1 row");
 * }
 * ```
 */
export interface JobRow {
  /** The job's id. */
  readonly jobId: number;
  /** When it was submitted (seconds). */
  readonly submitTime: number;
  /** When it started (seconds). */
  readonly beginTime: number;
  /** When it ended (seconds). */
  readonly endTime: number;
  /** Nodes it held. */
  readonly numNodes: number;
  /** Its requested time limit (seconds). */
  readonly timeLimit: number;
  /** Its queue name, when the trace had one. */
  readonly queue: string | undefined;
  /** Set only for a job that did not complete normally. */
  readonly outcome?: JobOutcome;
  /** Its exit status, set only with `outcome` (docs/outputs.md, "Outputs", gives the codes). */
  readonly exitStatus?: number;
  /** Times a node failure requeued it; set only for a requeued job (its row is its last run). */
  readonly requeues?: number;
  /**
   * Set only for a job a preemption suspended (its row spans its first start
   * to its final end): the seconds it waited suspended in between, which
   * the metrics' utilization leaves out.
   */
  readonly suspendedSeconds?: number;
}

/**
 * One row of the resource timeline, written after each start or end.
 *
 * @example
 * ```ts
 * import { type ResourceRow, Simulation } from "@evtsim/evtsim";
 * const sim = new Simulation({ totalNodes: 8 });
 * sim.appendJob({ submitTime: 0, numNodes: 4, timeLimit: 10 });
 * const rows: readonly ResourceRow[] = sim.finish().resources;
 * // The baseline row, then one row after the start and one after the end.
 * const seen = rows.map((r) => `${r.time}:${r.freeNodes}/${r.allocatedNodes}`).join(" ");
 * if (seen !== "0:8/0 0:4/4 10:8/0") throw new Error(seen);
 * ```
 */
export interface ResourceRow {
  /** Time of the event (or of the baseline row). */
  readonly time: number;
  /** Usable nodes not allocated after the event. */
  readonly freeNodes: number;
  /** Nodes allocated after the event. */
  readonly allocatedNodes: number;
  /** The machine's draw after the event (watts), with a power model only (docs/power.md). */
  readonly power?: number;
}

/**
 * The watts of a run of nodes of a resource model, in its node order (one
 * group of a machine file).
 *
 * @example
 * ```ts
 * import { type NodeWatts, Simulation, topologyCluster } from "@evtsim/evtsim";
 * const model = topologyCluster([
 *   { name: "a1", capacity: { cores: 4 } },
 *   { name: "b1", capacity: { cores: 4 } },
 * ]);
 * // a1 draws 10 W idle and 100 W busy; b1 5 W and 50 W.
 * const nodeWatts: NodeWatts[] = [
 *   { nodes: 1, idleWatts: 10, busyWatts: 100 },
 *   { nodes: 1, idleWatts: 5, busyWatts: 50 },
 * ];
 * const sim = new Simulation({ totalNodes: 2, resourceModel: model, nodeWatts });
 * sim.appendJobs([{ submitTime: 0, numNodes: 1, timeLimit: 10, demand: { replicas: 1, perReplica: { cores: 4 } } }]);
 * const out = sim.finish();
 * if (out.resources[0].power !== 15) throw new Error(`idle: ${out.resources[0].power}`);
 * ```
 */
export interface NodeWatts {
  /** How many nodes of the model, from where the previous run ended. */
  readonly nodes: number;
  /** Watts of each of them holding no job. */
  readonly idleWatts: number;
  /** Watts of each of them holding a job. */
  readonly busyWatts: number;
}

/**
 * A change of the power cap: from `time` on, the machine may draw at most
 * `watts`.
 *
 * @example
 * ```ts
 * import { appendJobs, initialState, type PowerCapChange, runToCompletion, step } from "@evtsim/evtsim";
 * // 100 W until t=50, then 300 W: the second 100 W job waits for the raise.
 * const powerCapSchedule: PowerCapChange[] = [{ time: 0, watts: 100 }, { time: 50, watts: 300 }];
 * const job = { submitTime: 0, numNodes: 1, timeLimit: 100, actualRunTime: 100, power: 100 };
 * let s = step(initialState({ totalNodes: 4, powerCapSchedule }), appendJobs([job, job])).state;
 * s = step(s, runToCompletion()).state;
 * const second = s.store.records.get(1)!;
 * if (second.beginTime !== 50) throw new Error(`began at ${second.beginTime}`);
 * ```
 */
export interface PowerCapChange {
  /** When the cap takes effect (seconds). */
  readonly time: number;
  /** The cap from then on (watts). */
  readonly watts: number;
}

/**
 * Something the shell should tell the user about (never an error).
 *
 * @example
 * ```ts
 * import { appendJobs, initialState, type Notice, step } from "@evtsim/evtsim";
 * const r = step(initialState({ totalNodes: 8 }), appendJobs([{ submitTime: 0, numNodes: 16, timeLimit: 10 }]));
 * const notice: Notice | undefined = r.rows.notices[0];
 * // The job asks for more nodes than the machine has: it is rejected, and the run goes on.
 * if (notice?.kind !== "rejected" || notice.jobId !== 0 || notice.totalNodes !== 8) {
 *   throw new Error("expected a rejection notice");
 * }
 * ```
 */
export type Notice =
  | {
    /** A job asked for more nodes than the machine has and was rejected. */
    readonly kind: "rejected";
    /** The rejected job. */
    readonly jobId: number;
    /** Nodes it asked for. */
    readonly numNodes: number;
    /** Nodes the machine has. */
    readonly totalNodes: number;
  }
  | {
    /** A replayed schedule needs more nodes than the machine has (reported once). */
    readonly kind: "overallocated";
    /** First time the allocation exceeded the machine. */
    readonly time: number;
    /** Nodes allocated then. */
    readonly allocatedNodes: number;
    /** Nodes the machine has. */
    readonly totalNodes: number;
  }
  | {
    /** A live event (cancel, end, update) no longer applied when its time came. */
    readonly kind: "ignored";
    /** When it was due. */
    readonly time: number;
    /** The job it named. */
    readonly jobId: number;
    /** Why it was ignored, e.g. `job 4 had already started`. */
    readonly reason: string;
  }
  | {
    /** Jobs still waiting at the end of the run, with nothing left that could start them. */
    readonly kind: "stranded";
    /** When the run ran out of events. */
    readonly time: number;
    /** How many jobs never started. */
    readonly waitingJobs: number;
    /** The usable capacity in force at the end. */
    readonly capacity: number;
    /** What held them, one entry per class (their `jobs` add up to `waitingJobs`). */
    readonly causes?: readonly StrandedCause[];
  }
  | {
    /**
     * A job changed state other than by starting or ending (seed 003's
     * JOB_STATE_CHANGE with `old_state`): a running job requeued, back to
     * pending, by a node failure or a preemption.
     */
    readonly kind: "jobStateChange";
    /** When. */
    readonly time: number;
    /** The job (it keeps its id). */
    readonly jobId: number;
    /** Its state before. */
    readonly oldState: "running";
    /** Its state now: `suspended` when a `suspend` preemption stopped it. */
    readonly newState: "pending" | "suspended";
    /** Why: `node_failure` or `preemption`. */
    readonly cause: "node_failure" | "preemption";
    /** The failed nodes it ran on (a preemption: every node it ran on; none on whole nodes). */
    readonly nodes: readonly string[];
    /** A preemption: the job it made room for. */
    readonly preemptedBy?: number;
    /** Times it has been requeued, this one included (a suspension is not a requeue). */
    readonly requeues: number;
    /** A suspension: times it has been suspended, this one included. */
    readonly suspensions?: number;
  };

/**
 * One class of jobs that never started (see the `stranded` {@link Notice}):
 * `larger_than_capacity` (they need more nodes than the usable capacity at
 * the end), `never_fits` (a resource model can never place them, even on
 * its empty machine: held from the start), `held_by_queue` (their queue is closed or at its `maxRunning`),
 * `never_offered` (the picker never offered them), `blocked_behind` (offered
 * behind job `behindJob`, which is larger than the capacity: under DR_EVT's
 * rule for capacity cuts, `capacitySemantics: "drevt"`; evtsim's own holds
 * such a job aside), `over_power_cap` (even alone on the machine they would
 * draw more than the highest power cap still to come: held), `not_started`
 * (offered, fitting, and left waiting by the admission policy).
 *
 * @example
 * ```ts
 * import { Simulation, type StrandedCause } from "@evtsim/evtsim";
 * const sim = new Simulation({
 *   totalNodes: 8,
 *   capacitySchedule: [{ time: 0, capacity: 4 }],
 *   capacitySemantics: "drevt",
 *   backfillPolicy: "none",
 * });
 * sim.appendJobs([{ submitTime: 0, numNodes: 8, timeLimit: 10 }, { submitTime: 0, numNodes: 2, timeLimit: 10 }]);
 * const out = sim.finish();
 * const n = out.notices[0];
 * const causes: readonly StrandedCause[] = n?.kind === "stranded" ? n.causes ?? [] : [];
 * // Job 0 never fits 4 nodes; job 1 fits but waits behind it.
 * const seen = causes.map((c) => `${c.cause}:${c.jobs}`).join();
 * if (seen !== "larger_than_capacity:1,blocked_behind:1") throw new Error(seen);
 * ```
 */
export interface StrandedCause {
  /** The class. */
  readonly cause:
    | "larger_than_capacity"
    | "never_fits"
    | "held_by_queue"
    | "never_offered"
    | "blocked_behind"
    | "over_power_cap"
    | "not_started";
  /** How many jobs are in it. */
  readonly jobs: number;
  /** The lowest job id in it. */
  readonly firstJob: number;
  /** `blocked_behind`: the job ahead that can never fit. */
  readonly behindJob?: number;
  /** `held_by_queue`: the queue and what holds it, e.g. `debug (max_running 0)`. */
  readonly queue?: string;
  /** `never_offered`: the picker; `not_started`: the admission policy. */
  readonly by?: string;
  /** `over_power_cap`: the highest cap still to come (watts). */
  readonly powerCap?: number;
}

/**
 * Replay: nodes in use when a recorded job was submitted.
 *
 * @example
 * ```ts
 * import { initialState, step, type SubmissionRow } from "@evtsim/evtsim";
 * const r = step(initialState({ totalNodes: 8 }, { replay: true }), {
 *   kind: "replayJobs",
 *   jobs: [
 *     { submitTime: 0, numNodes: 4, timeLimit: 100, beginTime: 0, endTime: 50 },
 *     { submitTime: 10, numNodes: 2, timeLimit: 100, beginTime: 10, endTime: 20 },
 *   ],
 * });
 * const rows: readonly SubmissionRow[] = r.rows.submissions ?? [];
 * // Job 1 was submitted at 10, while job 0 held 4 nodes.
 * if (rows.length !== 2 || rows[1].jobId !== 1 || rows[1].nodesBusy !== 4) throw new Error("busy");
 * ```
 */
export interface SubmissionRow {
  /** The recorded job. */
  readonly jobId: number;
  /** Its submit time (seconds). */
  readonly submitTime: number;
  /** Nodes allocated when the job was submitted. */
  readonly nodesBusy: number;
}

/**
 * Everything one step emits, in order within each kind.
 *
 * @example
 * ```ts
 * import { appendJobs, finish, initialState, runToCompletion, step, type StepRows } from "@evtsim/evtsim";
 * let s = step(initialState({ totalNodes: 8 }), appendJobs([{ submitTime: 0, numNodes: 4, timeLimit: 10 }])).state;
 * s = step(s, runToCompletion()).state;
 * const rows: StepRows = step(s, finish()).rows;
 * // `finish` writes the finished job and the buffered resource rows (baseline, start, end).
 * if (rows.jobs.length !== 1 || rows.resources.length !== 3 || rows.notices.length !== 0) {
 *   throw new Error("finish rows");
 * }
 * ```
 */
export interface StepRows {
  /** Job rows written by the step, in job-id order. */
  readonly jobs: JobRow[];
  /** Resource rows written by the step, in time order. */
  readonly resources: ResourceRow[];
  /** Rejections and over-allocation notices. */
  readonly notices: Notice[];
  /** Replay only: one row per recorded job, at its submission. */
  readonly submissions?: SubmissionRow[];
  /** Scheduling decisions, when the configuration asks for them. */
  readonly decisions: DecisionRow[];
}
