// The library's re-simulation of a `.replay` log in one call: what `evtsim
// replay --verify` does, over a log's text. A log recorded with policies of
// one's own (`--policy_module`, or a `Simulation` with a registry) needs a
// registry that has them: `withPolicies` with the same policies.

import type { Mismatch } from "./_resimulation_compare.ts";
import type { PolicyRegistry } from "../core/policies.ts";
import type { Reconfiguration } from "../core/reconfigure.ts";
import type { SimState } from "../core/state.ts";
import { LogReader } from "../io/replay_reader.ts";
import type { PolicyModuleRef } from "../io/replay_schema.ts";
import type { RecordingSink } from "./recorder.ts";
import { Resimulation } from "./resimulation.ts";

/** How {@link resimulate} re-simulates a log. */
export interface ResimulateOptions {
  /** The log's name in error messages (default `log.replay`). */
  readonly file?: string;
  /** Where policy names are looked up (default: evtsim's own); `withPolicies` adds yours. */
  readonly registry?: PolicyRegistry;
  /** Compare every decision with the recorded one (see `mismatches`). */
  readonly verify?: boolean;
  /** Start from the last snapshot at or before this time (default: the first snapshot). */
  readonly startTime?: number;
  /** A what-if: another picker, admission policy or queue set. */
  readonly reconfigure?: Reconfiguration;
  /** A what-if: the events (and the sessions `verify` compares) from this log's text instead. */
  readonly events?: string;
  /** Where the re-simulation's own `.replay` log goes. */
  readonly output?: RecordingSink;
}

/** What {@link resimulate} found. */
export interface ResimulateResult {
  /** The state after the last event (`statistics(state)` gives the run's figures). */
  readonly state: SimState;
  /** Decisions that differ from the recording (with `verify`; empty otherwise). */
  readonly mismatches: readonly Mismatch[];
  /** Simulation time of the snapshot the re-simulation started from. */
  readonly startTime: number;
  /** Events applied, scheduling sessions (rounds) and decisions made. */
  readonly counts: {
    readonly events: number;
    readonly sessions: number;
    readonly decisions: number;
  };
  /** The policy modules the log's header names (where its own policies came from). */
  readonly policyModules: readonly PolicyModuleRef[];
}

/**
 * Re-simulates a `.replay` log: loads its header and the snapshot at or
 * before `startTime`, runs every recorded event through the same `step`, and
 * with `verify` compares each decision with the recorded one. Throws an
 * `EvtsimError` (file:line) for a broken log or a policy name the registry
 * lacks.
 *
 * @example Re-simulate a run recorded with an admission policy of your own
 * ```ts
 * import { type Admission, resimulate, Simulation, statistics, withPolicies } from "@evtsim/evtsim";
 * // First fit: start every offered job that fits now (no reservations).
 * const firstFit: Admission = {
 *   name: "first_fit",
 *   runSession(s) {
 *     for (let job = s.next(); job !== undefined; job = s.next()) {
 *       if (job.numNodes <= s.free) s.dispatch(job, false);
 *       else s.pend(job, { code: "insufficient_nodes", message: `needs ${job.numNodes}` });
 *     }
 *   },
 * };
 * const registry = withPolicies({ admissions: [firstFit] });
 * const sim = new Simulation({ totalNodes: 4, backfillPolicy: "first_fit", registry });
 * let log = "";
 * sim.startRecording({ write: (text) => void (log += text) });
 * sim.appendJobs([
 *   { submitTime: 0, numNodes: 3, timeLimit: 10 },
 *   { submitTime: 1, numNodes: 2, timeLimit: 5 },
 *   { submitTime: 2, numNodes: 1, timeLimit: 5 },
 * ]);
 * sim.runToCompletion();
 * sim.stopRecording();
 * const r = resimulate(log, { registry, verify: true });
 * if (r.mismatches.length !== 0) throw new Error("the same decisions");
 * // Job 2 starts at once beside job 0; job 1 waits for 2 free nodes.
 * if (statistics(r.state).jobsStarted !== 3) throw new Error("three jobs ran");
 * ```
 */
export function resimulate(log: string, options: ResimulateOptions = {}): ResimulateResult {
  const file = options.file ?? "log.replay";
  const sim = new Resimulation({
    log: LogReader.fromText(log, file),
    ...(options.events === undefined
      ? {}
      : { events: LogReader.fromText(options.events, `${file} (events)`, "events") }),
    ...(options.startTime === undefined ? {} : { startTime: options.startTime }),
    ...(options.reconfigure === undefined ? {} : { reconfigure: options.reconfigure }),
    ...(options.registry === undefined ? {} : { registry: options.registry }),
    ...(options.output === undefined ? {} : { output: options.output }),
    verify: options.verify === true,
  });
  try {
    sim.runAll();
  } finally {
    sim.close();
  }
  return {
    state: sim.state,
    mismatches: sim.mismatches,
    startTime: sim.start.time,
    counts: { ...sim.counts },
    policyModules: sim.header.policyModules ?? [],
  };
}
