// Live events: what a running batch system tells its scheduler besides new
// jobs (docs/seed-003-mapping.md, "Events"). Each is checked against the state when it is
// given and takes effect at its time: at an instant, after the arrivals and
// the resource events of that instant and before its scheduling round. An
// event whose time is the clock takes effect at the next advance, which
// also runs the round (push events, then advance: the seed interface's
// core_push_events then core_go, docs/seed-003-mapping.md).

import { OrderedSet, type OrderSpec } from "./_ordered_set.ts";
import type {
  LIVE_INPUTS,
  LiveFieldTypes,
  LiveInputKind,
  LiveStoredValues,
} from "./live_inputs.ts";
import type { JobOutcome } from "./types.ts";

/**
 * How a running job ended, for {@link EndJobOptions}: `completed` (exit 0),
 * `failed` or `killed`.
 *
 * @example
 * ```ts
 * import { type EndOutcome, Simulation } from "@evtsim/evtsim";
 * const sim = new Simulation({ totalNodes: 4 });
 * const id = sim.appendJob({ submitTime: 0, numNodes: 4, timeLimit: 100 });
 * sim.advanceTo(10);
 * const outcome: EndOutcome = "killed";
 * sim.endJob(id, 30, { outcome });
 * const row = sim.finish().jobs[0];
 * // A killed job's default exit status is 137.
 * console.assert(row.outcome === "killed" && row.endTime === 30 && row.exitStatus === 137);
 * ```
 */
export type EndOutcome = "completed" | Exclude<JobOutcome, "cancelled">;

/**
 * Options of an external job end.
 *
 * @example
 * ```ts
 * import { type EndJobOptions, Simulation } from "@evtsim/evtsim";
 * const sim = new Simulation({ totalNodes: 4 });
 * const id = sim.appendJob({ submitTime: 0, numNodes: 4, timeLimit: 100 });
 * sim.advanceTo(10);
 * const failed: EndJobOptions = { outcome: "failed", exitStatus: 2 };
 * sim.endJob(id, 30, failed);
 * const row = sim.finish().jobs[0];
 * if (row.endTime !== 30 || row.exitStatus !== 2) throw new Error("failed at 30");
 * ```
 */
export interface EndJobOptions {
  /** How it ended (default `completed`). */
  readonly outcome?: EndOutcome;
  /** Exit status (default 0 completed, 1 failed, 137 killed). */
  readonly exitStatus?: number;
}

/**
 * Fields of a waiting job that an update may change.
 *
 * @example
 * ```ts
 * import { type JobUpdate, Simulation } from "@evtsim/evtsim";
 * const sim = new Simulation({ totalNodes: 4, backfillPolicy: "none" });
 * sim.appendJobs([
 *   { submitTime: 0, numNodes: 4, timeLimit: 10 },
 *   { submitTime: 0, numNodes: 4, timeLimit: 10 },
 *   { submitTime: 0, numNodes: 4, timeLimit: 10 },
 * ]);
 * sim.advanceTo(0);
 * const raise: JobUpdate = { priority: 5 };
 * sim.updateJob(2, raise, 0);
 * // Job 2 now goes before job 1.
 * const begins = sim.finish().jobs.map((r) => r.beginTime).join();
 * if (begins !== "0,20,10") throw new Error(begins);
 * ```
 */
export interface JobUpdate {
  /** New priority within its queue. */
  readonly priority?: number;
  /** New queue (must be defined). */
  readonly queue?: string;
}

/**
 * A pending live event, as the state keeps it until its time: derived from
 * its input's definition in `LIVE_INPUTS` (the stored kind, its time and
 * sequence number, then the input's other fields with their defaults filled
 * in; only an `optionalWhenStored` field, such as `nodes`' `failed`, may be
 * missing).
 *
 * @example
 * ```ts
 * import { appendJobs, cancelJob, initialState, type LiveEvent, step } from "@evtsim/evtsim";
 * let s = step(initialState({ totalNodes: 4 }), appendJobs([{ submitTime: 0, numNodes: 1, timeLimit: 9 }])).state;
 * s = step(s, cancelJob(0, 5)).state;
 * const e: LiveEvent | undefined = s.liveEvents.first();
 * if (e?.kind !== "cancel" || e.time !== 5) throw new Error("a cancel at 5 waits in the state");
 * ```
 */
export type LiveEvent = {
  [K in LiveInputKind]:
    & {
      /** The stored kind (`LIVE_INPUTS[input].stored`). */
      readonly kind: (typeof LIVE_INPUTS)[K]["stored"];
      /** When it takes effect. */
      readonly time: number;
      /** Its place among the events given for the same time. */
      readonly seq: number;
    }
    & LiveStoredValues<(typeof LIVE_INPUTS)[K]["fields"], LiveFieldTypes>;
}[LiveInputKind];

const LIVE_ORDER: OrderSpec<LiveEvent> = {
  compare: (a, b) => a.time - b.time || a.seq - b.seq,
  p1: (x) => x.time,
  p2: (x) => x.seq,
};

/** No pending live events. */
export function emptyLiveEvents(): OrderedSet<LiveEvent> {
  return OrderedSet.empty(LIVE_ORDER);
}

/** The default exit status of each way a job can end. */
export function defaultExitStatus(outcome: JobOutcome | "completed"): number {
  switch (outcome) {
    case "completed":
      return 0;
    case "failed":
      return 1;
    case "killed":
      return 137;
    case "cancelled":
      return 143;
  }
}
