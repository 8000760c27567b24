// The interactive re-simulation behind `evtsim replay -i`: the events of a
// `Resimulation` (read, checked and applied by the same code the
// non-interactive replay uses), each cut into instants
// (core/_instant_steps.ts) so that the REPL can stop between two scheduling
// rounds, and a bounded history of the positions it went through.
//
// A position is an immutable record around an immutable state: stepping
// back is going back to a kept position (its state shares every unchanged
// structure with the states after it), and stepping forward again re-applies
// the same pieces to it. The history keeps the positions of the last N
// scheduling rounds (sessions), so its memory follows the changes of those
// rounds, not the size of the state.
//
// A kept state costs what its step changed (about 10 KB a step on a deep
// queue: mostly the job store's chunk list and tree paths), and while the
// history holds it, what the step allocated lives long enough to be
// promoted to V8's old space, which then grows to several times the live
// heap between collections. So the history keeps the state of every
// STATE_EVERY-th position only (and of the position an output was opened
// at); going back to another position re-applies, from the kept state
// before it, the same pieces that led there (at most STATE_EVERY - 1, each
// a pure step, so the state is the same one).
//
// The output (`set output FILE`) and the verification (`set verify on`) are
// the non-interactive replay's: an event's message and sessions are written
// when its last piece is applied, with the same encoders, so a REPL session
// that runs to the end writes the bytes `replay --output` writes, whatever
// it stepped back over on the way (the output is cut back with the position).

import {
  applyEvent,
  countRounds,
  eventText,
  markerText,
  outputStart,
  type Resimulation,
} from "../api/resimulation.ts";
import {
  compareMade,
  compareMissing,
  type Mismatch,
  RecordedDecisions,
} from "../api/_resimulation_compare.ts";
import { nextPiece } from "../core/_instant_steps.ts";
import type { ResourceMetrics } from "../core/metrics.ts";
import { LogItems } from "./_repl_items.ts";
import { type NodeHistory, noteWritten } from "./_repl_nodes.ts";
import { PieceRows } from "./_repl_utilization.ts";
import {
  type Applied,
  type Candidate,
  collect,
  type EndItem,
  type EventItem,
  type Kept,
  type Position,
  ReplError,
  type ReplOutput,
  startPosition,
} from "./_repl_types.ts";

export { type Applied, type Candidate, type Kept, type Position, ReplError, type ReplOutput };

/** The history keeps the state of every STATE_EVERY-th position (see above). */
export const STATE_EVERY = 8;

interface OpenOutput {
  readonly out: ReplOutput;
  /** Index of the position it was opened at (or rewritten from). */
  openedAt: number;
  /** Log events done when it was opened. */
  eventsAtOpen: number;
  bytes: number;
}

/** The interactive re-simulation: pieces, positions, history, output, verification. */
export class Stepper {
  readonly sim: Resimulation;
  /** Sessions of history kept (0: none). */
  readonly historySessions: number;
  readonly #items: LogItems;
  /** Kept positions, oldest first; the last is the current one (its state always kept). */
  #positions: Kept[];
  #lo = 0;
  #candidate: Candidate | undefined;
  #output: OpenOutput | undefined;
  #verify = false;
  /** Why the output was closed by a failed write (the REPL prints it, then clears it). */
  outputError: string | undefined;
  /** The output closed last: its path and the log events it holds. */
  lastOutput: { readonly path: string; readonly events: number } | undefined;
  /**
   * Every job row the re-simulation has written so far (by job id), and the
   * allocation of every DISPATCH row that carries one: what `info node`
   * needs of the jobs that have left the state. Stepping back keeps them:
   * the same pieces write the same rows again.
   */
  readonly written: NodeHistory = { rows: new Map(), allocations: new Map() };
  /** On a machine with decisions on: each piece's rows, for the utilization so far. */
  readonly #pieceRows: PieceRows | undefined;

  constructor(sim: Resimulation, historySessions: number) {
    this.sim = sim;
    this.historySessions = historySessions;
    this.#pieceRows = PieceRows.of(sim.state);
    this.#items = new LogItems(sim);
    this.#positions = [startPosition(sim.state)];
    if (this.itemAt(0).kind === "end") {
      this.#positions[0] = { ...this.#positions[0], ended: true };
    }
  }

  /** The current position. */
  get at(): Position {
    return this.#positions[this.#positions.length - 1] as Position;
  }

  /** The positions kept, oldest first (the current one last). */
  get positions(): readonly Kept[] {
    return this.#positions;
  }

  /** The log event (or end) at index `i`, read from the log when first needed. */
  itemAt(i: number): EventItem | EndItem {
    return this.#items.at(i);
  }

  /** Sequence number, in the output, of the log event at item `i`. */
  seqOf(i: number): number {
    return this.sim.start.seq + i;
  }

  /** The next piece (undefined at the end); throws the log's error if it cannot apply. */
  candidate(): Candidate | undefined {
    const at = this.at;
    if (at.ended) return undefined;
    if (this.#candidate?.before === at) return this.#candidate;
    const item = this.itemAt(at.item) as EventItem;
    const piece = nextPiece(at.state, item.event.input, !at.inEvent);
    this.sim.prepare(item.event);
    const result = applyEvent(at.state, piece.input, item.event.entry, this.sim.eventsFile);
    this.#candidate = { before: at, item, input: piece.input, last: piece.last, result };
    return this.#candidate;
  }

  /** Applies the next piece; throws a `ReplError` at the end. */
  apply(): Applied {
    const c = this.candidate();
    if (c === undefined) throw new ReplError("the re-simulation has ended (try 'back')");
    const at = c.before;
    const item = c.item;
    const decisions = c.result.rows.decisions;
    noteWritten(this.written, c.result.rows.jobs, decisions);
    this.#pieceRows?.note(at.index, c.result.rows);
    const out = this.#output;
    let text = "";
    if (!at.inEvent && out !== undefined) {
      for (const m of item.lead) text += markerText(m, this.seqOf(at.item), at.state);
    }
    const mismatches: Mismatch[] = [];
    if (this.#verify && decisions.length > 0) {
      item.recorded ??= new RecordedDecisions(item.event.sessions);
      mismatches.push(
        ...compareMade(item.event.entry, item.recorded, decisions, at.madeCount, at.mismatches > 0),
      );
    }
    const made = decisions.length > 0 ? { prev: at.made, rows: decisions } : at.made;
    const madeCount = at.madeCount + decisions.length;
    const lastRound = decisions.length > 0 ? decisions[decisions.length - 1].round : at.lastRound;
    const state = c.result.state;
    let next: Position = {
      index: at.index + 1,
      state,
      time: state.time,
      round: state.round,
      item: at.item,
      inEvent: true,
      eventStart: at.eventStart,
      made,
      madeCount,
      lastRound,
      events: at.events,
      sessions: at.sessions + countRounds(decisions, at.lastRound),
      decisions: at.decisions + decisions.length,
      mismatches: at.mismatches,
      outBytes: 0,
      ended: false,
      piece: c.input,
      pieceDecisions: decisions,
    };
    if (c.last) {
      if (this.#verify) {
        item.recorded ??= new RecordedDecisions(item.event.sessions);
        mismatches.push(...compareMissing(item.event.entry, item.recorded, madeCount));
      }
      const seq = this.seqOf(at.item);
      if (out !== undefined) {
        text += eventText(seq, at.eventStart.time, item.event.input, collect(made, madeCount));
      }
      const trailing = this.#items.trailingOf(item);
      if (out !== undefined) {
        for (const m of trailing) text += markerText(m, seq + 1, state);
      }
      const following = this.itemAt(at.item + 1);
      const ended = following.kind === "end";
      if (ended && out !== undefined) {
        for (const m of following.lead) text += markerText(m, seq + 1, state);
      }
      next = {
        ...next,
        item: at.item + 1,
        inEvent: false,
        eventStart: state,
        made: undefined,
        madeCount: 0,
        lastRound: undefined,
        events: at.events + 1,
        ended,
      };
    }
    if (out !== undefined && text !== "") this.#writeOut(out, text);
    next = { ...next, mismatches: at.mismatches + mismatches.length, outBytes: out?.bytes ?? 0 };
    this.#remember(at, next);
    return { candidate: c, position: next, mismatches };
  }

  // Writes `text` to the --output log; a failed write (a full disk, say)
  // stops the output, and the re-simulation goes on.
  #writeOut(out: OpenOutput, text: string): void {
    try {
      out.bytes += out.out.write(text);
    } catch (e) {
      this.outputError = `${out.out.path} closed: ${(e as Error).message}`;
      this.closeOutput();
    }
  }

  // Adds the position after `at`; `at` keeps its state only every
  // STATE_EVERY positions (or when the output opened there).
  #remember(at: Position, next: Position): void {
    const ps = this.#positions;
    const last = ps.length - 1;
    if (
      this.historySessions > 0 && at.index % STATE_EVERY !== 0 && ps[last] === at &&
      at.index !== this.#output?.openedAt
    ) {
      ps[last] = { ...at, state: undefined };
    }
    ps.push(next);
    this.#trim();
  }

  // Keeps the positions of the last `historySessions` sessions: the latest
  // one at least that many rounds before the current one, and all after it.
  // `#lo` is the oldest position still reachable; the ones before it are
  // dropped in batches (a splice per step would copy the array each time).
  #trim(): void {
    const ps = this.#positions;
    if (this.historySessions === 0) {
      if (ps.length > 1) this.#positions = [ps[ps.length - 1]];
      this.#lo = 0;
    } else {
      this.#settle();
      if (this.#lo >= 1024 || (this.#lo > 0 && this.#lo * 2 >= ps.length)) {
        // From the kept state at or before the oldest reachable position.
        let from = this.#lo;
        while (from > 0 && ps[from].state === undefined) from--;
        this.#positions = ps.slice(from);
        this.#lo -= from;
      }
    }
    this.#items.dropBefore(this.#positions[0].item);
  }

  // Moves `#lo` to the latest position at least `historySessions` rounds
  // before the current one (or the oldest kept, if none is that old).
  #settle(): void {
    const ps = this.#positions;
    const limit = ps[ps.length - 1].round - this.historySessions;
    let lo = Math.min(this.#lo, ps.length - 1);
    while (lo > 0 && ps[lo].round > limit) lo--;
    while (lo + 1 < ps.length && ps[lo + 1].round <= limit) lo++;
    this.#lo = lo;
  }

  /** The positions `history` lists and `back` may return to, oldest first (the current one left out). */
  reachable(): readonly Kept[] {
    if (this.historySessions === 0) return [];
    this.#settle();
    return this.#positions.slice(this.#lo, -1);
  }

  /** Goes back `n` pieces (events). */
  back(n: number): Position {
    if (!(n >= 1)) throw new ReplError(`cannot go back ${n} events: give a count of 1 or more`);
    const r = this.reachable();
    if (n > r.length) {
      throw new ReplError(
        r.length === 0
          ? this.at.index === 0
            ? "cannot go back: this is the start of the re-simulation"
            : `cannot go back: no history is kept (--history ${this.historySessions})`
          : `cannot go back ${n} events: the history reaches back ${r.length} (to event #${
            r[0].index
          }; --history ${this.historySessions} sessions)`,
      );
    }
    return this.#goTo(r[r.length - n]);
  }

  /** Goes back `n` sessions: to just before the n-th last scheduling round began. */
  backSessions(n: number): Position {
    if (!(n >= 1)) throw new ReplError(`cannot go back ${n} sessions: give a count of 1 or more`);
    const r = this.reachable();
    const target = this.at.round - n;
    let p: Kept | undefined;
    for (let i = r.length - 1; i >= 0; i--) {
      if (r[i].round <= target) {
        p = r[i];
        break;
      }
    }
    if (p === undefined) {
      const rounds = r.length === 0 ? 0 : this.at.round - r[0].round;
      throw new ReplError(
        r.length === 0 && this.at.index === 0
          ? "cannot go back: this is the start of the re-simulation"
          : `cannot go back ${n} sessions: the history reaches back ${rounds} (--history ${this.historySessions} sessions)`,
      );
    }
    return this.#goTo(p);
  }

  // Goes back to a kept position: from the kept state at or before it, the
  // pieces that led there are applied again (writing the same bytes to the
  // output, which is first cut back to that state's length). Back before the
  // output was opened, the output starts again at `p`.
  #goTo(p: Kept): Position {
    const ps = this.#positions;
    let c = ps.indexOf(p);
    while (ps[c].state === undefined) c--;
    this.#positions = ps.slice(0, c + 1);
    this.#candidate = undefined;
    const out = this.#output;
    const restart = out !== undefined && p.index < out.openedAt;
    if (out !== undefined) {
      const bytes = restart ? 0 : ps[c].outBytes;
      out.out.truncate(bytes);
      out.bytes = bytes;
      if (restart) this.#output = undefined;
    }
    while (this.at.index < p.index) this.apply();
    if (restart) {
      this.#output = out;
      this.#startOutput(out!);
    }
    return this.at;
  }

  /**
   * On a machine (with decisions on): the utilization so far per resource,
   * per partition and in node equivalents, as `simulate --machine --max_time
   * T --stats_json` gives it for the run stopped here; undefined otherwise.
   */
  resourceMetrics(): ResourceMetrics | undefined {
    return this.#pieceRows?.metrics(this.at.index, this.at.state);
  }

  /** `info summary`'s utilization lines (none on whole nodes or without decisions). */
  utilizationLines(): string[] {
    return this.#pieceRows?.lines(this.at.index, this.at.state) ?? [];
  }

  /** Whether decisions are compared with the recorded ones. */
  get verify(): boolean {
    return this.#verify;
  }

  set verify(on: boolean) {
    this.#verify = on;
  }

  /** The open output's path, and the log events written to it so far. */
  get output(): { readonly path: string; readonly events: number } | undefined {
    const o = this.#output;
    return o === undefined
      ? undefined
      : { path: o.out.path, events: this.at.events - o.eventsAtOpen };
  }

  /**
   * Starts writing the re-simulation's log to `out` (closing any other): a
   * header and the snapshot the log event in progress started from, then
   * each log event as it completes.
   */
  openOutput(out: ReplOutput): void {
    this.closeOutput();
    const o: OpenOutput = { out, openedAt: 0, eventsAtOpen: 0, bytes: 0 };
    this.#output = o;
    this.#startOutput(o);
  }

  // Writes the output's start at the current position, which from now on
  // counts the new file's bytes.
  #startOutput(o: OpenOutput): void {
    const p = this.at;
    let text = outputStart(
      p.eventStart,
      this.seqOf(p.item),
      this.sim.header.snapshotInterval,
      this.sim.policyModules,
    );
    if (p.ended) {
      for (const m of this.itemAt(p.item).lead) text += markerText(m, this.seqOf(p.item), p.state);
    }
    o.bytes += o.out.write(text);
    o.openedAt = p.index;
    o.eventsAtOpen = p.events;
    const ps = this.#positions;
    ps[ps.length - 1] = { ...p, outBytes: o.bytes };
    this.#candidate = undefined;
  }

  /** The current state as a standalone log: a header and a snapshot. */
  snapshotText(): string {
    const at = this.at;
    return outputStart(
      at.state,
      this.seqOf(at.item),
      this.sim.header.snapshotInterval,
      this.sim.policyModules,
    );
  }

  /** Closes the output, if open; returns what it held. */
  closeOutput(): { readonly path: string; readonly events: number } | undefined {
    const o = this.output;
    if (o === undefined) return undefined;
    const out = this.#output!.out;
    this.#output = undefined;
    out.close();
    this.lastOutput = o;
    return o;
  }
}
