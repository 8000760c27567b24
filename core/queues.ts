// Queues: the submission channels a picker orders jobs by (the seed
// interface's queue, docs/seed-003-mapping.md: priority, limits, open/closed,
// per-queue picker, project). The core
// owns the queue table because it enforces `maxRunning` and `open` whatever
// the picker does; pickers only learn of queues through `onQueueUpdate`.

import { EvtsimError } from "./errors.ts";
import { MAX_EXACT } from "./_input_check.ts";

/**
 * A queue definition, as a `--queues` file or a queue update gives it.
 *
 * @example
 * ```ts
 * import { type QueueDef, Simulation } from "@evtsim/evtsim";
 * const queues: QueueDef[] = [
 *   { name: "batch", priority: 0 },
 *   { name: "urgent", priority: 10, maxRunning: 1 },
 * ];
 * const sim = new Simulation({ totalNodes: 4, queues, backfillPolicy: "none" });
 * sim.appendJobs([
 *   { submitTime: 0, numNodes: 4, timeLimit: 10, queue: "batch" },
 *   { submitTime: 0, numNodes: 4, timeLimit: 10, queue: "urgent" },
 * ]);
 * // The urgent queue's higher priority puts job 1 first, although job 0 came first.
 * const [first, second] = sim.finish().jobs;
 * if (second.beginTime !== 0 || first.beginTime !== 10) throw new Error("urgent first");
 * ```
 */
export interface QueueDef {
  /** Unique name; jobs name it in their `queue` field. */
  readonly name: string;
  /** Higher priorities are offered first (default 0). */
  readonly priority?: number;
  /** A picker used for the jobs of this queue instead of the global one (by name). */
  readonly picker?: string;
  /** The project owning the queue; carried for pickers that use it. */
  readonly project?: string;
  /** Jobs of this queue running at once; undefined means no limit. */
  readonly maxRunning?: number;
  /** A closed queue accepts jobs but starts none (default open). */
  readonly open?: boolean;
  /**
   * What happens to a running job of this queue when a waiting job of a
   * queue of higher `priority` needs its resources (Slurm's partition
   * PreemptMode under preempt/partition_prio): `off` (the default: never
   * preempted), `requeue` (back to waiting, same id), `cancel` (ends at
   * once, as killed, exit status 143) or `suspend` (stops, keeps the work
   * done, waits again and resumes for what remains). See docs/preemption.md.
   */
  readonly preemptMode?: "off" | "requeue" | "cancel" | "suspend";
  /**
   * Seconds a preempted job of this queue runs on after the preemption's
   * signal before it stops (Slurm's partition GraceTime; default 0: at
   * once). See docs/preemption.md.
   */
  readonly graceTime?: number;
}

/** What a preemption does to a victim (its own queue's mode decides). */
type PreemptMode = "off" | "requeue" | "cancel" | "suspend";

const PREEMPT_MODES: readonly PreemptMode[] = ["off", "requeue", "cancel", "suspend"];

/**
 * A queue definition with its defaults filled in.
 *
 * @example
 * ```ts
 * import { initialState, type ResolvedQueue } from "@evtsim/evtsim";
 * const s = initialState({ totalNodes: 4, queues: [{ name: "batch" }] });
 * const q: ResolvedQueue = s.queues.list[0].def;
 * if (q.priority !== 0 || q.open !== true || q.maxRunning !== undefined) throw new Error("defaults");
 * ```
 */
export interface ResolvedQueue {
  /** Unique name. */
  readonly name: string;
  /** Higher priorities are offered first. */
  readonly priority: number;
  /** Per-queue picker override, by name. */
  readonly picker: string | undefined;
  /** Owning project. */
  readonly project: string | undefined;
  /** Jobs running at once; undefined means no limit. */
  readonly maxRunning: number | undefined;
  /** Whether the queue may start jobs. */
  readonly open: boolean;
  /** Set only when its jobs may be preempted (`requeue`, `cancel` or `suspend`; `off` leaves it out). */
  readonly preemptMode?: "requeue" | "cancel" | "suspend";
  /** Set only when positive: seconds its preempted jobs run on after the signal. */
  readonly graceTime?: number;
}

/**
 * A queue and how many of its jobs run now.
 *
 * @example
 * ```ts
 * import { advanceTo, appendJobs, initialState, type QueueState, step } from "@evtsim/evtsim";
 * let s = initialState({ totalNodes: 8, queues: [{ name: "batch" }] });
 * s = step(s, appendJobs([{ submitTime: 0, numNodes: 2, timeLimit: 5, queue: "batch" }])).state;
 * s = step(s, advanceTo(0)).state;
 * const q: QueueState = s.queues.list[0];
 * if (q.running !== 1) throw new Error("one batch job runs");
 * ```
 */
export interface QueueState {
  /** The definition in force. */
  readonly def: ResolvedQueue;
  /** Jobs of this queue running now. */
  readonly running: number;
}

/**
 * The queue table: every defined queue, in definition order, and an index by name.
 * Empty when no queues are configured: then every job is in one implicit queue and
 * a job's `queue` is only a label carried to the output.
 *
 * @example
 * ```ts
 * import { initialState, type QueueTable } from "@evtsim/evtsim";
 * const t: QueueTable = initialState({ totalNodes: 4, queues: [{ name: "a" }, { name: "b" }] }).queues;
 * if (t.byName.get("b") !== 1 || t.list.length !== 2) throw new Error("table");
 * ```
 */
export interface QueueTable {
  /** Queues in definition order. */
  readonly list: readonly QueueState[];
  /** Index into `list` by queue name. */
  readonly byName: ReadonlyMap<string, number>;
}

/** The table of a run without configured queues. */
export const NO_QUEUES: QueueTable = Object.freeze({
  list: Object.freeze([]),
  byName: new Map(),
});

/**
 * Checks one queue definition and fills in its defaults. `where` prefixes
 * messages (e.g. `queue 2`).
 */
export function resolveQueue(def: QueueDef, where: string): ResolvedQueue {
  if (def === null || typeof def !== "object") {
    throw new EvtsimError("usage", `${where}: a queue must be an object`);
  }
  if (typeof def.name !== "string" || def.name === "") {
    throw new EvtsimError("usage", `${where}: name must be a non-empty string`);
  }
  const priority = def.priority ?? 0;
  if (!Number.isSafeInteger(priority)) {
    throw new EvtsimError("usage", `${where} (${def.name}): priority must be an integer`);
  }
  const maxRunning = def.maxRunning;
  if (maxRunning !== undefined && (!Number.isSafeInteger(maxRunning) || maxRunning < 0)) {
    throw new EvtsimError(
      "usage",
      `${where} (${def.name}): maxRunning must be a non-negative integer, got ${maxRunning}`,
    );
  }
  for (const k of ["picker", "project"] as const) {
    const v = def[k];
    if (v !== undefined && typeof v !== "string") {
      throw new EvtsimError("usage", `${where} (${def.name}): ${k} must be a string`);
    }
  }
  if (def.open !== undefined && typeof def.open !== "boolean") {
    throw new EvtsimError("usage", `${where} (${def.name}): open must be true or false`);
  }
  const mode = def.preemptMode;
  if (mode !== undefined && !PREEMPT_MODES.includes(mode)) {
    throw new EvtsimError(
      "usage",
      `${where} (${def.name}): preemptMode must be off, requeue, cancel or suspend, got ${
        String(mode)
      }`,
    );
  }
  const grace = def.graceTime;
  if (grace !== undefined && !(typeof grace === "number" && grace >= 0 && grace <= MAX_EXACT)) {
    throw new EvtsimError(
      "usage",
      `${where} (${def.name}): graceTime must be a number of seconds of 0 or more, got ${
        String(grace)
      }`,
    );
  }
  const base = {
    name: def.name,
    priority,
    picker: def.picker,
    project: def.project,
    maxRunning,
    open: def.open ?? true,
  };
  const graced = grace === undefined || grace === 0 ? base : { ...base, graceTime: grace };
  return Object.freeze(
    mode === undefined || mode === "off" ? graced : { ...graced, preemptMode: mode },
  );
}

/** Builds the queue table of a configuration; duplicate names are an error. */
export function queueTable(defs: readonly QueueDef[]): QueueTable {
  if (defs.length === 0) return NO_QUEUES;
  const byName = new Map<string, number>();
  const list: QueueState[] = [];
  defs.forEach((d, i) => {
    const def = resolveQueue(d, `queue ${i}`);
    if (byName.has(def.name)) {
      throw new EvtsimError("usage", `queue ${i}: duplicate queue name '${def.name}'`);
    }
    byName.set(def.name, i);
    list.push(Object.freeze({ def, running: 0 }));
  });
  return Object.freeze({ list: Object.freeze(list), byName });
}

/** Why a queue cannot start a job now, or undefined when it can. */
export function queueBlock(q: QueueState): "queue_closed" | "queue_limit" | undefined {
  if (!q.def.open) return "queue_closed";
  if (q.def.maxRunning !== undefined && q.running >= q.def.maxRunning) return "queue_limit";
  return undefined;
}

/** Whether any queue of the table may have its jobs preempted. */
export function preemptive(t: QueueTable): boolean {
  return t.list.some((q) => q.def.preemptMode !== undefined);
}
