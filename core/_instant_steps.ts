// An advance cut into instants, for the interactive re-simulation (the
// REPL's `step`): one input that moves the clock (`advanceTo`,
// `runUntilExclusive`, `runToCompletion`) is applied as a run of
// `advanceTo(t)` steps, one per instant t at which something happens (a job
// arrives or ends, a live event or a capacity change is due), then the input
// itself, which by then has nothing left to do but set the clock. Every piece
// goes through the same `step`; the pieces give the same rows, in the same
// order, and the same final state as the whole input
// (tests/engine/instant_steps_test.ts checks it on random live sessions).
//
// Why that holds (core/_engine.ts `advance`): an advance first brings in the
// arrivals and live events due at the clock and schedules if anything
// changed (or nothing was ever sampled), then visits each later instant up to
// the target. `advanceTo(clock)` does exactly that first part (and the
// instant at the clock, if any), and is the first piece when that part has
// something to do; `advanceTo(t)` from the previous instant finds nothing
// left at the clock, so it only visits t. The loop's one
// special case, an infinite target that stops before a capacity change when
// nothing else is left, is left to the input itself.

import type { SimState } from "./state.ts";
import type { Input } from "./step.ts";

/** The next piece of an input and whether it is the last. */
export interface Piece {
  /** What to apply to the state next. */
  readonly input: Input;
  /** This is the input itself: after it, the input is done. */
  readonly last: boolean;
}

function target(input: Input): { time: number; inclusive: boolean } | undefined {
  switch (input.kind) {
    case "advanceTo":
      return { time: input.time, inclusive: true };
    case "runUntilExclusive":
      return { time: input.time, inclusive: false };
    case "runToCompletion":
      return { time: Infinity, inclusive: true };
    default:
      return undefined;
  }
}

/**
 * The next instant at which something is due in a simulation state: the
 * earliest resource event, arrival, capacity change or live event (Infinity
 * when nothing is).
 */
export function nextInstant(state: SimState): number {
  const e = state.events.first();
  const a = state.arrivals.first();
  const l = state.liveEvents.first();
  const schedule = state.config.capacitySchedule;
  const c = state.capacityIndex < schedule.length ? schedule[state.capacityIndex].time : Infinity;
  return Math.min(
    e === undefined ? Infinity : e.time,
    a === undefined ? Infinity : a.submitTime,
    l === undefined ? Infinity : l.time,
    c,
  );
}

/**
 * The next piece of `input` to apply to `state`: `first` is true when none
 * has been applied yet. An input that does not move the clock, or that
 * would fail or do nothing, is one piece: itself.
 */
export function nextPiece(state: SimState, input: Input, first: boolean): Piece {
  const whole = { input, last: true };
  const t = target(input);
  if (t === undefined || !state.runMode.decides || state.finished || Number.isNaN(t.time)) {
    return whole;
  }
  if (t.time <= state.time) return whole; // backwards (an error), or nothing past the clock
  if (first && dueAtClock(state)) {
    return { input: { kind: "advanceTo", time: state.time }, last: false };
  }
  const next = nextInstant(state);
  if (next === Infinity || (t.inclusive ? next > t.time : next >= t.time)) return whole;
  if (t.time === Infinity && onlyCapacityLeft(state)) return whole;
  return { input: { kind: "advanceTo", time: next }, last: false };
}

// Whether an advance from the clock has something to do at the clock itself
// before the next instant: arrivals or live events due, or the first queue
// sample not taken. Without them that first part does nothing and the first
// piece is the next instant's.
function dueAtClock(state: SimState): boolean {
  const a = state.arrivals.first();
  const l = state.liveEvents.first();
  return !state.sampled || (a !== undefined && a.submitTime <= state.time) ||
    (l !== undefined && l.time <= state.time);
}

// The engine's early stop of an advance to infinity: nothing but capacity
// changes left and nobody waiting.
function onlyCapacityLeft(state: SimState): boolean {
  return state.events.size === 0 && state.arrivals.size === 0 && state.liveEvents.size === 0 &&
    state.picker.size(state.pickerState) === 0;
}
