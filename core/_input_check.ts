// Shape and type checks of what callers hand the core (a configuration, a
// state and an input for `step`), so that a wrong type is an EvtsimError
// naming the argument, never a TypeError from deep inside the reducer or a
// string silently taken for a time.

import { describeValue } from "./_describe_value.ts";
import { EvtsimError } from "./errors.ts";
import { checkLiveInput } from "./_live_inputs_derived.ts";
import { LIVE_INPUTS } from "./live_inputs.ts";

export { describeValue };

/** Largest integer a double holds exactly together with its neighbours (2^53 − 1). */
export const MAX_EXACT = Number.MAX_SAFE_INTEGER;

/**
 * Throws an input error naming `where` when times could pass 2^53 − 1: a
 * job begins at an input's time or at another job's end and ends at most
 * its span later, so `latestInput + jobSpans` bounds every time the engine
 * computes (see `TimeBound`, core/state.ts). Checked when inputs are given,
 * never in the event loop.
 */
export function checkTimeBound(
  latestInput: number,
  jobSpans: number,
  where: string | (() => string),
): void {
  if (latestInput + jobSpans <= MAX_EXACT) return;
  const at = typeof where === "string" ? where : where();
  throw new EvtsimError(
    "input",
    `${at}: from the latest input time ${latestInput} s, the jobs' time limits and run times (${jobSpans} s in all) could take times past 2^53 - 1 s, where they are no longer exact`,
  );
}

function usage(detail: string): EvtsimError {
  return new EvtsimError("usage", detail);
}

/** Throws unless `v` is a plain (non-null, non-array) object. */
export function checkObject(v: unknown, what: string): void {
  if (typeof v !== "object" || v === null || Array.isArray(v)) {
    throw usage(`${what}: expected an object, got ${describeValue(v)}`);
  }
}

/** Throws unless `v` is an array. */
export function checkArray(v: unknown, what: string): void {
  if (!Array.isArray(v)) throw usage(`${what}: expected an array, got ${describeValue(v)}`);
}

/** Throws unless `v` is undefined or a boolean. */
export function checkOptionalBoolean(v: unknown, what: string): void {
  if (v !== undefined && typeof v !== "boolean") {
    throw usage(`${what}: expected true or false, got ${describeValue(v)}`);
  }
}

/** Throws unless `v` is a number (NaN and the time rules are checked where times are used). */
export function checkTimeArgument(v: unknown, what: string): void {
  if (typeof v !== "number") {
    throw usage(`${what}: expected a time in seconds (a number), got ${describeValue(v)}`);
  }
}

/** The top-level shape of a configuration; the fields are checked by `resolveConfig`. */
export function checkConfigShape(config: unknown): void {
  checkObject(config, "configuration");
  const schedule = (config as { capacitySchedule?: unknown }).capacitySchedule;
  if (schedule === undefined) return;
  checkArray(schedule, "capacitySchedule");
  (schedule as unknown[]).forEach((c, i) => checkObject(c, `capacity change ${i}`));
}

// The reducer's own inputs, then the live-event inputs as core/live_inputs.ts
// defines them (in its order, which messages list).
const KINDS = new Set([
  "appendJobs",
  "submitJob",
  "replayJobs",
  "advanceTo",
  "runUntilExclusive",
  "runToCompletion",
  "flush",
  "finish",
  ...Object.keys(LIVE_INPUTS),
]);

/** Checks the arguments of `step`: a state from `initialState` and a well-typed input. */
export function checkStepArguments(state: unknown, input: unknown): void {
  if (
    typeof state !== "object" || state === null ||
    typeof (state as { config?: unknown }).config !== "object" ||
    typeof (state as { store?: unknown }).store !== "object"
  ) {
    throw usage(
      `step: expected a simulation state (from initialState), got ${describeValue(state)}`,
    );
  }
  checkObject(input, "step: input");
  const i = input as Record<string, unknown>;
  if (typeof i.kind !== "string" || !KINDS.has(i.kind)) {
    throw usage(
      `step: expected an input kind (${[...KINDS].join(", ")}), got ${describeValue(i.kind)}`,
    );
  }
  switch (i.kind) {
    case "appendJobs":
    case "replayJobs":
      checkArray(i.jobs, `${i.kind}: jobs`);
      checkOptionalBoolean(i.submit, `${i.kind}: submit`);
      if (i.maxStoreCapacity !== undefined && typeof i.maxStoreCapacity !== "number") {
        throw usage(
          `${i.kind}: maxStoreCapacity: expected a number of records, got ${
            describeValue(i.maxStoreCapacity)
          }`,
        );
      }
      break;
    case "submitJob":
      if (typeof i.id !== "number") {
        throw usage(`submitJob: id: expected a job id (a number), got ${describeValue(i.id)}`);
      }
      checkTimeArgument(i.submitTime, "submitJob: submitTime");
      break;
    case "advanceTo":
    case "runUntilExclusive":
      checkTimeArgument(i.time, `${i.kind}: time`);
      break;
    case "runToCompletion":
    case "flush":
    case "finish":
      break;
    default:
      checkLiveInput(i.kind, i);
  }
}
