// The `.replay` log (seed 003 Req 5 AC 10–20, in JSON Lines instead of
// Cap'n Proto): one JSON object per line, each with `type` and the format
// `version`:
//
//   header    evtsim version, the configuration (picker, admission, queues…),
//             its sha-256, the simulation clock and wall-clock time when the
//             recording started, the snapshot interval, and whether it is a
//             recording or a re-simulation's own log
//   snapshot  the whole state (core/snapshot.ts) and `seq`, the number of
//             events before it; required right after the header, then every
//             N events
//   event     one input the core consumed (`input` is the reducer input as
//             JSON), `seq` (0, 1, … from the start of the recording) and
//             `time`, the clock when it was given
//   session   one scheduling round that made decisions: its time, round
//             number, decisions in order and a summary (counts, and the wall
//             duration of the step that ran it, which re-simulation ignores)
//   end       the recording stopped cleanly after `seq` events
//
// A session belongs to the event before it: the core runs rounds inside the
// step that applies an input (an advance), so the event comes first and the
// sessions it caused follow it. Rounds that decide nothing write no session.
//
// Reading validates every message with its schema and the file's structure
// (header first, snapshot second, sequence numbers, times never going back)
// and reports a problem as `file:line: …`. A last line that is not complete
// JSON is a torn write: it is reported as a warning and the rest is read.

import { createHash } from "node:crypto";
import denoJson from "../deno.json" with { type: "json" };
import type { DecisionRow, PendReason } from "../core/decisions.ts";
import { EvtsimError } from "../core/errors.ts";
import type { JobUpdate } from "../core/live.ts";
import {
  type ConfigData,
  configData,
  queueDefData,
  queueDefOf,
  snapshotOf,
} from "../core/snapshot.ts";
import type { SimState } from "../core/state.ts";
import type { Input } from "../core/step.ts";
import type { JobSpec } from "../core/types.ts";
import {
  describeIssue,
  type EventMessage,
  type HeaderMessage,
  type InputData,
  type LogDecision,
  type LogMessage,
  MESSAGE_SCHEMAS,
  MESSAGE_TYPES,
  type SessionMessage,
  type SnapshotMessage,
} from "./replay_schema.ts";

/** The log format this program writes and reads. */
export const FORMAT_VERSION = 1;

/** This program's version (deno.json), written into every header. */
export const EVTSIM_VERSION: string = denoJson.version;

// ---- encoding -------------------------------------------------------------

function specData(j: JobSpec): JobSpec {
  const out: { -readonly [K in keyof JobSpec]: JobSpec[K] } = {
    submitTime: j.submitTime,
    numNodes: j.numNodes,
    timeLimit: j.timeLimit,
  };
  if (j.actualRunTime !== undefined) out.actualRunTime = j.actualRunTime;
  if (j.queue !== undefined) out.queue = j.queue;
  if (j.priority !== undefined) out.priority = j.priority;
  return out;
}

const target = (t: number): number | "Infinity" => (t === Infinity ? "Infinity" : t);
const withTime = (t: number | undefined) => (t === undefined ? {} : { time: t });

/** An input as an event message carries it: known fields only, JSON-safe. */
export function inputData(input: Input): InputData {
  switch (input.kind) {
    case "appendJobs":
      return {
        kind: input.kind,
        jobs: input.jobs.map(specData),
        ...(input.submit === undefined ? {} : { submit: input.submit }),
        ...(input.maxStoreCapacity === undefined
          ? {}
          : { maxStoreCapacity: input.maxStoreCapacity }),
      };
    case "submitJob":
      return { kind: input.kind, id: input.id, submitTime: input.submitTime };
    case "advanceTo":
    case "runUntilExclusive":
      return { kind: input.kind, time: target(input.time) };
    case "runToCompletion":
    case "flush":
    case "finish":
      return { kind: input.kind };
    case "cancelJob":
      return { kind: input.kind, id: input.id, ...withTime(input.time) };
    case "endJob":
      return {
        kind: input.kind,
        id: input.id,
        ...withTime(input.time),
        ...(input.outcome === undefined ? {} : { outcome: input.outcome }),
        ...(input.exitStatus === undefined ? {} : { exitStatus: input.exitStatus }),
      };
    case "updateJob": {
      const u: JobUpdate = input.update;
      return {
        kind: input.kind,
        id: input.id,
        update: {
          ...(u.priority === undefined ? {} : { priority: u.priority }),
          ...(u.queue === undefined ? {} : { queue: u.queue }),
        },
        ...withTime(input.time),
      };
    }
    case "updateQueue":
      return { kind: input.kind, queue: queueDefData(input.queue), ...withTime(input.time) };
    case "changeCapacity":
      return { kind: input.kind, capacity: input.capacity, ...withTime(input.time) };
    case "replayJobs":
      throw new EvtsimError(
        "state",
        "the replay of a recorded schedule cannot be recorded: it makes no decisions",
      );
  }
}

/** The reducer input an event message stands for. */
export function inputOf(d: InputData): Input {
  switch (d.kind) {
    case "advanceTo":
    case "runUntilExclusive":
      return { kind: d.kind, time: d.time === "Infinity" ? Infinity : d.time };
    case "updateQueue":
      return { kind: d.kind, queue: queueDefOf(d.queue), ...withTime(d.time) };
    default:
      return d as Input;
  }
}

function reasonData(r: PendReason): PendReason {
  const out: { -readonly [K in keyof PendReason]: PendReason[K] } = {
    code: r.code,
    message: r.message,
  };
  if (r.needed !== undefined) out.needed = r.needed;
  if (r.free !== undefined) out.free = r.free;
  if (r.end !== undefined) out.end = r.end;
  if (r.reservation !== undefined) out.reservation = r.reservation;
  if (r.blockedBy !== undefined) out.blockedBy = r.blockedBy;
  if (r.queue !== undefined) out.queue = r.queue;
  return out;
}

/** A decision as a session carries it (its time and round are the session's). */
export function logDecision(d: DecisionRow): LogDecision {
  if (d.type === "PEND") return { type: "PEND", jobId: d.jobId, reason: reasonData(d.reason) };
  return {
    type: "DISPATCH",
    jobId: d.jobId,
    numNodes: d.numNodes,
    backfill: d.backfill,
    ...(d.queue === undefined ? {} : { queue: d.queue }),
  };
}

/** The decision row a session's decision stands for. */
export function decisionRow(d: LogDecision, time: number, round: number): DecisionRow {
  return d.type === "PEND"
    ? { type: "PEND", time, round, jobId: d.jobId, reason: d.reason }
    : { ...d, time, round };
}

/** `sha256:<hex>` of a configuration's JSON. */
export function configHash(config: ConfigData): string {
  return "sha256:" + createHash("sha256").update(JSON.stringify(config)).digest("hex");
}

/** What a log's header says besides the configuration (taken from the state). */
export interface HeaderFacts {
  /** Wall-clock start (ISO 8601), or null for a re-simulation's own log. */
  readonly wallStart: string | null;
  /** Events between periodic snapshots (0 = none). */
  readonly snapshotInterval: number;
  /** A recording of a run, or the log a re-simulation writes. */
  readonly origin: "recording" | "resimulation";
}

/**
 * Encodes messages as lines. Each method returns the line (with its
 * newline); the caller decides when to hand lines to a sink.
 */
export const encode = {
  header(state: SimState, facts: HeaderFacts): string {
    const config = configData(state.config);
    const msg = {
      type: "header",
      version: FORMAT_VERSION,
      evtsim: EVTSIM_VERSION,
      config,
      configHash: configHash(config),
      startTime: state.time,
      wallStart: facts.wallStart,
      snapshotInterval: facts.snapshotInterval,
      origin: facts.origin,
    };
    return JSON.stringify(msg) + "\n";
  },
  snapshot(seq: number, state: SimState): string {
    const msg = {
      type: "snapshot",
      version: FORMAT_VERSION,
      seq,
      time: state.time,
      state: snapshotOf(state),
    };
    return JSON.stringify(msg) + "\n";
  },
  event(seq: number, time: number, input: Input): string {
    const msg: EventMessage = {
      type: "event",
      version: FORMAT_VERSION,
      seq,
      time,
      input: inputData(input),
    };
    return JSON.stringify(msg) + "\n";
  },
  /** One session line per round among `decisions` (grouped as they come). */
  sessions(decisions: readonly DecisionRow[], wallMs: number): string {
    let out = "";
    for (let i = 0; i < decisions.length;) {
      const { time, round } = decisions[i];
      const group: LogDecision[] = [];
      let dispatched = 0;
      for (; i < decisions.length && decisions[i].round === round; i++) {
        const d = decisions[i];
        if (d.type === "DISPATCH") dispatched++;
        group.push(logDecision(d));
      }
      const msg: SessionMessage = {
        type: "session",
        version: FORMAT_VERSION,
        time,
        round,
        decisions: group,
        summary: {
          decisions: group.length,
          dispatched,
          pended: group.length - dispatched,
          wallMs,
        },
      };
      out += JSON.stringify(msg) + "\n";
    }
    return out;
  },
  end(seq: number, time: number): string {
    return JSON.stringify({ type: "end", version: FORMAT_VERSION, seq, time }) + "\n";
  },
};

// ---- reading --------------------------------------------------------------

/** A message and the line it was read from (1-based). */
export type LogEntry = LogMessage & { readonly line: number };

/** A log as read: every message, validated, and the warnings (a torn last line). */
export interface ReadLog {
  readonly file: string;
  readonly entries: readonly LogEntry[];
  readonly warnings: readonly string[];
}

/**
 * How a file is read: `log` is a whole log (header, then snapshot, then
 * consecutive events); `events` is an alternative event stream for a
 * what-if re-simulation (any of the messages; sequence numbers need only
 * not go back, so an inserted event may repeat its neighbour's).
 */
export type LogRole = "log" | "events";

function located(file: string, line: number, detail: string): EvtsimError {
  return new EvtsimError("input", detail, { file, line });
}

function parseMessage(text: string, file: string, line: number): LogMessage {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw located(file, line, "not a JSON message (a line torn in the middle of the file)");
  }
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    throw located(file, line, "a message must be a JSON object");
  }
  const { type, version } = raw as { type?: unknown; version?: unknown };
  if (typeof type !== "string") throw located(file, line, "type: required");
  if (!(MESSAGE_TYPES as string[]).includes(type)) {
    throw located(
      file,
      line,
      `unknown message type '${type}' (expected ${MESSAGE_TYPES.join(", ")})`,
    );
  }
  if (typeof version !== "number" || !Number.isInteger(version) || version < 1) {
    throw located(file, line, `${type}: version: expected a positive integer`);
  }
  if (version > FORMAT_VERSION) {
    throw located(
      file,
      line,
      `${type}: version ${version} is newer than this program reads (${FORMAT_VERSION}); upgrade evtsim`,
    );
  }
  const schema = MESSAGE_SCHEMAS[type as keyof typeof MESSAGE_SCHEMAS];
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw located(file, line, `${type}: ${describeIssue(parsed.error)}`);
  return parsed.data as LogMessage;
}

/**
 * Reads the text of a log (see the module comment). Throws an `EvtsimError`
 * naming `file` and the line for the first problem.
 */
export function parseLog(text: string, file: string, role: LogRole = "log"): ReadLog {
  const lines = text.split("\n");
  // A file that ends with a newline has an empty last piece: not a line.
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  if (lines.length === 0) {
    throw new EvtsimError("input", "empty file: a log starts with a header", { file });
  }
  const entries: LogEntry[] = [];
  const warnings: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = i + 1;
    if (lines[i].trim() === "") throw located(file, line, "empty line");
    let msg: LogMessage;
    try {
      msg = parseMessage(lines[i], file, line);
    } catch (e) {
      const torn = i === lines.length - 1 && i > 0 && !isJson(lines[i]);
      if (!torn) throw e;
      warnings.push(
        `${file}:${line}: warning: the last line is cut off (a torn write); it is ignored and the rest is read`,
      );
      break;
    }
    entries.push({ ...msg, line });
  }
  checkStructure(entries, file, role);
  return { file, entries, warnings };
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function checkStructure(entries: readonly LogEntry[], file: string, role: LogRole): void {
  const first = entries[0];
  if (role === "log" && first.type !== "header") {
    throw located(file, first.line, `the first message must be a header, got '${first.type}'`);
  }
  const second = entries[1];
  if (role === "log" && second === undefined) {
    throw located(file, first.line, "the header must be followed by a snapshot");
  }
  if (role === "log" && second.type !== "snapshot") {
    throw located(
      file,
      second.line,
      `the second message must be a snapshot (the state to start from), got '${second.type}'`,
    );
  }
  let nextSeq = -1; // unknown until the first snapshot or event
  let snapshot: SnapshotMessage & { line: number } | undefined;
  let lastEvent: EventMessage & { line: number } | undefined;
  let ended: number | undefined;
  for (const e of entries) {
    if (ended !== undefined) {
      throw located(file, e.line, `'${e.type}' after the end message (line ${ended})`);
    }
    switch (e.type) {
      case "header":
        if (e !== first) throw located(file, e.line, "a second header");
        break;
      case "snapshot":
        if (role === "log" && nextSeq >= 0 && e.seq !== nextSeq) {
          throw located(file, e.line, `snapshot seq ${e.seq}: expected ${nextSeq}`);
        }
        if (lastEvent !== undefined && e.time < lastEvent.time) {
          throw located(
            file,
            e.line,
            `snapshot at time ${e.time} is before the event at line ${lastEvent.line} (time ${lastEvent.time})`,
          );
        }
        if (nextSeq < 0) nextSeq = e.seq;
        snapshot = e;
        break;
      case "event":
        if (role === "log" && e.seq !== nextSeq) {
          throw located(file, e.line, `event seq ${e.seq}: expected ${nextSeq}`);
        }
        if (role === "events" && e.seq < nextSeq - 1) {
          throw located(file, e.line, `event seq ${e.seq} goes back (after ${nextSeq - 1})`);
        }
        if (snapshot !== undefined && e.time < snapshot.time) {
          throw located(
            file,
            e.line,
            `event at time ${e.time} is before the time ${snapshot.time} of the snapshot at line ${snapshot.line}`,
          );
        }
        if (lastEvent !== undefined && e.time < lastEvent.time) {
          throw located(
            file,
            e.line,
            `event at time ${e.time} goes back (the event at line ${lastEvent.line} is at ${lastEvent.time})`,
          );
        }
        nextSeq = e.seq + 1;
        lastEvent = e;
        break;
      case "session":
        if (lastEvent === undefined) {
          throw located(
            file,
            e.line,
            "a session before any event (a session follows the event that ran it)",
          );
        }
        break;
      case "end":
        if (role === "log" && e.seq !== nextSeq) {
          throw located(file, e.line, `end seq ${e.seq}: expected ${nextSeq}`);
        }
        ended = e.line;
        break;
    }
  }
}

/** Reads and checks a log file (see {@link parseLog}). */
export async function readLog(path: string, role: LogRole = "log"): Promise<ReadLog> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (e) {
    throw new EvtsimError("input", `cannot read: ${(e as Error).message}`, { file: path });
  }
  return parseLog(text, path, role);
}

/** The header of a log read with role `log`. */
export function headerOf(log: ReadLog): HeaderMessage & { line: number } {
  return log.entries[0] as HeaderMessage & { line: number };
}
