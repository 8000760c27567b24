// Recording a run into a `.replay` log (io/replay_log.ts): a header and a
// snapshot of the state when recording starts (so a recording may start in
// the middle of a run), then for every step the input as an `event` and the
// rounds it ran as `session`s, a snapshot every N events, and `end` when it
// stops. Used by `Simulation` (start and stop at any time) and by
// `evtsim simulate --record`.
//
// While recording, decisions are on: the state is switched to the level the
// recording asks for (default "heads": DISPATCH rows and the PEND rows the
// admission policy's own path makes, which costs no more than a run without
// decisions) before the first snapshot, so the snapshot already carries the
// level and a re-simulation emits the same decisions. When recording stops
// the previous level is restored (after the end message).
//
// Each step's lines are built once and handed to the sink in one `write`.
// A sink that throws stops the recording; the simulation goes on.

import type { ResolvedConfig } from "../core/config.ts";
import { EvtsimError } from "../core/errors.ts";
import { withDecisions } from "../core/reconfigure.ts";
import type { SimState } from "../core/state.ts";
import type { Input, StepResult } from "../core/step.ts";
import { encode } from "../io/replay_log.ts";
import type { PolicyModuleRef } from "../io/replay_schema.ts";

/**
 * Where a recording goes: `write` receives whole lines (each ending in a
 * newline), in order; `close`, if given, is called once when recording stops.
 * A sink that throws stops the recording (the simulation goes on).
 *
 * @example
 * ```ts
 * import { type RecordingSink, Simulation } from "@evtsim/evtsim";
 * const lines: string[] = [];
 * const sink: RecordingSink = { write: (text) => void lines.push(...text.trimEnd().split("\n")) };
 * const sim = new Simulation({ totalNodes: 4 });
 * sim.startRecording(sink);
 * sim.appendJob({ submitTime: 0, numNodes: 4, timeLimit: 10 });
 * sim.stopRecording();
 * const types = lines.map((l) => JSON.parse(l).type).join();
 * if (types !== "header,snapshot,event,end") throw new Error(types);
 * ```
 */
export interface RecordingSink {
  /** Appends `text`: one or more complete JSON lines. */
  write(text: string): void;
  /** Flushes and closes; called once when the recording stops. */
  close?(): void;
}

/**
 * Options of a recording.
 *
 * @example
 * ```ts
 * import { type RecordingOptions, Simulation } from "@evtsim/evtsim";
 * let text = "";
 * const options: RecordingOptions = { snapshotInterval: 1, decisions: true };
 * const sim = new Simulation({ totalNodes: 4 });
 * sim.startRecording({ write: (t) => void (text += t) }, options);
 * sim.appendJob({ submitTime: 0, numNodes: 4, timeLimit: 10 });
 * sim.stopRecording();
 * // A snapshot after every event: header, snapshot, event, snapshot, end.
 * if (text.trimEnd().split("\n").length !== 5) throw new Error(text);
 * ```
 */
export interface RecordingOptions {
  /** Write a snapshot after every N events (default 1000; 0 = only the first). */
  readonly snapshotInterval?: number;
  /**
   * The decision level recorded when the simulation has decisions off:
   * `"heads"` (default) or `true` (a PEND row whenever any waiting job's
   * reason changes; costs a walk over the wait queue per round). A
   * simulation that already emits decisions is recorded at its own level.
   */
  readonly decisions?: true | "heads";
  /** Told when the sink fails and the recording stops. */
  readonly onError?: (error: Error) => void;
  /**
   * The modules the run's own policies came from (absolute path and SHA-256
   * of the source), named in the header so that a replay can load them
   * again (`evtsim replay` does; `evtsim simulate --policy_module` fills it).
   */
  readonly policyModules?: readonly PolicyModuleRef[];
}

/**
 * What a recording is doing.
 *
 * @example
 * ```ts
 * import { type RecordingStatus, Simulation } from "@evtsim/evtsim";
 * const sim = new Simulation({ totalNodes: 4 });
 * sim.advanceTo(7);
 * sim.startRecording({ write: () => {} });
 * sim.advanceTo(9);
 * const status: RecordingStatus = sim.recordingStatus();
 * if (!status.recording || status.events !== 1 || status.startedAt !== 7) throw new Error("status");
 * ```
 */
export interface RecordingStatus {
  /** Whether a recording is running. */
  readonly recording: boolean;
  /** Events written by the current (or the last) recording. */
  readonly events: number;
  /** Simulation clock when the current (or the last) recording started. */
  readonly startedAt?: number;
  /** Why the last recording stopped by itself (its sink failed). */
  readonly error?: string;
}

/** The default number of events between periodic snapshots. */
export const DEFAULT_SNAPSHOT_INTERVAL = 1000;

/** One recording in progress. */
export class Recorder {
  #sink: RecordingSink | undefined;
  readonly #interval: number;
  readonly #onError: ((error: Error) => void) | undefined;
  /** The decision level before recording started (restored at the end). */
  readonly previousDecisions: ResolvedConfig["decisions"];
  /** The state recording started from (decisions on). */
  readonly initial: SimState;
  readonly startedAt: number;
  #events = 0;
  #error: Error | undefined;

  /**
   * Writes the header and the first snapshot of `state` (switched to the
   * recording's decision level; see `initial`). Throws an `EvtsimError` if
   * the sink fails right away: then nothing is recording.
   */
  constructor(sink: RecordingSink, state: SimState, options: RecordingOptions = {}) {
    const interval = options.snapshotInterval ?? DEFAULT_SNAPSHOT_INTERVAL;
    if (!Number.isSafeInteger(interval) || interval < 0) {
      throw new EvtsimError(
        "usage",
        `snapshot interval must be a non-negative integer, got ${interval}`,
      );
    }
    const level = options.decisions ?? "heads";
    if (level !== true && level !== "heads") {
      throw new EvtsimError("usage", `recorded decisions must be true or "heads", got ${level}`);
    }
    this.#interval = interval;
    this.#onError = options.onError;
    this.previousDecisions = state.config.decisions;
    this.initial = state.config.decisions === false ? withDecisions(state, level) : state;
    this.startedAt = state.time;
    const text = encode.header(this.initial, {
      wallStart: new Date().toISOString(),
      snapshotInterval: interval,
      origin: "recording",
      ...(options.policyModules !== undefined ? { policyModules: options.policyModules } : {}),
    }) + encode.snapshot(0, this.initial);
    try {
      sink.write(text);
    } catch (e) {
      throw new EvtsimError("input", `cannot write the recording: ${(e as Error).message}`);
    }
    this.#sink = sink;
  }

  /** Whether the recording still runs (its sink has not failed). */
  get active(): boolean {
    return this.#sink !== undefined;
  }

  /** Events written so far. */
  get events(): number {
    return this.#events;
  }

  /** Whether a snapshot follows the next recorded event. */
  get snapshotNext(): boolean {
    return this.#interval > 0 && (this.#events + 1) % this.#interval === 0;
  }

  /** The sink's failure, if it stopped the recording. */
  get error(): Error | undefined {
    return this.#error;
  }

  /**
   * Records one applied step: `input` given at clock `timeBefore`, its
   * result, and the wall time it took. Returns false if the sink failed
   * (the recording has stopped).
   */
  record(input: Input, timeBefore: number, result: StepResult, wallMs: number): boolean {
    const sink = this.#sink;
    if (sink === undefined) return false;
    const seq = this.#events;
    let text = encode.event(seq, timeBefore, input);
    if (result.rows.decisions.length > 0) {
      text += encode.sessions(result.rows.decisions, wallMs);
    }
    if (this.#interval > 0 && (seq + 1) % this.#interval === 0) {
      text += encode.snapshot(seq + 1, result.state);
    }
    try {
      sink.write(text);
    } catch (e) {
      this.#fail(e as Error);
      return false;
    }
    this.#events = seq + 1;
    return true;
  }

  /** Writes the end message at clock `time`, closes the sink; returns the event count. */
  stop(time: number): number {
    const sink = this.#sink;
    if (sink !== undefined) {
      try {
        sink.write(encode.end(this.#events, time));
        sink.close?.();
        this.#sink = undefined;
      } catch (e) {
        this.#fail(e as Error);
      }
    }
    return this.#events;
  }

  #fail(e: Error): void {
    const sink = this.#sink;
    this.#sink = undefined;
    this.#error = e;
    try {
      sink?.close?.();
    } catch { /* the sink is broken already */ }
    this.#onError?.(e);
  }
}

/**
 * A sink that appends to a file, buffered: what has been written is on disk
 * after `close` (and in chunks as the buffer fills), so an interrupted
 * recording leaves a prefix whose last line may be torn, which readers
 * report and skip.
 *
 * @example
 * ```ts
 * import { fileRecordingSink, Simulation } from "@evtsim/evtsim";
 * const path = await Deno.makeTempFile({ suffix: ".replay" });
 * const sim = new Simulation({ totalNodes: 4 });
 * sim.startRecording(fileRecordingSink(path));
 * sim.appendJob({ submitTime: 0, numNodes: 2, timeLimit: 5 });
 * sim.stopRecording();
 * const lines = (await Deno.readTextFile(path)).trimEnd().split("\n");
 * if (JSON.parse(lines[lines.length - 1]).type !== "end") throw new Error("an end message last");
 * await Deno.remove(path);
 * ```
 */
export function fileRecordingSink(path: string): RecordingSink {
  const file = Deno.openSync(path, { write: true, create: true, truncate: true });
  const encoder = new TextEncoder();
  let parts: string[] = [];
  let chars = 0;
  const drain = () => {
    if (parts.length === 0) return;
    const bytes = encoder.encode(parts.join(""));
    parts = [];
    chars = 0;
    let off = 0;
    while (off < bytes.length) off += file.writeSync(bytes.subarray(off));
  };
  return {
    write(text) {
      parts.push(text);
      chars += text.length;
      if (chars >= 1 << 20) drain();
    },
    close() {
      try {
        drain();
      } finally {
        file.close();
      }
    },
  };
}
