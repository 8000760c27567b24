// Re-simulating a `.replay` log (docs/recording.md, "Re-simulate and verify"): load the header
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
// The log is read as the re-simulation goes (a `LogReader`), so only the
// event at hand is held; the messages before the start snapshot are read
// and checked too. With a start time, the messages after a candidate
// snapshot are held until an event or snapshot later than the start time
// shows that no later snapshot qualifies.
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
import type { SnapshotData } from "../core/snapshot.ts";
import { restoreSnapshot } from "../core/_snapshot_restore.ts";
import type { SimState } from "../core/state.ts";
import { type Input, step, type StepResult } from "../core/step.ts";
import { encode, inputOf, type LogEntry } from "../io/replay_log.ts";
import { LogReader, type ReadLog } from "../io/replay_reader.ts";
import type {
  HeaderMessage,
  PolicyModuleRef,
  SessionMessage,
  SnapshotMessage,
} from "../io/replay_schema.ts";
import { defaultRegistry, withPolicies } from "../schedulers/registry.ts";
import { RecordedExternal } from "./_external_replay.ts";
import type { RecordingSink } from "./recorder.ts";
import {
  compareMade,
  compareMissing,
  type EventEntry,
  type Mismatch,
  RecordedDecisions,
} from "./_resimulation_compare.ts";

export { type EventEntry, type Mismatch, sameDecision } from "./_resimulation_compare.ts";

/** How to re-simulate a log. */
export interface ResimulationOptions {
  /** The log: its header and snapshots (and its events, unless `events` is given). */
  readonly log: LogReader | ReadLog;
  /** An alternative event stream (read with role `events`) for a what-if. */
  readonly events?: LogReader | ReadLog;
  /** Start from the last snapshot at or before this time (default: the first snapshot). */
  readonly startTime?: number;
  /** Start from the snapshot with this sequence number instead (for tests and tools). */
  readonly startSeq?: number;
  /** Another picker, admission policy or queue set. */
  readonly reconfigure?: Reconfiguration;
  /**
   * Where policy names are looked up (default: evtsim's own). A log recorded
   * with policies of your own needs a registry that has them (`withPolicies`).
   */
  readonly registry?: PolicyRegistry;
  /**
   * The policy modules `registry` came from, named in the output's header
   * (default: those the log's header names).
   */
  readonly policyModules?: readonly PolicyModuleRef[];
  /** Compare each decision with the recorded one. */
  readonly verify?: boolean;
  /** Where the re-simulation's own log goes. */
  readonly output?: RecordingSink;
}

type SnapshotEntry = SnapshotMessage & { line: number };

/** Messages one at a time, from a reader or from a log read whole. */
interface Source {
  readonly file: string;
  next(): LogEntry | undefined;
}

function sourceOf(log: LogReader | ReadLog): Source {
  if (log instanceof LogReader) return log;
  let at = 0;
  return { file: log.file, next: () => log.entries[at++] };
}

/** One re-simulation, stepped event by event. */
export class Resimulation {
  /** The snapshot it started from. */
  readonly start: { readonly seq: number; readonly time: number; readonly line: number };
  /** The log's header. */
  readonly header: HeaderMessage;
  /** The policy modules the output's header names. */
  readonly policyModules: readonly PolicyModuleRef[];
  #state: SimState;
  readonly #events: Source;
  /** Messages read ahead of the next step (after the start snapshot). */
  readonly #ahead: LogEntry[] = [];
  readonly #keep: (e: LogEntry) => boolean;
  readonly #verify: boolean;
  readonly #output: RecordingSink | undefined;
  /** Sequence number of the next event in the output (consecutive from the start). */
  #outSeq: number;
  /** An event has been replayed (sessions before the first one belong to skipped events). */
  #started = false;
  readonly mismatches: Mismatch[] = [];
  /** Events applied, sessions and decisions made so far. */
  readonly counts = { events: 0, sessions: 0, decisions: 0 };
  /** An external session's log: the recorded decisions, its admission policy. */
  readonly #recorded: RecordedExternal | undefined;

  /**
   * Picks and loads the starting snapshot and writes the output's header and
   * snapshot. Throws an `EvtsimError` (file:line) for a start time before the
   * first snapshot, an unknown policy, or a broken log.
   */
  constructor(options: ResimulationOptions) {
    const base = sourceOf(options.log);
    this.header = base.next() as HeaderMessage & { line: number };
    this.policyModules = options.policyModules ?? this.header.policyModules ?? [];
    let snap = base.next() as SnapshotEntry;
    if (options.startSeq !== undefined) {
      while (snap.seq !== options.startSeq) {
        const e = base.next();
        if (e === undefined) {
          throw new EvtsimError(
            "usage",
            `no snapshot with seq ${options.startSeq} in ${base.file}`,
          );
        }
        if (e.type === "snapshot") snap = e;
      }
    } else if (options.startTime !== undefined) {
      const t = options.startTime;
      if (snap.time > t) {
        throw new EvtsimError(
          "usage",
          `no snapshot at or before time ${t} in ${base.file} (the first is at time ${snap.time}, line ${snap.line})`,
        );
      }
      // Snapshot and event times never go back: past the first one later than t, none qualifies.
      for (let e = base.next(); e !== undefined; e = base.next()) {
        if (e.type === "snapshot" && e.time <= t) {
          snap = e;
          this.#ahead.length = 0;
          continue;
        }
        this.#ahead.push(e);
        if ((e.type === "snapshot" || e.type === "event") && e.time > t) break;
      }
    }
    this.start = { seq: snap.seq, time: snap.time, line: snap.line };
    this.#outSeq = snap.seq;
    let data = snap.state as SnapshotData;
    if (options.reconfigure !== undefined) data = reconfigure(data, options.reconfigure);
    let registry = options.registry ?? defaultRegistry();
    if (data.config.backfillPolicy === "external" && !registry.admissions.has("external")) {
      // An external session's log: its recorded decisions are the policy.
      this.#recorded = new RecordedExternal();
      registry = withPolicies({ admissions: [this.#recorded.admission] }, registry);
    }
    try {
      this.#state = restoreSnapshot(data, registry);
    } catch (e) {
      if (e instanceof EvtsimError && options.reconfigure === undefined) {
        throw new EvtsimError(e.kind, e.message, { file: base.file, line: snap.line });
      }
      throw e;
    }
    if (options.events === undefined) {
      this.#events = base;
      this.#keep = () => true;
    } else {
      // The log is read to its end all the same: a broken log is refused.
      while (base.next() !== undefined) { /* checked as read */ }
      this.#ahead.length = 0;
      this.#events = sourceOf(options.events);
      const from = snap.seq;
      this.#keep = (e) =>
        e.type === "event"
          ? e.seq >= from
          : e.type === "snapshot"
          ? e.seq > from
          : e.type !== "header";
    }
    this.#verify = options.verify === true;
    this.#output = options.output;
    this.#output?.write(
      outputStart(this.#state, snap.seq, this.header.snapshotInterval, this.policyModules),
    );
  }

  /** The current state. */
  get state(): SimState {
    return this.#state;
  }

  /** The next message to handle, read ahead (`at` places back). */
  #peek(at: number): LogEntry | undefined {
    while (this.#ahead.length <= at) {
      const e = this.#events.next();
      if (e === undefined) return undefined;
      if (this.#keep(e)) this.#ahead.push(e);
    }
    return this.#ahead[at];
  }

  /** The event the next `step` applies, as the log has it; undefined when done. */
  peekEvent(): EventEntry | undefined {
    for (let i = 0;; i++) {
      const e = this.#peek(i);
      if (e === undefined || e.type === "event") return e;
    }
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

  /**
   * Reads up to the next event: the snapshot and end markers met before it
   * (to be written with the state as it is), and the event with the
   * sessions recorded after it (undefined when no event is left).
   */
  readEvent(): { markers: Marker[]; event: ReadEvent | undefined } {
    const markers: Marker[] = [];
    for (let e = this.#take(); e !== undefined; e = this.#take()) {
      if (e.type === "snapshot" || e.type === "end") {
        markers.push(e.type);
        continue;
      }
      if (e.type !== "event") continue; // sessions of an event not replayed
      const entry = e;
      if (entry.time < this.start.time) {
        throw new EvtsimError(
          "input",
          `event seq ${entry.seq} at time ${entry.time} is before the time ${this.start.time} of the snapshot it would follow`,
          { file: this.#events.file, line: entry.line },
        );
      }
      this.#started = true;
      const sessions: SessionMessage[] = [];
      for (let s = this.#peek(0); s?.type === "session"; s = this.#peek(0)) {
        sessions.push(this.#ahead.shift() as SessionMessage);
      }
      return { markers, event: { entry, input: inputOf(entry.input), sessions } };
    }
    return { markers, event: undefined };
  }

  /**
   * Readies the policy for `event` before it is applied: an external
   * session's log re-simulates with the decisions recorded after the event.
   */
  prepare(event: ReadEvent): void {
    this.#recorded?.load(event.sessions);
  }

  /** The snapshot and end markers right after the event just read (to follow it in the output). */
  readMarkers(): Marker[] {
    const markers: Marker[] = [];
    for (let m = this.#peek(0); m?.type === "snapshot" || m?.type === "end"; m = this.#peek(0)) {
      this.#ahead.shift();
      markers.push(m.type);
    }
    return markers;
  }

  /** The file events are read from. */
  get eventsFile(): string {
    return this.#events.file;
  }

  /** Applies the next event; returns its step result, or undefined when done. */
  step(): StepResult | undefined {
    // Without an output nothing is encoded (a --verify run must not pay for it).
    const out = this.#output !== undefined;
    const { markers, event } = this.readEvent();
    let text = "";
    if (out) { for (const m of markers) text += markerText(m, this.#outSeq, this.#state); }
    if (event === undefined) {
      if (text !== "") this.#output!.write(text);
      return undefined;
    }
    const { entry, input, sessions } = event;
    const before = this.#state.time;
    this.prepare(event);
    const r = applyEvent(this.#state, input, entry, this.#events.file);
    this.#state = r.state;
    const decisions = r.rows.decisions;
    this.counts.events++;
    this.counts.decisions += decisions.length;
    this.counts.sessions += countRounds(decisions, undefined);
    if (this.#verify) {
      const recorded = new RecordedDecisions(sessions);
      this.mismatches.push(
        ...compareMade(entry, recorded, decisions, 0, this.mismatches.length > 0),
        ...compareMissing(entry, recorded, decisions.length),
      );
    }
    const seq = this.#outSeq++;
    if (out) text += eventText(seq, before, input, decisions);
    // Snapshots and the end right after this event go out with it.
    for (const m of this.readMarkers()) {
      if (out) text += markerText(m, this.#outSeq, this.#state);
    }
    if (out) this.#output!.write(text);
    return r;
  }

  #take(): LogEntry | undefined {
    const e = this.#peek(0);
    if (e !== undefined) this.#ahead.shift();
    if (e?.type === "session" && this.#started) {
      // A session can only follow its event, which took it along.
      throw new EvtsimError("input", "a session without its event", {
        file: this.#events.file,
        line: e.line,
      });
    }
    return e;
  }

  /** Runs every remaining event. */
  runAll(): void {
    while (this.step() !== undefined) { /* next event */ }
  }

  /** Closes the output. */
  close(): void {
    this.#output?.close?.();
  }
}

/** A message the output repeats where the event source had it. */
export type Marker = "snapshot" | "end";

/** An event read from the event source, with the sessions recorded after it. */
export interface ReadEvent {
  /** The message, with its line. */
  readonly entry: EventEntry;
  /** Its input, as the reducer takes it. */
  readonly input: Input;
  /** The sessions recorded after it (what `verify` compares its decisions with). */
  readonly sessions: readonly SessionMessage[];
}

/**
 * Applies an event's input (or a piece of it, core/_instant_steps.ts) to a
 * state; a failing step is reported with the event's seq, kind, file and line.
 */
export function applyEvent(
  state: SimState,
  input: Input,
  entry: EventEntry,
  file: string,
): StepResult {
  try {
    return step(state, input);
  } catch (err) {
    if (!(err instanceof EvtsimError)) throw err;
    throw new EvtsimError(
      err.kind,
      `event seq ${entry.seq} (${entry.input.kind}): ${err.message}`,
      { file, line: entry.line },
    );
  }
}

/**
 * Scheduling rounds among decisions (in order); `previous` is the round of
 * the decision before them, if they continue a list.
 */
export function countRounds(decisions: readonly DecisionRow[], previous: number | undefined) {
  let rounds = 0;
  let last = previous;
  for (const d of decisions) {
    if (d.round !== last) rounds++;
    last = d.round;
  }
  return rounds;
}

/** The output's text for an event applied at clock `before` and its decisions. */
export function eventText(
  seq: number,
  before: number,
  input: Input,
  decisions: readonly DecisionRow[],
): string {
  const text = encode.event(seq, before, input);
  return decisions.length > 0 ? text + encode.sessions(decisions, 0) : text;
}

/** The output's text for a snapshot of the state, or the end message, after `seq` events. */
export function markerText(kind: Marker, seq: number, state: SimState): string {
  return kind === "snapshot" ? encode.snapshot(seq, state) : encode.end(seq, state.time);
}

/**
 * The output's first lines: a re-simulation's header (naming the policy
 * modules its policies came from) and the snapshot it starts from.
 */
export function outputStart(
  state: SimState,
  seq: number,
  snapshotInterval: number,
  policyModules: readonly PolicyModuleRef[] = [],
): string {
  return encode.header(state, {
    wallStart: null,
    snapshotInterval,
    origin: "resimulation",
    policyModules,
  }) + encode.snapshot(seq, state);
}
