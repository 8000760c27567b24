// The values that cross the boundary of the pure reducer: configuration,
// inputs, and the rows it emits. Everything here is plain data.

/** Backfilling policy, as DR_EVT's `--backfill_policy` names it. */
export type BackfillPolicy = "easy" | "conservative" | "none";

/**
 * Priority policy, as DR_EVT's `--priority_policy` names it. `fcfs`,
 * `fcfs_alt` and `fcfs_conservative` order the wait queue by submit time
 * (then job id); `sjf` / `ljf` keep the oldest job as the head and order
 * backfill candidates by time limit. See `schedulers/mod.ts` for how each
 * (priority, backfill) pair maps to an algorithm.
 */
export type PriorityPolicy = "fcfs" | "fcfs_alt" | "fcfs_conservative" | "sjf" | "ljf";

/** How each job's actual run time is chosen when it is created. */
export type RunTimeMode = "actual" | "limit" | "distribution";

/** Distribution used by `runTimeMode: "distribution"`. */
export type RunTimeDistribution = "normal" | "lognormal" | "uniform";

/** What the job store does when an append does not fit after reclaiming. */
export type JobStoreOverflow = "abort" | "grow";

/** Simulation configuration; names follow the CLI options in camelCase. */
export interface SimulationConfig {
  /** Number of identical nodes in the machine. */
  readonly totalNodes: number;
  /** Backfilling policy (default `easy`). */
  readonly backfillPolicy?: BackfillPolicy;
  /** Priority policy (default `fcfs`). */
  readonly priorityPolicy?: PriorityPolicy;
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
  /** Clock value at the start (default 0); also the resource baseline time. */
  readonly startTime?: number;
  /** Usable-capacity change points `(time, capacity)`, sorted by time. */
  readonly capacitySchedule?: ReadonlyArray<CapacityChange>;
}

/** A change of the usable node count at a point in time. */
export interface CapacityChange {
  /** When the change takes effect (seconds). */
  readonly time: number;
  /** Usable nodes from then on (an integer in 0..totalNodes). */
  readonly capacity: number;
}

/** A job as a trace or a caller describes it. */
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
}

/** A job with a recorded begin and end, for replay. */
export interface RecordedJob extends JobSpec {
  /** Recorded start time (seconds); authoritative in a replay. */
  readonly beginTime: number;
  /** Recorded end time (seconds); authoritative in a replay. */
  readonly endTime: number;
}

/** A job record in the store: the spec plus its stable id and chosen run time. */
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
}

/** One row of the schedule output, written once per finished job. */
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
}

/** One row of the resource timeline, written after each start or end. */
export interface ResourceRow {
  /** Time of the event (or of the baseline row). */
  readonly time: number;
  /** Usable nodes not allocated after the event. */
  readonly freeNodes: number;
  /** Nodes allocated after the event. */
  readonly allocatedNodes: number;
}

/** Something the shell should tell the user about (never an error). */
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
    /** Jobs still waiting at the end because the usable capacity stayed below their size. */
    readonly kind: "stranded";
    /** When the run ran out of events. */
    readonly time: number;
    /** How many jobs never started. */
    readonly waitingJobs: number;
    /** The usable capacity in force at the end. */
    readonly capacity: number;
  };

/** Replay: nodes in use when a recorded job was submitted. */
export interface SubmissionRow {
  /** The recorded job. */
  readonly jobId: number;
  /** Its submit time (seconds). */
  readonly submitTime: number;
  /** Nodes allocated when the job was submitted. */
  readonly nodesBusy: number;
}

/** Everything one step emits, in order within each kind. */
export interface StepRows {
  /** Job rows written by the step, in job-id order. */
  readonly jobs: JobRow[];
  /** Resource rows written by the step, in time order. */
  readonly resources: ResourceRow[];
  /** Rejections and over-allocation notices. */
  readonly notices: Notice[];
  /** Replay only: one row per recorded job, at its submission. */
  readonly submissions?: SubmissionRow[];
}
