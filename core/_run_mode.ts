// How a run is driven, chosen once when its first state is made
// (`createState`, `initialState(config, { replay })`): a simulation, where
// the policies decide when jobs start, or the schedule replay of recorded
// begin and end times, where no policy is asked (core/replay.ts). The engine
// calls the mode at the points where the two differ instead of testing a
// flag; `SimState.replay` stays, for readers, as the mode's public face.

import type { Working } from "./_engine.ts";
import type { AppendLimits } from "./_jobs.ts";
import { EvtsimError } from "./errors.ts";
import type { Picker } from "./picker.ts";
import type { RecordedJob } from "./types.ts";

/** A run's mode (`SimState.runMode`): what differs between simulating and replaying a schedule. */
export interface RunMode {
  /** `simulate`, or `replay-schedule` (recorded begin/end times; the policies are never asked). */
  readonly name: "simulate" | "replay-schedule";
  /**
   * Whether the policies decide: the picker and the admission policy are set
   * up, keep state and are told what happens. False in a schedule replay.
   */
  readonly decides: boolean;
  /** Refuses, before anything is applied, an input kind this mode does not take. */
  checkInput(w: Working, kind: string): void;
  /** Applies a `replayJobs` input. */
  replayJobs(w: Working, jobs: readonly RecordedJob[], limits: AppendLimits): void;
  /** Processes every instant up to `target` (inclusive or exclusive). */
  advance(w: Working, target: number, inclusive: boolean): void;
  /** What `finish` does before the last rows are written. */
  finish(w: Working): void;
  /** Jobs waiting with the picker (arrived, not started). */
  waitingJobs(s: { readonly picker: Picker; readonly pickerState: unknown }): number;
}

/** A simulation: the policies decide. */
export const SIMULATE: RunMode = Object.freeze({
  name: "simulate",
  decides: true,
  checkInput: () => {},
  replayJobs: (w: Working) => {
    if (w.finished) throw new EvtsimError("state", "the simulation has finished");
    throw new EvtsimError(
      "state",
      "replayJobs needs a replay state: initialState(config, { replay: true })",
    );
  },
  advance: (w: Working, target: number, inclusive: boolean) => w.advance(target, inclusive),
  finish: (w: Working) => w.reportStranded(),
  waitingJobs: (s: { readonly picker: Picker; readonly pickerState: unknown }) =>
    s.picker.size(s.pickerState),
});
