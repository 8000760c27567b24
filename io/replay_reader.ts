// Reading a `.replay` log (the format is described in io/replay_log.ts):
// every line is parsed and validated (zod schemas, io/replay_schema.ts) and
// the file's structure is checked as it goes — header first, snapshot
// second, sequence numbers, times never going back, nothing after the end —
// and a problem is one `file:line: …` error. A last line that is not
// complete JSON is a torn write: a warning, and the rest is read.
//
// `LogReader` reads message by message, so a re-simulation holds only what
// it is working on (a whole log held at once costs more in garbage
// collection than reading it); `readLog` and `parseLog` read everything.

import { EvtsimError } from "../core/errors.ts";
import { checkInterrupt } from "../core/_interrupt.ts";
import { describeFsError } from "./fs_errors.ts";
import { configHash, FORMAT_VERSION, type LogEntry } from "./replay_log.ts";
import {
  describeIssue,
  type EventMessage,
  type HeaderMessage,
  isPlainSession,
  type LogMessage,
  MESSAGE_SCHEMAS,
  MESSAGE_TYPES,
  type SessionMessage,
  type SnapshotMessage,
} from "./replay_schema.ts";

/**
 * How a file is read: `log` is a whole log (header, then snapshot, then
 * consecutive events); `events` is an alternative event stream for a
 * what-if re-simulation (any of the messages; sequence numbers need only
 * not go back, so an inserted event may repeat its neighbour's).
 */
export type LogRole = "log" | "events";

/** A log as read whole: every message, validated, and the warnings (a torn last line). */
export interface ReadLog {
  readonly file: string;
  readonly entries: readonly LogEntry[];
  readonly warnings: readonly string[];
}

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
  // Sessions are most of a log's lines: the common ones pass a plain check
  // that accepts only what the schema accepts; anything else goes to zod.
  if (type === "session" && isPlainSession(raw)) return raw as SessionMessage;
  const schema = MESSAGE_SCHEMAS[type as keyof typeof MESSAGE_SCHEMAS];
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw located(file, line, `${type}: ${describeIssue(parsed.error)}`);
  return parsed.data as LogMessage;
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * The header's own facts: its `configHash` is the hash of its `config` (an
 * edited configuration is refused, not run under the old hash).
 */
function checkHeader(h: HeaderMessage, file: string, line: number): void {
  const hash = configHash(h.config as Parameters<typeof configHash>[0]);
  if (h.configHash !== hash) {
    throw located(
      file,
      line,
      `header: configHash ${h.configHash} is not the hash of the header's config (${hash}): the config or the hash was edited`,
    );
  }
}

/**
 * A snapshot against the header: the same configuration (field by field, so
 * the message names the first that differs) and, for the snapshot that
 * starts the log, the header's start time.
 */
function checkAgainstHeader(
  h: HeaderMessage & { line: number },
  snap: SnapshotMessage,
  first: boolean,
  file: string,
  line: number,
): void {
  const a = h.config as Record<string, unknown>;
  const b = snap.state.config as Record<string, unknown>;
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const x = JSON.stringify(a[k]);
    const y = JSON.stringify(b[k]);
    if (x !== y) {
      throw located(
        file,
        line,
        `snapshot: state.config.${k} is ${y ?? "absent"} but the header (line ${h.line}) says ${
          x ?? "absent"
        }`,
      );
    }
  }
  if (first && (snap.time !== h.startTime || snap.state.time !== h.startTime)) {
    throw located(
      file,
      line,
      `snapshot: time ${snap.state.time} is not the header's start time ${h.startTime} (line ${h.line})`,
    );
  }
  if (snap.state.time !== snap.time) {
    throw located(
      file,
      line,
      `snapshot: state.time ${snap.state.time} is not its time ${snap.time}`,
    );
  }
}

/** The structure rules, checked message by message. */
class StructureCheck {
  #count = 0;
  #header: (HeaderMessage & { line: number }) | undefined;
  #nextSeq = -1; // unknown until the first snapshot or event
  #snapshot: (SnapshotMessage & { line: number }) | undefined;
  #lastEvent: (EventMessage & { line: number }) | undefined;
  #ended: number | undefined;

  constructor(readonly file: string, readonly role: LogRole) {}

  check(e: LogEntry): void {
    const file = this.file;
    const n = ++this.#count;
    if (this.role === "log" && n === 1 && e.type !== "header") {
      throw located(file, e.line, `the first message must be a header, got '${e.type}'`);
    }
    if (this.role === "log" && n === 2 && e.type !== "snapshot") {
      throw located(
        file,
        e.line,
        `the second message must be a snapshot (the state to start from), got '${e.type}'`,
      );
    }
    if (this.#ended !== undefined) {
      throw located(file, e.line, `'${e.type}' after the end message (line ${this.#ended})`);
    }
    const last = this.#lastEvent;
    switch (e.type) {
      case "header":
        if (n !== 1) throw located(file, e.line, "a second header");
        checkHeader(e, file, e.line);
        this.#header = e;
        break;
      case "snapshot":
        if (this.#header !== undefined) {
          checkAgainstHeader(
            this.#header,
            e,
            this.role === "log" && this.#snapshot === undefined,
            file,
            e.line,
          );
        }
        if (this.role === "log" && this.#nextSeq >= 0 && e.seq !== this.#nextSeq) {
          throw located(file, e.line, `snapshot seq ${e.seq}: expected ${this.#nextSeq}`);
        }
        if (last !== undefined && e.time < last.time) {
          throw located(
            file,
            e.line,
            `snapshot at time ${e.time} is before the event at line ${last.line} (time ${last.time})`,
          );
        }
        if (this.#nextSeq < 0) this.#nextSeq = e.seq;
        this.#snapshot = e;
        break;
      case "event": {
        if (this.role === "log" && e.seq !== this.#nextSeq) {
          throw located(file, e.line, `event seq ${e.seq}: expected ${this.#nextSeq}`);
        }
        if (this.role === "events" && e.seq < this.#nextSeq - 1) {
          throw located(file, e.line, `event seq ${e.seq} goes back (after ${this.#nextSeq - 1})`);
        }
        const snap = this.#snapshot;
        if (snap !== undefined && e.time < snap.time) {
          throw located(
            file,
            e.line,
            `event at time ${e.time} is before the time ${snap.time} of the snapshot at line ${snap.line}`,
          );
        }
        if (last !== undefined && e.time < last.time) {
          throw located(
            file,
            e.line,
            `event at time ${e.time} goes back (the event at line ${last.line} is at ${last.time})`,
          );
        }
        this.#nextSeq = e.seq + 1;
        this.#lastEvent = e;
        break;
      }
      case "session":
        if (last === undefined) {
          throw located(
            file,
            e.line,
            "a session before any event (a session follows the event that ran it)",
          );
        }
        break;
      case "end":
        if (this.role === "log" && e.seq !== this.#nextSeq) {
          throw located(file, e.line, `end seq ${e.seq}: expected ${this.#nextSeq}`);
        }
        this.#ended = e.line;
        break;
    }
  }

  /** At the end of the file. */
  finish(): void {
    if (this.#count === 0) {
      throw new EvtsimError("input", "empty file: a log starts with a header", { file: this.file });
    }
    if (this.role === "log" && this.#count === 1) {
      throw located(this.file, 1, "the header must be followed by a snapshot");
    }
  }
}

/** Where lines come from: a file read in chunks, or a text. */
interface LineSource {
  /** The next line (without its newline), or undefined at the end. */
  next(): string | undefined;
  close(): void;
}

const CHUNK_BYTES = 1 << 20;

function fileLines(path: string): LineSource {
  let file: Deno.FsFile | null = Deno.openSync(path);
  const decoder = new TextDecoder();
  const buf = new Uint8Array(CHUNK_BYTES);
  let lines: string[] = [];
  let at = 0;
  let carry = "";
  const refill = (): boolean => {
    while (file !== null) {
      const n = file.readSync(buf);
      let text: string;
      if (n === null) {
        text = carry + decoder.decode();
        file.close();
        file = null;
        carry = "";
        lines = text === "" ? [] : [text];
      } else {
        text = carry + decoder.decode(buf.subarray(0, n), { stream: true });
        lines = text.split("\n");
        carry = lines.pop()!;
      }
      at = 0;
      if (lines.length > 0) return true;
    }
    return false;
  };
  return {
    next() {
      if (at < lines.length || refill()) return lines[at++];
      return undefined;
    },
    close() {
      file?.close();
      file = null;
    },
  };
}

function textLines(text: string): LineSource {
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  let at = 0;
  return { next: () => lines[at++], close: () => {} };
}

/**
 * Reads a log message by message: each is parsed, validated and checked
 * against the structure rules before it is handed out.
 */
export class LogReader {
  /** Warnings so far (a torn last line). */
  readonly warnings: string[] = [];
  readonly #lines: LineSource;
  readonly #check: StructureCheck;
  #lineNo = 0;
  #ahead: string | undefined;
  #done = false;

  private constructor(readonly file: string, lines: LineSource, role: LogRole) {
    this.#lines = lines;
    this.#check = new StructureCheck(file, role);
    this.#ahead = lines.next();
  }

  /** Reads the file at `path`; throws an `EvtsimError` if it cannot be opened. */
  static open(path: string, role: LogRole = "log"): LogReader {
    // The first read happens in the constructor: a folder fails there
    // (EISDIR), not at open, and the message must still name the path.
    let lines: LineSource | undefined;
    try {
      lines = fileLines(path);
      return new LogReader(path, lines, role);
    } catch (e) {
      lines?.close();
      if (e instanceof EvtsimError) throw e;
      throw new EvtsimError("input", `cannot read: ${describeFsError(e)}`, { file: path });
    }
  }

  /** Reads a log's text (`file` names it in messages). */
  static fromText(text: string, file: string, role: LogRole = "log"): LogReader {
    return new LogReader(file, textLines(text), role);
  }

  /** The next message, or undefined at the end; throws an `EvtsimError` (file:line). */
  next(): LogEntry | undefined {
    if (this.#done) return undefined;
    const text = this.#ahead;
    if (text === undefined) {
      this.#done = true;
      this.#check.finish();
      return undefined;
    }
    const line = ++this.#lineNo;
    let next: string | undefined;
    try {
      next = this.#lines.next();
    } catch (e) {
      throw new EvtsimError("input", `cannot read: ${describeFsError(e)}`, { file: this.file });
    }
    this.#ahead = next;
    if (text.trim() === "") throw located(this.file, line, "empty line");
    // A CSV, a trace or any other file given as a log: say so, not "torn".
    if (line === 1 && this.#check.role === "log" && !isJson(text)) {
      throw located(this.file, line, "not a .replay log (no header)");
    }
    let msg: LogMessage;
    try {
      msg = parseMessage(text, this.file, line);
    } catch (e) {
      // The last line of a file cut while being written: report it, keep the rest.
      if (next !== undefined || line === 1 || isJson(text)) throw e;
      this.warnings.push(
        `${this.file}:${line}: warning: the last line is cut off (a torn write); it is ignored and the rest is read`,
      );
      return this.next();
    }
    // The schema's output is a fresh object (or the parsed one): the line number goes on it.
    (msg as unknown as { line: number }).line = line;
    this.#check.check(msg as LogEntry);
    return msg as LogEntry;
  }

  /** Stops reading (closes the file). */
  close(): void {
    this.#done = true;
    this.#lines.close();
  }
}

function readAll(reader: LogReader): ReadLog {
  const entries: LogEntry[] = [];
  try {
    for (let e = reader.next(); e !== undefined; e = reader.next()) {
      // A big log reads for seconds in one go: a signal must not wait for it.
      if ((entries.length & 1023) === 0) checkInterrupt();
      entries.push(e);
    }
  } finally {
    reader.close();
  }
  return { file: reader.file, entries, warnings: reader.warnings };
}

/**
 * Reads the whole text of a log (see the module comment). Throws an
 * `EvtsimError` naming `file` and the line for the first problem.
 */
export function parseLog(text: string, file: string, role: LogRole = "log"): ReadLog {
  return readAll(LogReader.fromText(text, file, role));
}

/** Reads and checks a whole log file (see {@link parseLog}). */
export function readLog(path: string, role: LogRole = "log"): ReadLog {
  return readAll(LogReader.open(path, role));
}

/** The header of a log read with role `log`. */
export function headerOf(log: ReadLog): HeaderMessage & { line: number } {
  return log.entries[0] as HeaderMessage & { line: number };
}
