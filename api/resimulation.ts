// Re-simulating a `.replay` log (seed 003 Req 5 AC 13–19): load the header
// and the snapshot at or before a start time, run the recorded events (or an
// alternative event stream, for a what-if) through the same pure `step`, and
// compare each decision with the recorded one. Nothing here reads a clock:
// the decisions depend on the snapshot and the events only (pacing a replay
// in wall time is the caller's business, between steps).
//
// Where the events come from:
// - from the log itself: the messages after the chosen snapshot, in order;
// - from an alternative file: its events whose `seq` is at least the chosen
//   snapshot's `seq` (an inserted event may repeat a neighbour's seq). Its
//   sessions are what `verify` compares with, so an edited copy of the log
//   shows which decisions moved.
//
// A session belongs to the event before it; the decisions of one event's
// step are compared in order with the recorded sessions after that event
// (so one difference does not shift every later comparison).
//
// The re-simulation's own log (`output`) has the same layout: a header of
// this run (a re-simulation: no wall-clock start, and sessions with a wall
// duration of 0, so two re-simulations of one log write the same bytes), the
// snapshot it started from, then each event with its sessions, a snapshot
// wherever the event source had one, and the end message if it had one.
// Its events are numbered on from the start snapshot's seq and carry the
// clock at which this run applied them, so the output is a valid log even
// when an alternative stream inserted events.

import type { DecisionRow } from "../core/decisions.ts";
import { EvtsimError } from "../core/errors.ts";
import type { PolicyRegistry } from "../core/policies.ts";
import { type Reconfiguration, reconfigure } from "../core/reconfigure.ts";
import { restoreSnapshot, type SnapshotData } from "../core/snapshot.ts";
import type { SimState } from "../core/state.ts";
import { type Input, step, type StepResult } from "../core/step.ts";
import {
  decisionRow,
  encode,
  headerOf,
  inputOf,
  type LogEntry,
  type ReadLog,
} from "../io/replay_log.ts";
import type { EventMessage, SessionMessage, SnapshotMessage } from "../io/replay_schema.ts";
import { defaultRegistry } from "../schedulers/registry.ts";
import type { RecordingSink } from "./recorder.ts";

/** How to re-simulate a log. */
export interface ResimulationOptions {
  /** The log: its header and snapshots (and its events, unless `events` is given). */
  readonly log: ReadLog;
  /** An alternative event stream (read with role `events`) for a what-if. */
  readonly events?: ReadLog;
  /** Start from the last snapshot at or before this time (default: the first snapshot). */
  readonly startTime?: number;
  /** Start from the snapshot with this sequence number instead (for tests and tools). */
  readonly startSeq?: number;
  /** Another picker, admission policy or queue set. */
  readonly reconfigure?: Reconfiguration;
  /** Where policy names are looked up (default: evtsim's own). */
  readonly registry?: PolicyRegistry;
  /** Compare each decision with the recorded one. */
  readonly verify?: boolean;
  /** Where the re-simulation's own log goes. */
  readonly output?: RecordingSink;
}

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

type Item =
  | {
    readonly kind: "event";
    readonly entry: EventMessage & { line: number };
    sessions: SessionMessage[];
  }
  | { readonly kind: "snapshot" }
  | { readonly kind: "end" };

/** One re-simulation, stepped event by event. */
export class Resimulation {
  /** The snapshot it started from. */
  readonly start: { readonly seq: number; readonly time: number; readonly line: number };
  #state: SimState;
  readonly #items: Item[];
  readonly #file: string;
  readonly #verify: boolean;
  readonly #output: RecordingSink | undefined;
  #next = 0;
  /** Sequence number of the next event in the output (consecutive from the start). */
  #outSeq: number;
  readonly mismatches: Mismatch[] = [];
  /** Events applied, sessions and decisions made so far. */
  readonly counts = { events: 0, sessions: 0, decisions: 0 };

  /**
   * Picks and loads the starting snapshot and writes the output's header and
   * snapshot. Throws an `EvtsimError` (file:line) for a start time before the
   * first snapshot, an unknown policy, or an event before the snapshot's time.
   */
  constructor(options: ResimulationOptions) {
    const log = options.log;
    const snap = startSnapshot(log, options.startTime, options.startSeq);
    this.start = { seq: snap.seq, time: snap.time, line: snap.line };
    this.#outSeq = snap.seq;
    let data: SnapshotData = snap.state as SnapshotData;
    if (options.reconfigure !== undefined) data = reconfigure(data, options.reconfigure);
    try {
      this.#state = restoreSnapshot(data, options.registry ?? defaultRegistry());
    } catch (e) {
      if (e instanceof EvtsimError && options.reconfigure === undefined) {
        throw new EvtsimError(e.kind, e.message, {
          file: log.file,
          line: snap.line,
        });
      }
      throw e;
    }
    const source = options.events ?? log;
    this.#file = source.file;
    this.#items = options.events === undefined
      ? planFrom(log.entries.slice(log.entries.indexOf(snap) + 1))
      : planFrom(options.events.entries.filter((e) => keepAlt(e, snap)));
    for (const item of this.#items) {
      if (item.kind === "event" && item.entry.time < snap.time) {
        throw new EvtsimError(
          "input",
          `event seq ${item.entry.seq} at time ${item.entry.time} is before the time ${snap.time} of the snapshot it would follow (${log.file}:${snap.line})`,
          { file: source.file, line: item.entry.line },
        );
      }
    }
    this.#verify = options.verify === true;
    this.#output = options.output;
    this.#write(
      encode.header(this.#state, {
        wallStart: null,
        snapshotInterval: headerOf(log).snapshotInterval,
        origin: "resimulation",
      }) + encode.snapshot(snap.seq, this.#state),
    );
  }

  /** The current state. */
  get state(): SimState {
    return this.#state;
  }

  /**
   * The simulation time the next event is about (its clock, or an advance's
   * target when later), for pacing; undefined when no event is left.
   */
  nextTime(): number | undefined {
    const e = this.peekEvent();
    if (e === undefined) return undefined;
    const input = e.input;
    return (input.kind === "advanceTo" || input.kind === "runUntilExclusive") &&
        input.time !== "Infinity"
      ? Math.max(input.time, e.time)
      : e.time;
  }

  /** The event the next `step` applies, as the log has it; undefined when done. */
  peekEvent(): EventMessage | undefined {
    for (let i = this.#next; i < this.#items.length; i++) {
      const item = this.#items[i];
      if (item.kind === "event") return item.entry;
    }
    return undefined;
  }

  /** Applies the next event; returns its step result, or undefined when done. */
  step(): StepResult | undefined {
    let text = "";
    while (this.#next < this.#items.length) {
      const item = this.#items[this.#next++];
      if (item.kind === "snapshot") {
        text += encode.snapshot(this.#outSeq, this.#state);
        continue;
      }
      if (item.kind === "end") {
        text += encode.end(this.#outSeq, this.#state.time);
        continue;
      }
      const { entry } = item;
      const input: Input = inputOf(entry.input);
      const before = this.#state.time;
      let r: StepResult;
      try {
        r = step(this.#state, input);
      } catch (e) {
        if (!(e instanceof EvtsimError)) throw e;
        throw new EvtsimError(
          e.kind,
          `event seq ${entry.seq} (${entry.input.kind}): ${e.message}`,
          { file: this.#file, line: entry.line },
        );
      }
      this.#state = r.state;
      const decisions = r.rows.decisions;
      this.counts.events++;
      this.counts.decisions += decisions.length;
      if (decisions.length > 0) {
        let rounds = 1;
        for (let i = 1; i < decisions.length; i++) {
          if (decisions[i].round !== decisions[i - 1].round) rounds++;
        }
        this.counts.sessions += rounds;
      }
      if (this.#verify) this.#compare(entry, item.sessions, decisions);
      text += encode.event(this.#outSeq++, before, input);
      if (decisions.length > 0) text += encode.sessions(decisions, 0);
      // Snapshots and the end right after this event go out with it.
      for (
        let after = this.#items[this.#next];
        after !== undefined;
        after = this.#items[this.#next]
      ) {
        if (after.kind === "event") break;
        this.#next++;
        text += after.kind === "snapshot"
          ? encode.snapshot(this.#outSeq, this.#state)
          : encode.end(this.#outSeq, this.#state.time);
      }
      this.#write(text);
      return r;
    }
    if (text !== "") this.#write(text);
    return undefined;
  }

  /** Runs every remaining event. */
  runAll(): void {
    while (this.step() !== undefined) { /* next event */ }
  }

  /** Closes the output. */
  close(): void {
    this.#output?.close?.();
  }

  #write(text: string): void {
    this.#output?.write(text);
  }

  #compare(
    entry: EventMessage & { line: number },
    sessions: readonly SessionMessage[],
    made: readonly DecisionRow[],
  ): void {
    const recorded: DecisionRow[] = [];
    for (const s of sessions) {
      for (const d of s.decisions) recorded.push(decisionRow(d, s.time, s.round));
    }
    const n = Math.max(recorded.length, made.length);
    for (let i = 0; i < n; i++) {
      const a = recorded[i];
      const b = made[i];
      if (a !== undefined && b !== undefined && sameDecision(a, b)) continue;
      this.mismatches.push({
        seq: entry.seq,
        line: entry.line,
        index: i,
        time: (b ?? a)!.time,
        ...(a === undefined ? {} : { recorded: a }),
        ...(b === undefined ? {} : { resimulated: b }),
      });
    }
  }
}

/** Whether two decisions are the same (type, time, round, job and every detail). */
export function sameDecision(a: DecisionRow, b: DecisionRow): boolean {
  if (a.type !== b.type || a.time !== b.time || a.round !== b.round || a.jobId !== b.jobId) {
    return false;
  }
  if (a.type === "DISPATCH" && b.type === "DISPATCH") {
    return a.numNodes === b.numNodes && a.backfill === b.backfill && a.queue === b.queue;
  }
  if (a.type === "PEND" && b.type === "PEND") {
    const x = a.reason;
    const y = b.reason;
    return x.code === y.code && x.message === y.message && x.needed === y.needed &&
      x.free === y.free && x.end === y.end && x.reservation === y.reservation &&
      x.blockedBy === y.blockedBy && x.queue === y.queue;
  }
  return false;
}

type SnapshotEntry = SnapshotMessage & { line: number };

/** The last snapshot at or before `time` (the first one when no time is given). */
function startSnapshot(
  log: ReadLog,
  time: number | undefined,
  seq: number | undefined,
): SnapshotEntry {
  const snapshots = log.entries.filter((e): e is LogEntry & SnapshotEntry => e.type === "snapshot");
  const first = snapshots[0];
  if (seq !== undefined) {
    const found = snapshots.filter((s) => s.seq === seq).pop();
    if (found === undefined) {
      throw new EvtsimError("usage", `no snapshot with seq ${seq} in ${log.file}`);
    }
    return found;
  }
  if (time === undefined) return first;
  let chosen: SnapshotEntry | undefined;
  for (const s of snapshots) if (s.time <= time) chosen = s;
  if (chosen === undefined) {
    throw new EvtsimError(
      "usage",
      `no snapshot at or before time ${time} in ${log.file} (the first is at time ${first.time}, line ${first.line})`,
    );
  }
  return chosen;
}

function keepAlt(e: LogEntry, snap: SnapshotEntry): boolean {
  switch (e.type) {
    case "header":
      return false;
    case "snapshot":
      return e.seq > snap.seq;
    case "event":
      return e.seq >= snap.seq;
    case "session":
    case "end":
      return true;
  }
}

/** Events with the sessions after them; snapshots and the end as markers. */
function planFrom(entries: readonly LogEntry[]): Item[] {
  const items: Item[] = [];
  let last: (Item & { kind: "event" }) | undefined;
  for (const e of entries) {
    switch (e.type) {
      case "event":
        last = { kind: "event", entry: e, sessions: [] };
        items.push(last);
        break;
      case "session":
        // Sessions of an event that is not replayed (before the start) are dropped.
        last?.sessions.push(e);
        break;
      case "snapshot":
        items.push({ kind: "snapshot" });
        break;
      case "end":
        items.push({ kind: "end" });
        break;
      case "header":
        break;
    }
  }
  return items;
}
