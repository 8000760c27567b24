// The commands of `evtsim replay FILE -i` (docs/recording.md, "Interactive";
// docs/seed-003-mapping.md maps them to the seed interface's): one line in, lines out. A command that cannot be
// done prints one `error: …` line and the session goes on. The stepping is
// cli/_repl_stepper.ts, the events breakpoints watch cli/_repl_events.ts,
// the `info` views of a state cli/_repl_inspect.ts; this file parses the
// commands, runs the pieces, checks breakpoints and prints.

import { EvtsimError } from "../core/errors.ts";
import { mismatchText } from "./_mismatch_text.ts";
import {
  type Breakpoint,
  eventsOf,
  type EventType,
  FIELDS_HELP,
  formatBreakpoint,
  formatEvent,
  matches,
  parseBreakpoint,
} from "./_repl_events.ts";
import { jobInfo, pendingInfo, queueInfo, resourceInfo, summaryInfo } from "./_repl_inspect.ts";
import { configInfo, describePiece, HELP, historyInfo, sessionInfo } from "./_repl_views.ts";
import { nodeInfo } from "./_repl_nodes.ts";

export { HELP };
import type { Stepper } from "./_repl_stepper.ts";
import { type Candidate, ReplError, type ReplOutput } from "./_repl_types.ts";

/** What the REPL needs from outside: printing, files, wall time. */
export interface ReplIO {
  /** Prints one line. */
  print(line: string): void;
  /** Opens (creates or truncates) an output file; throws a `ReplError` if it cannot. */
  openOutput(path: string): ReplOutput;
  /** Writes a whole file; throws a `ReplError` if it cannot. */
  writeFile(path: string, text: string): void;
  /** Wall-clock milliseconds (for `set speed` only). */
  now(): number;
  /** Waits (for `set speed`, and to let signals through during a long run). */
  sleep(ms: number): Promise<void>;
}

/** The REPL: its stepper, breakpoints and settings. */
export class Repl {
  readonly #s: Stepper;
  readonly #io: ReplIO;
  /** The log's path (for messages and snapshot names). */
  readonly #file: string;
  #breakpoints: Breakpoint[] = [];
  #nextBreakpoint = 1;
  #speed: number;
  #interrupted = false;
  /** The event number a breakpoint last stopped before. */
  #stoppedAt: number | undefined;

  constructor(stepper: Stepper, io: ReplIO, file: string, speed = 0) {
    this.#s = stepper;
    this.#io = io;
    this.#file = file;
    this.#speed = speed;
  }

  /** The stepper (for tests and the exit status). */
  get stepper(): Stepper {
    return this.#s;
  }

  /** Stops a running `step`, `next` or `continue` at its next pause (Ctrl-C on a terminal). */
  interrupt(): void {
    this.#interrupted = true;
  }

  /** The opening lines. */
  banner(): string[] {
    const s = this.#s.sim;
    const c = s.header.config;
    return [
      `[sim] loaded ${this.#file}: snapshot at time ${s.start.time} (seq ${s.start.seq}, line ${s.start.line}); picker ${c.picker}, admission ${c.backfillPolicy}, ${c.totalNodes} nodes`,
      "[sim] ready before the first event; type 'help' for the commands",
    ];
  }

  /** Runs one command line; returns "quit" when the REPL should end. */
  async run(line: string): Promise<"quit" | undefined> {
    const words = line.trim().split(/\s+/).filter((w) => w !== "");
    if (words.length === 0) return undefined;
    try {
      return await this.#dispatch(words);
    } catch (e) {
      // A broken log met on the way stops the command where it is; the
      // session goes on (the state before it can still be inspected).
      if (!(e instanceof ReplError || e instanceof EvtsimError)) throw e;
      this.#io.print(`error: ${e.message}`);
      return undefined;
    }
  }

  async #dispatch(words: string[]): Promise<"quit" | undefined> {
    const [command, ...args] = words;
    const print = (lines: readonly string[]) => lines.forEach((l) => this.#io.print(l));
    switch (command) {
      case "step":
      case "s":
        await this.#runPieces({ pieces: count(args, "step") });
        return;
      case "next":
      case "n":
        await this.#runPieces({ rounds: count(args, "next") });
        return;
      case "continue":
      case "c":
        noArgs(command, args);
        await this.#runPieces({});
        return;
      case "back":
      case "b": {
        const p = args[0] === "session"
          ? this.#s.backSessions(count(args.slice(1), "back session"))
          : this.#s.back(count(args, "back"));
        this.#io.print(`[sim] back at ${where(p.index, p.time, p.round)}`);
        return;
      }
      case "history":
        noArgs(command, args);
        print(historyInfo(this.#s));
        return;
      case "break": {
        const b = parseBreakpoint(this.#nextBreakpoint, args);
        this.#nextBreakpoint++;
        this.#breakpoints.push(b);
        this.#io.print(`breakpoint ${b.id}: ${formatBreakpoint(b)}`);
        return;
      }
      case "delete":
        this.#delete(args);
        return;
      case "info":
        print(this.#info(args));
        return;
      case "snapshot":
        this.#snapshot(args);
        return;
      case "set":
        this.#set(args);
        return;
      case "help":
        print(args[0] === "break" ? FIELDS_HELP : HELP);
        return;
      case "quit":
      case "q":
        this.#s.closeOutput();
        return "quit";
      default:
        throw new ReplError(`unknown command '${command}' (type 'help' for the commands)`);
    }
  }

  #info(args: string[]): string[] {
    const state = this.#s.at.state;
    const [what, arg] = args;
    const one = (lines: string[]) => {
      if (args.length > (arg === undefined ? 1 : 2)) {
        throw new ReplError(`info ${what}: unexpected '${args.slice(2).join(" ")}'`);
      }
      return lines;
    };
    switch (what) {
      case "break":
        return one(
          this.#breakpoints.length === 0
            ? ["no breakpoints"]
            : this.#breakpoints.map((b) => `breakpoint ${b.id}: ${formatBreakpoint(b)}`),
        );
      case "session":
        return one(sessionInfo(this.#s, this.#file));
      case "job":
        return one(jobInfo(state, arg));
      case "queue":
        return one(queueInfo(state, arg));
      case "pending":
        return one(pendingInfo(state));
      case "resource":
        return one(resourceInfo(state));
      case "node":
        return one(nodeInfo(state, this.#s.written, arg));
      case "summary":
        return one([...summaryInfo(state), ...this.#s.utilizationLines()]);
      case "config":
        return one(configInfo(this.#s, this.#speed));
      default:
        throw new ReplError(
          `info ${
            what === undefined ? "needs" : `'${what}' is not one of`
          }: break, session, job ID, queue NAME|all, pending, resource, node NAME, summary, config`,
        );
    }
  }

  #delete(args: string[]): void {
    if (args.length !== 1) throw new ReplError("delete needs a breakpoint id or 'all'");
    if (args[0] === "all") {
      this.#io.print(`deleted ${this.#breakpoints.length} breakpoint(s)`);
      this.#breakpoints = [];
      return;
    }
    const id = Number(args[0]);
    const i = this.#breakpoints.findIndex((b) => b.id === id);
    if (i < 0) {
      throw new ReplError(
        `no breakpoint '${args[0]}' (${
          this.#breakpoints.length === 0
            ? "there are none"
            : `ids: ${this.#breakpoints.map((b) => b.id).join(", ")}`
        })`,
      );
    }
    this.#breakpoints.splice(i, 1);
    this.#io.print(`deleted breakpoint ${id}`);
  }

  #snapshot(args: string[]): void {
    if (args.length > 1) throw new ReplError("snapshot takes one file name");
    const at = this.#s.at;
    const base = this.#file.replace(/^.*\//, "").replace(/\.replay$/, "");
    const path = args[0] ?? `${base}-snap-${at.index}.replay`;
    this.#io.writeFile(path, this.#s.snapshotText());
    this.#io.print(
      `[sim] snapshot at t=${at.state.time} (event #${at.index}) written to ${path}; start from it with 'evtsim replay ${path} --start_time ${at.state.time}'`,
    );
  }

  #set(args: string[]): void {
    const [what, value, ...rest] = args;
    if (value === undefined || rest.length > 0) {
      throw new ReplError("set needs one of: speed X, output FILE|off, verify on|off");
    }
    switch (what) {
      case "speed": {
        const x = Number(value);
        if (!Number.isFinite(x) || x < 0) {
          throw new ReplError(`set speed needs a number 0 or more, got '${value}'`);
        }
        this.#speed = x;
        this.#io.print(`speed=${x}`);
        return;
      }
      case "output":
        if (value === "off") {
          const o = this.#s.closeOutput();
          this.#io.print(
            o === undefined
              ? "output=off (it was not on)"
              : `output=off: ${o.path} closed with ${o.events} log events`,
          );
        } else {
          this.#s.openOutput(this.#io.openOutput(value));
          this.#io.print(
            `output=${value}: from the start of log event seq ${this.#s.seqOf(this.#s.at.item)}`,
          );
        }
        return;
      case "verify":
        if (value !== "on" && value !== "off") {
          throw new ReplError(`set verify needs on or off, got '${value}'`);
        }
        this.#s.verify = value === "on";
        this.#io.print(`verify=${value}`);
        return;
      default:
        throw new ReplError(
          `cannot set '${what}' (set speed X, set output FILE|off, set verify on|off)`,
        );
    }
  }

  // Applies pieces until the limit, a breakpoint or the end of the log.
  // Breakpoints are checked before each piece; not before the first one of
  // `step` and `next` (they always move), nor of a `continue` from the
  // position a breakpoint stopped at (as gdb's continue steps over the
  // breakpoint it is at, also after going back to it).
  async #runPieces(limit: { pieces?: number; rounds?: number }): Promise<void> {
    const checkFirst = limit.pieces === undefined && limit.rounds === undefined &&
      this.#stoppedAt !== this.#s.at.index;
    const s = this.#s;
    if (s.at.ended) throw new ReplError("the re-simulation has ended (try 'back')");
    const types = new Set<EventType>(this.#breakpoints.map((b) => b.type));
    const startRound = s.at.state.round;
    const wall = this.#io.now();
    let lastYield = wall;
    const simStart = s.at.state.time;
    let last: Candidate | undefined;
    this.#interrupted = false;
    for (let n = 0;; n++) {
      const c = s.candidate()!;
      if (this.#breakpoints.length > 0 && (n > 0 || checkFirst)) {
        if (this.#hit(c, types)) return;
      }
      if (this.#speed > 0) {
        const due = wall + ((pieceTime(c) - simStart) / this.#speed) * 1000;
        const wait = due - this.#io.now();
        if (wait > 0) await this.#io.sleep(wait);
      } else if (this.#io.now() - lastYield > 200) {
        await this.#io.sleep(0);
        lastYield = this.#io.now();
      }
      if (this.#interrupted) {
        this.#io.print(
          `[sim] interrupted at ${where(s.at.index, s.at.state.time, s.at.state.round)}`,
        );
        return;
      }
      const applied = s.apply();
      last = c;
      for (const m of applied.mismatches) this.#io.print(mismatchText(s.sim.eventsFile, m));
      if (s.outputError !== undefined) {
        this.#io.print(`error: output ${s.outputError}`);
        s.outputError = undefined;
      }
      const at = applied.position;
      if (at.ended) {
        this.#printEnd();
        return;
      }
      if (limit.pieces !== undefined && n + 1 >= limit.pieces) break;
      if (limit.rounds !== undefined && at.state.round - startRound >= limit.rounds) break;
    }
    const at = s.at;
    if (limit.pieces === 1 && last !== undefined) {
      this.#io.print(`[sim] event #${at.index} at t=${at.state.time}: ${describePiece(last)}`);
      for (const e of eventsOf(last)) this.#io.print(`  ${formatEvent(e)}`);
    } else {
      this.#io.print(`[sim] stopped at ${where(at.index, at.state.time, at.state.round)}`);
    }
  }

  // Every breakpoint the piece matches is reported (several may match one instant).
  #hit(c: Candidate, types: ReadonlySet<EventType>): boolean {
    const at = this.#s.at;
    let hit = false;
    for (const e of eventsOf(c, types)) {
      for (const b of this.#breakpoints) {
        if (!matches(b, e)) continue;
        hit = true;
        this.#io.print(
          `[sim] breakpoint ${b.id} hit before event #${at.index + 1} (t=${c.result.state.time}): ${
            formatEvent(e)
          }`,
        );
      }
    }
    if (hit) this.#stoppedAt = at.index;
    return hit;
  }

  #printEnd(): void {
    const s = this.#s;
    const at = s.at;
    this.#io.print(
      `[sim] end of the log after event #${at.index}: replayed ${at.events} events from the snapshot at time ${s.sim.start.time} (seq ${s.sim.start.seq}, ${this.#file}:${s.sim.start.line}): ${at.sessions} sessions, ${at.decisions} decisions`,
    );
    if (s.verify) {
      this.#io.print(
        at.mismatches === 0
          ? "verify: every decision matches the recording"
          : `verify: ${at.mismatches} decision(s) differ from the recording`,
      );
    }
  }
}

/** "event #12 at t=340 (round 5)". */
function where(index: number, time: number, round: number): string {
  return `event #${index} at t=${time} (round ${round})`;
}

function count(args: readonly string[], command: string): number {
  if (args.length === 0) return 1;
  if (args.length > 1 || !/^[1-9]\d*$/.test(args[0])) {
    throw new ReplError(`${command} takes a count of 1 or more, got '${args.join(" ")}'`);
  }
  return Number(args[0]);
}

function noArgs(command: string, args: readonly string[]): void {
  if (args.length > 0) {
    throw new ReplError(`${command} takes no arguments, got '${args.join(" ")}'`);
  }
}

/** The simulation time a piece is about (for pacing). */
function pieceTime(c: Candidate): number {
  return c.input.kind === "advanceTo" ? c.input.time : c.item.event.entry.time;
}
