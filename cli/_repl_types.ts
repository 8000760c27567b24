// The values of the REPL's stepping (cli/_repl_stepper.ts): positions,
// pieces, the items read from the log, the output it writes, and the
// decisions of the log event in progress.

import type { Marker, ReadEvent } from "../api/resimulation.ts";
import type { Mismatch, RecordedDecisions } from "../api/_resimulation_compare.ts";
import type { DecisionRow } from "../core/decisions.ts";
import type { SimState } from "../core/state.ts";
import type { Input, StepResult } from "../core/step.ts";

/** Where `set output` writes: text appended, cut back to a length when stepping back. */
export interface ReplOutput {
  /** The file's path (for `info config`). */
  readonly path: string;
  /** Appends text; returns the number of bytes written. */
  write(text: string): number;
  /** Cuts the file to its first `bytes` bytes; later writes go on from there. */
  truncate(bytes: number): void;
  /** Closes the file. */
  close(): void;
}

/** A log event with what was read around it. */
export interface EventItem {
  readonly kind: "event";
  /** Snapshot and end markers before it, written when it begins. */
  readonly lead: readonly Marker[];
  readonly event: ReadEvent;
  recorded?: RecordedDecisions;
  /** Markers right after it, once read. */
  trailing?: readonly Marker[];
}

/** The end of the event source (and the markers before it). */
export interface EndItem {
  readonly kind: "end";
  readonly lead: readonly Marker[];
}

/** Decisions of the event in progress, newest piece first (shared between positions). */
export interface Chain {
  readonly prev: Chain | undefined;
  readonly rows: readonly DecisionRow[];
}

/** One point of the re-simulation: between two pieces. */
export interface Position {
  /** Pieces applied since the start (the REPL's event number). */
  readonly index: number;
  readonly state: SimState;
  /** The state's clock and scheduling rounds (kept when the state is not). */
  readonly time: number;
  readonly round: number;
  /** The log event in progress, or the next one (an index into the items). */
  readonly item: number;
  /** Some pieces of that log event have been applied, not all. */
  readonly inEvent: boolean;
  /** The state before that log event began. */
  readonly eventStart: SimState;
  readonly made: Chain | undefined;
  /** Decisions made by the log event in progress so far. */
  readonly madeCount: number;
  /** Round of the last of them. */
  readonly lastRound: number | undefined;
  /** Log events done, scheduling sessions that decided something, decisions made. */
  readonly events: number;
  readonly sessions: number;
  readonly decisions: number;
  /** Mismatches found so far (with verify on). */
  readonly mismatches: number;
  /** Bytes in the output at this position (meaningful while the output is open). */
  readonly outBytes: number;
  /** Every event has been applied. */
  readonly ended: boolean;
  /** The piece that led here (undefined at the start). */
  readonly piece: Input | undefined;
  /** Its decisions. */
  readonly pieceDecisions: readonly DecisionRow[];
}

/**
 * A position in the history: its state is kept at every
 * `STATE_EVERY`-th position (and a few others) and re-computed for the rest.
 */
export type Kept = Omit<Position, "state"> & { readonly state: SimState | undefined };

/** The next piece, computed but not applied (the REPL checks breakpoints on it). */
export interface Candidate {
  readonly before: Position;
  readonly item: EventItem;
  readonly input: Input;
  /** The log event is done after it. */
  readonly last: boolean;
  readonly result: StepResult;
}

/** What applying a piece did. */
export interface Applied {
  readonly candidate: Candidate;
  readonly position: Position;
  /** Mismatches found by this piece (verify on). */
  readonly mismatches: readonly Mismatch[];
}

/** A REPL command that cannot be done (one line for the operator). */
export class ReplError extends Error {}

/** The position before the first piece. */
export function startPosition(state: SimState): Position {
  return {
    index: 0,
    state,
    time: state.time,
    round: state.round,
    item: 0,
    inEvent: false,
    eventStart: state,
    made: undefined,
    madeCount: 0,
    lastRound: undefined,
    events: 0,
    sessions: 0,
    decisions: 0,
    mismatches: 0,
    outBytes: 0,
    ended: false,
    piece: undefined,
    pieceDecisions: [],
  };
}

/** The decisions of a chain, oldest first. */
export function collect(chain: Chain | undefined, count: number): DecisionRow[] {
  const out = new Array<DecisionRow>(count);
  let i = count;
  for (let c = chain; c !== undefined; c = c.prev) {
    for (let k = c.rows.length - 1; k >= 0; k--) out[--i] = c.rows[k];
  }
  return out;
}
