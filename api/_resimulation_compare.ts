// Comparing re-simulated decisions with the recorded ones (`--verify`): the
// decisions of one event's step, in order, against the decisions of the
// sessions recorded after that event. A re-simulation compares an event's
// decisions all at once; the REPL compares them as its pieces make them,
// with the same functions, so both report the same mismatches.

import type { DecisionRow } from "../core/decisions.ts";
import { decisionRow } from "../io/replay_log.ts";
import type { EventMessage, LogDecision, SessionMessage } from "../io/replay_schema.ts";

/** A decision that differs from the recorded one (or has no counterpart). */
export interface Mismatch {
  /** Sequence number of the event whose step made it. */
  readonly seq: number;
  /** Line of that event in its file. */
  readonly line: number;
  /** The decision's position among the event's decisions. */
  readonly index: number;
  /** Simulation time of the decision. */
  readonly time: number;
  /** What the log says, if it has a decision at this position. */
  readonly recorded?: DecisionRow;
  /** What the re-simulation decided, if it made one at this position. */
  readonly resimulated?: DecisionRow;
}

/** An event as read from a log, with its line. */
export type EventEntry = EventMessage & { readonly line: number };

/** The recorded decisions of an event (its sessions'), by position. */
export class RecordedDecisions {
  readonly #sessions: readonly SessionMessage[];
  /** Number of decisions in all. */
  readonly length: number;
  // A cursor: the decisions are mostly asked for in order.
  #session = 0;
  #first = 0;

  constructor(sessions: readonly SessionMessage[]) {
    this.#sessions = sessions;
    let n = 0;
    for (const s of sessions) n += s.decisions.length;
    this.length = n;
  }

  /** The decision at position `i` with its session's time and round (undefined past the end). */
  at(i: number): { d: LogDecision; time: number; round: number } | undefined {
    if (i < 0 || i >= this.length) return undefined;
    if (i < this.#first) {
      this.#session = 0;
      this.#first = 0;
    }
    while (i >= this.#first + this.#sessions[this.#session].decisions.length) {
      this.#first += this.#sessions[this.#session].decisions.length;
      this.#session++;
    }
    const s = this.#sessions[this.#session];
    return { d: s.decisions[i - this.#first], time: s.time, round: s.round };
  }
}

function mismatch(
  entry: EventEntry,
  i: number,
  a: DecisionRow | undefined,
  b: DecisionRow | undefined,
): Mismatch {
  return {
    seq: entry.seq,
    line: entry.line,
    index: i,
    time: (b ?? a)!.time,
    ...(a === undefined ? {} : { recorded: a }),
    ...(b === undefined ? {} : { resimulated: b }),
  };
}

/**
 * Mismatches among decisions `made`, the event's decisions from position
 * `offset` on, against the recorded ones at the same positions. After a
 * divergence (`diverged`, or a mismatch found here) the round numbers are
 * left out of the comparison: one extra or missing round shifts every later
 * round number, and the decisions after it would all count as mismatches.
 */
export function compareMade(
  entry: EventEntry,
  recorded: RecordedDecisions,
  made: readonly DecisionRow[],
  offset: number,
  diverged = false,
): Mismatch[] {
  const out: Mismatch[] = [];
  for (let k = 0; k < made.length; k++) {
    const i = offset + k;
    const r = recorded.at(i);
    // Compared as logged; a decision row is built only for a mismatch.
    const round = diverged || out.length > 0 ? made[k].round : r?.round;
    if (r === undefined) out.push(mismatch(entry, i, undefined, made[k]));
    else if (!sameAsLogged(r.d, r.time, round!, made[k])) {
      out.push(mismatch(entry, i, decisionRow(r.d, r.time, r.round), made[k]));
    }
  }
  return out;
}

/** Mismatches for the recorded decisions from position `from` on, which nothing matched. */
export function compareMissing(
  entry: EventEntry,
  recorded: RecordedDecisions,
  from: number,
): Mismatch[] {
  const out: Mismatch[] = [];
  for (let i = from; i < recorded.length; i++) {
    const r = recorded.at(i)!;
    out.push(mismatch(entry, i, decisionRow(r.d, r.time, r.round), undefined));
  }
  return out;
}

function sameAsLogged(d: LogDecision, time: number, round: number, b: DecisionRow): boolean {
  if (b.time !== time || b.round !== round || b.jobId !== d[1]) return false;
  if (d[0] === "DISPATCH") {
    return b.type === "DISPATCH" && b.numNodes === d[2] && b.backfill === (d.length === 4);
  }
  return b.type === d[0] && sameDecision(decisionRow(d, time, round), b);
}

/**
 * Whether two decisions are the same: type, time, round (unless
 * `ignoreRound`), job, nodes and backfill, or every field of the pend
 * reason. (A DISPATCH's queue is the job's own, which the events decide; the
 * log does not repeat it.)
 */
export function sameDecision(a: DecisionRow, b: DecisionRow, ignoreRound = false): boolean {
  if (
    a.type !== b.type || a.time !== b.time || (!ignoreRound && a.round !== b.round) ||
    a.jobId !== b.jobId
  ) {
    return false;
  }
  if (a.type === "DISPATCH" && b.type === "DISPATCH") {
    return a.numNodes === b.numNodes && a.backfill === b.backfill;
  }
  if (
    (a.type === "PEND" && b.type === "PEND") || (a.type === "PREEMPT" && b.type === "PREEMPT")
  ) {
    if (
      a.type === "PREEMPT" && b.type === "PREEMPT" &&
      (a.victims.join() !== b.victims.join() || a.mode.join() !== b.mode.join() ||
        a.grace?.join() !== b.grace?.join())
    ) return false;
    const x = a.reason;
    const y = b.reason;
    return x.code === y.code && x.message === y.message && x.needed === y.needed &&
      x.free === y.free && x.end === y.end && x.reservation === y.reservation &&
      x.blockedBy === y.blockedBy && x.queue === y.queue;
  }

  return false;
}
