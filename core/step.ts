// The reducer: step(state, input) -> { state, rows }. Pure at its boundary:
// the given state is never changed, nothing is read from outside, and the
// same state and input always give the same result.

import { Working } from "./_engine.ts";
import { appendJobs, submitJob } from "./_jobs.ts";
import { pushLiveEvent } from "./_live.ts";
import { isLiveInput, liveEventInput } from "./_live_stored.ts";
import { EvtsimError } from "./errors.ts";
import { lateCallOf } from "./_policy_faults.ts";
import { classifyStranded } from "./_stranded.ts";
import type { LiveInput } from "./live_inputs.ts";
import { checkStepArguments } from "./_input_check.ts";
import type { SimState } from "./state.ts";
import type { JobSpec, RecordedJob, StepRows } from "./types.ts";

/**
 * Everything the reducer accepts. The constructors `appendJobs`, `advanceTo`,
 * `runToCompletion`, … build these values.
 *
 * @example
 * ```ts
 * import { initialState, type Input, step } from "@evtsim/evtsim";
 * const inputs: Input[] = [
 *   { kind: "appendJobs", jobs: [{ submitTime: 0, numNodes: 4, timeLimit: 30 }] },
 *   { kind: "advanceTo", time: 10 },
 *   { kind: "runToCompletion" },
 * ];
 * const s = inputs.reduce((state, input) => step(state, input).state, initialState({ totalNodes: 8 }));
 * if (s.time !== 30 || s.allocatedNodes !== 0) throw new Error("the job should have ended at 30");
 * ```
 */
export type Input =
  | {
    /** Create jobs (ids in order) and, unless `submit` is false, submit them. */
    readonly kind: "appendJobs";
    readonly jobs: readonly JobSpec[];
    readonly submit?: boolean;
    /** Largest job-store capacity the caller allows growing to. */
    readonly maxStoreCapacity?: number;
  }
  | { readonly kind: "submitJob"; readonly id: number; readonly submitTime: number }
  | {
    /**
     * Replay recorded jobs (sorted by submit time) without scheduling; needs a
     * state from `initialState(config, { replay: true })`. See core/replay.ts.
     */
    readonly kind: "replayJobs";
    readonly jobs: readonly RecordedJob[];
    /** Largest job-store capacity the caller allows growing to. */
    readonly maxStoreCapacity?: number;
  }
  | { readonly kind: "advanceTo"; readonly time: number }
  | { readonly kind: "runUntilExclusive"; readonly time: number }
  | { readonly kind: "runToCompletion" }
  | { readonly kind: "flush" }
  | { readonly kind: "finish" }
  /** A live event (cancel, external end, updates, capacity and node changes): core/live_inputs.ts. */
  | LiveInput;

/**
 * What a step returns.
 *
 * @example
 * ```ts
 * import { appendJobs, initialState, step, type StepResult } from "@evtsim/evtsim";
 * const s0 = initialState({ totalNodes: 8 });
 * const job = { submitTime: 0, numNodes: 2, timeLimit: 10 };
 * const r: StepResult = step(s0, appendJobs([job, job]));
 * // The new jobs' ids, the next state, and no rows yet; the given state is untouched.
 * if (r.ids.join() !== "0,1" || r.state.nextJobId !== 2 || r.rows.jobs.length !== 0) throw new Error("r");
 * if (s0.nextJobId !== 0) throw new Error("s0 must be unchanged");
 * ```
 */
export interface StepResult {
  /** The next state. */
  readonly state: SimState;
  /** Rows that became final during the step. */
  readonly rows: StepRows;
  /** Ids created by an `appendJobs` input (empty otherwise). */
  readonly ids: readonly number[];
}

/**
 * Applies one input to a state. Throws `EvtsimError` (and changes nothing)
 * when the input breaks a contract: time going backwards, an unsorted batch,
 * a full job store under `abort`, a finished simulation, or a state or input
 * of the wrong shape or type (kind `"usage"`).
 *
 * @example
 * ```ts
 * import { initialState, step } from "@evtsim/evtsim";
 * let s = initialState({ totalNodes: 100 });
 * s = step(s, { kind: "appendJobs", jobs: [{ submitTime: 0, numNodes: 10, timeLimit: 60 }] }).state;
 * s = step(s, { kind: "runToCompletion" }).state; // `finish` alone does not move the clock
 * const { rows } = step(s, { kind: "finish" });
 * if (rows.jobs[0]?.endTime !== 60) throw new Error("job 0 should end at 60");
 * ```
 */
export function step(state: SimState, input: Input): StepResult {
  checkStepArguments(state, input);
  // A policy that decided after its session ended (a timer, a kept session
  // object) broke the run: it goes no further.
  const late = lateCallOf(state.config);
  if (late !== undefined) throw late;
  const w = new Working(state);
  let ids: number[] = [];
  // The run's mode (core/_run_mode.ts) refuses what it does not take: jobs
  // to schedule in a schedule replay.
  w.runMode.checkInput(w, input.kind);
  // Every live input, by its definition (core/live_inputs.ts): no case per kind.
  if (isLiveInput(input)) {
    pushLiveEvent(w, liveEventInput(input));
    return { state: w.freeze(), rows: w.rows(), ids };
  }
  switch (input.kind) {
    case "appendJobs":
      ids = appendJobs(w, input.jobs, input.submit ?? true, {
        maxCapacity: input.maxStoreCapacity,
      });
      break;
    case "submitJob":
      submitJob(w, input.id, input.submitTime);
      break;
    case "replayJobs":
      w.runMode.replayJobs(w, input.jobs, { maxCapacity: input.maxStoreCapacity });
      break;
    case "advanceTo":
      w.runMode.advance(w, input.time, true);
      break;
    case "runUntilExclusive":
      w.runMode.advance(w, input.time, false);
      break;
    case "runToCompletion":
      w.runMode.advance(w, Infinity, true);
      break;
    case "flush":
      w.reclaimFront();
      w.flushResources();
      break;
    case "finish":
      if (!w.finished) {
        w.runMode.finish(w);
        w.writeAllFinished();
        w.flushResources();
        w.finished = true;
      }
      break;
    default:
      // A kind added to `Input` without a case above fails to compile here
      // (tests/engine/step_dispatch_test.ts); at run time checkStepArguments has
      // already refused any kind not in the union.
      return unhandledInput(input);
  }
  // Classified on the state `finish` was given (the finished one has written
  // its records out); a probe of the picker changes nothing.
  if (input.kind === "finish" && w.notices.length > 0) classifyStranded(w.notices, state);
  return { state: w.freeze(), rows: w.rows(), ids };
}

// Reached only by an input whose kind no case handles: `input` narrows to
// `never` once every kind of `Input` has its case.
function unhandledInput(input: never): never {
  throw new EvtsimError(
    "usage",
    `step: no handler for input kind ${JSON.stringify((input as { kind?: unknown }).kind)}`,
  );
}
