// Defaults and validation of a SimulationConfig, done once so the reducer can
// read plain fields without re-checking them on every step.

import { EvtsimError } from "./errors.ts";
import { type QueueDef, queueTable, type ResolvedQueue } from "./queues.ts";
import { checkConfigShape, MAX_EXACT } from "./_input_check.ts";
import { checkJsonBounds } from "./_json_bounds.ts";
import type {
  BackfillPolicy,
  CapacityChange,
  CapacityCutPolicy,
  CapacitySemantics,
  JobStoreOverflow,
  NodeWatts,
  PowerCapChange,
  PriorityPolicy,
  RunTimeDistribution,
  RunTimeMode,
  SimulationConfig,
} from "./types.ts";

/**
 * A configuration with every default filled in.
 *
 * @example
 * ```ts
 * import { initialState, type ResolvedConfig } from "@evtsim/evtsim";
 * const c: ResolvedConfig = initialState({ totalNodes: 8, seed: 3 }).config;
 * // Every default is filled in, and the value is frozen.
 * if (c.backfillPolicy !== "easy" || c.jobStoreOverflow !== "grow" || c.seed !== 3) throw new Error("c");
 * if (c.capacitySchedule.length !== 0 || !Object.isFrozen(c)) throw new Error("frozen, no schedule");
 * ```
 */
export interface ResolvedConfig {
  /** Number of identical nodes in the machine. */
  readonly totalNodes: number;
  /** Admission (backfilling) policy, by name. */
  readonly backfillPolicy: BackfillPolicy | (string & Record<never, never>);
  /** DR_EVT priority policy (also orders same-instant starts in a replay). */
  readonly priorityPolicy: PriorityPolicy;
  /** The picker, by name. */
  readonly picker: string;
  /** The queues configured at the start (empty: one implicit queue). */
  readonly queues: readonly ResolvedQueue[];
  /** Whether decisions are emitted as rows, and how many PEND rows (see `SimulationConfig`). */
  readonly decisions: boolean | "heads";
  /** How actual run times are chosen. */
  readonly runTimeMode: RunTimeMode;
  /** Distribution for `runTimeMode: "distribution"`. */
  readonly runTimeDistribution: RunTimeDistribution;
  /** Scale factor of the distribution. */
  readonly runTimeScale: number;
  /** Spread of the distribution. */
  readonly runTimeStddev: number;
  /** Seed of the run-time generator. */
  readonly seed: number;
  /** Job-store capacity; 0 means unbounded. */
  readonly jobStoreCapacity: number;
  /** What happens when the job store is full after reclaiming. */
  readonly jobStoreOverflow: JobStoreOverflow;
  /** Completions between reclamations; 0 means when full (or 512 when unbounded). */
  readonly jobFlushInterval: number;
  /** Resource rows buffered before they are emitted; 0 means 512. */
  readonly resourceHistoryCapacity: number;
  /** `false`: no resource rows are made (absent otherwise; see `SimulationConfig`). */
  readonly resourceRows?: false;
  /** Clock value at the start; also the resource baseline time. */
  readonly startTime: number;
  /** Usable-capacity change points, sorted by time. */
  readonly capacitySchedule: ReadonlyArray<CapacityChange>;
  /** What a capacity cut does to running jobs beyond it. */
  readonly onCapacityCut: CapacityCutPolicy;
  /** Whose capacity-change rules apply. */
  readonly capacitySemantics: CapacitySemantics;
  /**
   * What a node failure does to the jobs running on the failed nodes
   * (absent: `kill`; present only when given, so other configurations stay
   * as they were).
   */
  readonly onNodeFailure?: "kill" | "requeue";
  /** How many times a job may be requeued after node failures (absent: 3; present only when given). */
  readonly requeueLimit?: number;
  /** Settings of pickers by name (JSON data), absent when none are given. */
  readonly pickerSettings?: Readonly<Record<string, unknown>>;
  /** The power cap (watts) before any scheduled change; present only when given. */
  readonly powerCap?: number;
  /** Power cap changes, sorted by time; present only when given. */
  readonly powerCapSchedule?: ReadonlyArray<PowerCapChange>;
  /** Watts of a node holding no job; present only when given. */
  readonly idleWatts?: number;
  /** Watts of a node holding a job; present only when given. */
  readonly busyWatts?: number;
  /** Watts per run of the resource model's nodes; present only when given. */
  readonly nodeWatts?: ReadonlyArray<NodeWatts>;
}

/**
 * Largest run-time scale and stddev (times the time limit): larger factors
 * only overflow the drawn run times.
 */
export const MAX_RUN_TIME_FACTOR = 1e6;

// Finished records and buffered resource rows held across steps outlived
// the young generation and were promoted, to die in the old one: with 4096
// each, HPC2N EASY's heap grew to 47 MB between full collections (live: 12
// MB). 512 (the CLI's feed chunk) writes the same rows sooner.
/** Flush interval used when neither a capacity nor an interval bounds the store. */
export const DEFAULT_UNBOUNDED_FLUSH_INTERVAL = 512;
/** Resource rows buffered before they are emitted, when not configured. */
export const DEFAULT_RESOURCE_HISTORY_CAPACITY = 512;
/** The earlier default of {@link DEFAULT_RESOURCE_HISTORY_CAPACITY}: a state saved by an earlier build may buffer this many rows. */
export const EARLIER_RESOURCE_HISTORY_CAPACITY = 4096;

const PRIORITY: readonly PriorityPolicy[] = ["fcfs", "fcfs_alt", "fcfs_conservative", "sjf", "ljf"];
const RUN_TIME: readonly RunTimeMode[] = ["actual", "limit", "distribution", "external"];
const DISTRIBUTION: readonly RunTimeDistribution[] = ["normal", "lognormal", "uniform"];
const OVERFLOW: readonly JobStoreOverflow[] = ["abort", "grow"];
const CAPACITY_CUT: readonly CapacityCutPolicy[] = ["drain", "kill"];
const CAPACITY_SEMANTICS: readonly CapacitySemantics[] = ["evtsim", "drevt"];
const NODE_FAILURE: readonly ("kill" | "requeue")[] = ["kill", "requeue"];
/** Times a job may be requeued after node failures, when not configured. */
export const DEFAULT_REQUEUE_LIMIT = 3;

function oneOf<T extends string>(
  name: string,
  value: T | undefined,
  allowed: readonly T[],
  dflt: T,
): T {
  if (value === undefined) return dflt;
  if (!allowed.includes(value)) {
    throw new EvtsimError("usage", `unknown ${name} '${value}' (expected ${allowed.join(", ")})`);
  }
  return value;
}

function nonNegative(
  name: string,
  value: number | undefined,
  dflt: number,
  integer = true,
): number {
  if (value === undefined) return dflt;
  if (!Number.isFinite(value) || value < 0 || (integer && !Number.isSafeInteger(value))) {
    throw new EvtsimError(
      "usage",
      `${name} must be a non-negative ${integer ? "integer" : "number"}, got ${value}`,
    );
  }
  return value;
}

/**
 * Fills in defaults and checks every field of a configuration.
 *
 * @example
 * ```ts
 * import { resolveConfig } from "./config.ts";
 * const c = resolveConfig({ totalNodes: 100 });
 * console.assert(c.backfillPolicy === "easy" && c.priorityPolicy === "fcfs");
 * ```
 */
export function resolveConfig(config: SimulationConfig): ResolvedConfig {
  checkConfigShape(config);
  const totalNodes = config.totalNodes;
  if (!Number.isSafeInteger(totalNodes) || totalNodes <= 0) {
    throw new EvtsimError(
      "usage",
      `total nodes must be a positive integer of at most 2^53 - 1, got ${totalNodes}`,
    );
  }
  const runTimeScale = config.runTimeScale ?? 1;
  if (
    typeof runTimeScale !== "number" || !(runTimeScale > 0 && runTimeScale <= MAX_RUN_TIME_FACTOR)
  ) {
    throw new EvtsimError(
      "usage",
      `run time scale must be > 0 and at most ${MAX_RUN_TIME_FACTOR}, got ${runTimeScale}`,
    );
  }
  const runTimeStddev = nonNegative("run time stddev", config.runTimeStddev, 0, false);
  if (runTimeStddev > MAX_RUN_TIME_FACTOR) {
    throw new EvtsimError(
      "usage",
      `run time stddev must be at most ${MAX_RUN_TIME_FACTOR}, got ${runTimeStddev}`,
    );
  }
  const capacitySchedule = config.capacitySchedule ?? [];
  for (let i = 0; i < capacitySchedule.length; i++) {
    const c = capacitySchedule[i];
    if (
      !Number.isFinite(c.time) || !Number.isInteger(c.capacity) || c.capacity < 0 ||
      c.capacity > totalNodes
    ) {
      throw new EvtsimError(
        "usage",
        `capacity change ${i}: capacity must be an integer in 0..${totalNodes}, got ${c.capacity}`,
      );
    }
    if (Math.abs(c.time) > MAX_EXACT) {
      throw new EvtsimError(
        "usage",
        `capacity change ${i}: time must be a finite number of at most 2^53 - 1 seconds, got ${c.time}`,
      );
    }
    if (i > 0 && c.time < capacitySchedule[i - 1].time) {
      throw new EvtsimError("usage", `capacity change ${i}: times must be non-decreasing`);
    }
  }
  const seed = config.seed ?? 0;
  if (!Number.isFinite(seed)) throw new EvtsimError("usage", `seed must be a number, got ${seed}`);
  const startTime = config.startTime ?? 0;
  if (!Number.isFinite(startTime) || Math.abs(startTime) > MAX_EXACT) {
    throw new EvtsimError(
      "usage",
      `start time must be a finite number of at most 2^53 - 1 seconds, got ${startTime}`,
    );
  }
  const priorityPolicy = oneOf("priority policy", config.priorityPolicy, PRIORITY, "fcfs");
  const backfill = config.admission?.name ?? config.backfillPolicy ?? "easy";
  if (typeof backfill !== "string") {
    throw new EvtsimError("usage", `backfill policy must be a name, got ${typeof backfill}`);
  }
  const picker = pickerName(config.picker, priorityPolicy);
  // DR_EVT runs EASY for SJF/LJF with conservative backfilling.
  const drevtSjf = config.picker === undefined && config.admission === undefined &&
    (priorityPolicy === "sjf" || priorityPolicy === "ljf");
  const backfillPolicy = drevtSjf && backfill === "conservative" ? "easy" : backfill;
  if (
    config.decisions !== undefined && typeof config.decisions !== "boolean" &&
    config.decisions !== "heads"
  ) {
    throw new EvtsimError(
      "usage",
      `decisions must be true, false or "heads", got ${config.decisions}`,
    );
  }
  return Object.freeze({
    totalNodes,
    backfillPolicy,
    priorityPolicy,
    picker,
    queues: resolveQueues(config.queues),
    decisions: config.decisions ?? false,
    runTimeMode: oneOf("run time mode", config.runTimeMode, RUN_TIME, "actual"),
    runTimeDistribution: oneOf(
      "run time distribution",
      config.runTimeDistribution,
      DISTRIBUTION,
      "normal",
    ),
    runTimeScale,
    runTimeStddev,
    seed,
    jobStoreCapacity: nonNegative("job store capacity", config.jobStoreCapacity, 0),
    jobStoreOverflow: oneOf("job store overflow", config.jobStoreOverflow, OVERFLOW, "grow"),
    jobFlushInterval: nonNegative("job flush interval", config.jobFlushInterval, 0),
    resourceHistoryCapacity: nonNegative(
      "resource history capacity",
      config.resourceHistoryCapacity,
      0,
    ),
    startTime,
    capacitySchedule: Object.freeze([...capacitySchedule]),
    onCapacityCut: oneOf("on capacity cut", config.onCapacityCut, CAPACITY_CUT, "drain"),
    capacitySemantics: oneOf(
      "capacity semantics",
      config.capacitySemantics,
      CAPACITY_SEMANTICS,
      "evtsim",
    ),
    ...(config.onNodeFailure === undefined
      ? {}
      : { onNodeFailure: oneOf("on node failure", config.onNodeFailure, NODE_FAILURE, "kill") }),
    ...(config.requeueLimit === undefined
      ? {}
      : { requeueLimit: nonNegative("requeue limit", config.requeueLimit, DEFAULT_REQUEUE_LIMIT) }),
    ...(config.pickerSettings === undefined
      ? {}
      : { pickerSettings: jsonSettings(config.pickerSettings) }),
    // Only when given, so every other run's configuration (and its hash) is as before.
    ...powerFields(config),
    // Only when asked for, so every other run's configuration is as before.
    ...(config.resourceRows === false ? { resourceRows: false as const } : {}),
  });
}

// The power model's fields (docs/power.md), each present only when given:
// watts are finite and non-negative, the schedule's times non-decreasing.
function powerFields(config: SimulationConfig): {
  powerCap?: number;
  powerCapSchedule?: readonly PowerCapChange[];
  idleWatts?: number;
  busyWatts?: number;
  nodeWatts?: readonly NodeWatts[];
} {
  const watts = (name: string, v: unknown): number => {
    if (typeof v !== "number" || !Number.isFinite(v) || v < 0 || v > MAX_EXACT) {
      throw new EvtsimError(
        "usage",
        `${name} must be a non-negative number of watts of at most 2^53 - 1, got ${v}`,
      );
    }
    return v;
  };
  const out: {
    powerCap?: number;
    powerCapSchedule?: readonly PowerCapChange[];
    idleWatts?: number;
    busyWatts?: number;
    nodeWatts?: readonly NodeWatts[];
  } = {};
  if (config.powerCap !== undefined) out.powerCap = watts("power cap", config.powerCap);
  const schedule = config.powerCapSchedule;
  if (schedule !== undefined) {
    if (!Array.isArray(schedule)) {
      throw new EvtsimError("usage", "power cap schedule must be a list");
    }
    const copy: PowerCapChange[] = [];
    for (let i = 0; i < schedule.length; i++) {
      const c = schedule[i] as PowerCapChange;
      if (typeof c !== "object" || c === null) {
        throw new EvtsimError("usage", `power cap change ${i}: expected { time, watts }`);
      }
      if (typeof c.time !== "number" || !Number.isFinite(c.time) || Math.abs(c.time) > MAX_EXACT) {
        throw new EvtsimError(
          "usage",
          `power cap change ${i}: time must be a finite number of at most 2^53 - 1 seconds, got ${c.time}`,
        );
      }
      if (i > 0 && c.time < copy[i - 1].time) {
        throw new EvtsimError("usage", `power cap change ${i}: times must be non-decreasing`);
      }
      copy.push(
        Object.freeze({ time: c.time, watts: watts(`power cap change ${i}: watts`, c.watts) }),
      );
    }
    out.powerCapSchedule = Object.freeze(copy);
  }
  if (config.idleWatts !== undefined) out.idleWatts = watts("idle watts", config.idleWatts);
  if (config.busyWatts !== undefined) out.busyWatts = watts("busy watts", config.busyWatts);
  const runs = config.nodeWatts;
  if (runs !== undefined) {
    if (!Array.isArray(runs)) throw new EvtsimError("usage", "node watts must be a list");
    if (out.idleWatts !== undefined || out.busyWatts !== undefined) {
      throw new EvtsimError("usage", "give node watts or idle and busy watts, not both");
    }
    out.nodeWatts = Object.freeze(runs.map((r: NodeWatts, i) => {
      if (typeof r !== "object" || r === null || !Number.isSafeInteger(r.nodes) || r.nodes <= 0) {
        throw new EvtsimError(
          "usage",
          `node watts ${i}: nodes must be a positive integer, got ${r?.nodes}`,
        );
      }
      return Object.freeze({
        nodes: r.nodes,
        idleWatts: watts(`node watts ${i}: idle watts`, r.idleWatts),
        busyWatts: watts(`node watts ${i}: busy watts`, r.busyWatts),
      });
    }));
  }
  return out;
}

// A deep, frozen copy of the picker settings; they must be JSON data (they
// are recorded with the configuration), and bounded before the recursive
// copy walks them.
function jsonSettings(v: unknown): Readonly<Record<string, unknown>> {
  if (v === null || typeof v !== "object" || Array.isArray(v)) {
    throw new EvtsimError("usage", "picker settings must be an object keyed by picker name");
  }
  checkJsonBounds(v, "picker settings");
  const copy = (x: unknown, at: string): unknown => {
    if (x === null || typeof x === "string" || typeof x === "boolean") return x;
    if (typeof x === "number") {
      if (!Number.isFinite(x)) {
        throw new EvtsimError("usage", `picker settings: ${at} must be a finite number`);
      }
      return x;
    }
    if (Array.isArray(x)) return Object.freeze(x.map((e, i) => copy(e, `${at}[${i}]`)));
    if (typeof x === "object") {
      const out: Record<string, unknown> = {};
      for (const [k, e] of Object.entries(x as Record<string, unknown>)) {
        if (e !== undefined) out[k] = copy(e, at === "" ? k : `${at}.${k}`);
      }
      return Object.freeze(out);
    }
    throw new EvtsimError("usage", `picker settings: ${at} must be JSON data`);
  };
  return copy(v, "") as Readonly<Record<string, unknown>>;
}

function pickerName(picker: SimulationConfig["picker"], priority: PriorityPolicy): string {
  if (picker === undefined) {
    return priority === "sjf" ? "sjf" : priority === "ljf" ? "ljf" : "builtin_fcfs";
  }
  const name = typeof picker === "string" ? picker : picker?.name;
  if (typeof name !== "string" || name === "") {
    throw new EvtsimError("usage", "picker must be a registered name or a picker with a name");
  }
  return name;
}

function resolveQueues(queues: readonly QueueDef[] | undefined): readonly ResolvedQueue[] {
  if (queues === undefined) return Object.freeze([]);
  if (!Array.isArray(queues)) throw new EvtsimError("usage", "queues must be a list");
  return Object.freeze(queueTable(queues).list.map((q) => q.def));
}
