// The session layer of `evtsim serve`: independent `Simulation`s, each a
// DR_EVT streaming session, behind random 128-bit ids. Both fronts (HTTP in
// http.ts, gRPC in grpc.ts) validate their requests and call these methods;
// neither touches a `Simulation` directly, so both give the same answers
// for the same calls.
//
// Every operation is synchronous (no `await` between reading and changing
// a session), so concurrent requests on one session are applied one at a
// time in arrival order, and a failed call changes nothing (the
// `Simulation` contract). Errors are `ServiceError`s carrying the HTTP
// status a front reports.

import type { DecisionRow, PendReason } from "../../core/decisions.ts";
import { EvtsimError } from "../../core/errors.ts";
import type { BackfillWindow } from "../../core/queries.ts";
import type { Statistics } from "../../core/statistics.ts";
import type { JobRow, JobSpec, Notice, ResourceRow, SimulationConfig } from "../../core/types.ts";
import type { RecordingSink, RecordingStatus } from "../recorder.ts";
import { Simulation } from "../simulation.ts";

/** Parameters a session is created with (checked by the fronts' schemas first). */
export interface SessionParams extends
  Pick<
    SimulationConfig,
    | "totalNodes"
    | "backfillPolicy"
    | "priorityPolicy"
    | "queues"
    | "decisions"
    | "runTimeMode"
    | "runTimeDistribution"
    | "runTimeScale"
    | "runTimeStddev"
    | "seed"
    | "startTime"
    | "pickerSettings"
    | "onCapacityCut"
    | "capacitySemantics"
  > {
  /** A label, used in recording file names (letters, digits, `.`, `_`, `-`). */
  readonly name?: string;
  /** A picker of the default registry by name. */
  readonly picker?: string;
}

/** An error reply: the HTTP status, a machine-readable kind and one line. */
export class ServiceError extends Error {
  constructor(
    readonly status: 400 | 401 | 404 | 409 | 413 | 429 | 500,
    readonly kind: string,
    message: string,
  ) {
    super(message);
    this.name = "ServiceError";
  }
}

/** The HTTP status of an `EvtsimError` kind: bad arguments 400, refused by the state 409. */
export function serviceError(e: unknown): ServiceError {
  if (e instanceof ServiceError) return e;
  if (e instanceof EvtsimError) {
    const status = e.kind === "usage" || e.kind === "input" ? 400 : 409;
    return new ServiceError(status, e.kind, e.message);
  }
  throw e;
}

/** What the monitors of a session read. */
export interface SessionMonitors {
  readonly sessionId: string;
  readonly name: string;
  readonly currentTime: number;
  readonly nodesInUse: number;
  readonly availableNodes: number;
  readonly activeJobCount: number;
  readonly headShadowTime: number;
  readonly totalJobs: number;
}

/** The rows one call made final besides job and resource rows. */
export interface CallRows {
  readonly decisions: readonly DecisionRow[];
  readonly notices: readonly Notice[];
}

/** A session's recording status, with the file it writes (or wrote). */
export interface SessionRecordingStatus extends RecordingStatus {
  readonly file?: string;
}

/** What `finish` returns. */
export interface SessionOutput {
  readonly sessionId: string;
  readonly jobs: readonly JobRow[];
  readonly resources: readonly ResourceRow[];
  readonly notices: readonly Notice[];
  readonly decisions: readonly DecisionRow[];
  readonly statistics: Statistics;
  readonly recording: SessionRecordingStatus;
}

/** Options of a {@link SessionHost}. */
export interface SessionHostOptions {
  /** Where recordings go; with it every session records from its start. */
  readonly recordDir?: string;
  /** Most sessions open at once (default 64). */
  readonly maxSessions?: number;
  /** Opens a recording file (default: {@link writeThroughSink}); tests inject failures. */
  readonly openSink?: (path: string) => RecordingSink;
  /** Snapshot interval of recordings (default 1000 events). */
  readonly snapshotInterval?: number;
}

const NAME = /^[A-Za-z0-9._-]{1,64}$/;

/** A random 128-bit session id, as 32 hex digits. */
export function newSessionId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * A recording file that writes every step's lines at once (no buffer), so a
 * server that is killed leaves a log that ends at the last answered call.
 */
export function writeThroughSink(path: string): RecordingSink {
  const file = Deno.openSync(path, { write: true, createNew: true });
  const encoder = new TextEncoder();
  return {
    write(text) {
      const bytes = encoder.encode(text);
      let off = 0;
      while (off < bytes.length) off += file.writeSync(bytes.subarray(off));
    },
    close() {
      file.close();
    },
  };
}

/** One live session: a `Simulation` and what it has reported so far. */
export class Session {
  readonly id: string;
  readonly name: string;
  readonly #sim: Simulation;
  readonly #host: SessionHost;
  readonly #decisions: DecisionRow[] = [];
  readonly #notices: Notice[] = [];
  #recordings = 0;
  #file: string | undefined;

  constructor(host: SessionHost, id: string, params: SessionParams) {
    const { name, ...config } = params;
    if (name !== undefined && !NAME.test(name)) {
      throw new ServiceError(400, "usage", `session name must match ${NAME.source}, got '${name}'`);
    }
    this.id = id;
    this.name = name ?? "session";
    this.#host = host;
    try {
      // A decision sink switches decisions on (at every PEND): only when asked for.
      const wants = config.decisions !== undefined && config.decisions !== false;
      this.#sim = new Simulation(config, {
        ...(wants ? { onDecision: (d: DecisionRow) => void this.#decisions.push(d) } : {}),
        onNotice: (n) => void this.#notices.push(n),
      });
    } catch (e) {
      throw serviceError(e);
    }
  }

  /** Runs `f` on the simulation; maps its errors; returns its result and the rows it made. */
  call<T>(f: (sim: Simulation) => T): { result: T } & CallRows {
    const start = { decisions: this.#decisions.length, notices: this.#notices.length };
    let result: T;
    try {
      result = f(this.#sim);
    } catch (e) {
      this.#decisions.length = start.decisions;
      this.#notices.length = start.notices;
      throw serviceError(e);
    }
    return {
      result,
      decisions: this.#decisions.slice(start.decisions),
      notices: this.#notices.slice(start.notices),
    };
  }

  /** Appends jobs (all or nothing); `submit: false` only stores them (DR_EVT's gRPC append). */
  append(jobs: readonly JobSpec[], submit = true): { result: number[] } & CallRows {
    return this.call((sim) => sim.appendJobs(jobs, { submit }));
  }

  /** The monitors: clock, nodes, waiting jobs, the head's shadow time. */
  monitors(): SessionMonitors {
    const sim = this.#sim;
    return {
      sessionId: this.id,
      name: this.name,
      currentTime: sim.currentTime,
      nodesInUse: sim.nodesInUse,
      availableNodes: sim.availableNodes,
      activeJobCount: sim.activeJobCount,
      headShadowTime: sim.headShadowTime(),
      totalJobs: sim.statistics().totalJobs,
    };
  }

  statistics(): Statistics {
    return this.#sim.statistics();
  }

  backfillWindow(): BackfillWindow {
    return this.#sim.backfillWindow();
  }

  /** Why a waiting job waits (404 for a job that is not waiting, or that does not exist: each says which). */
  pendingReason(job: number): PendReason {
    let r: PendReason | undefined;
    try {
      r = this.call((sim) => sim.pendingReason(job)).result;
    } catch (e) {
      if (e instanceof ServiceError && e.kind === "state") {
        throw new ServiceError(404, "not_found", e.message);
      }
      throw e;
    }
    if (r === undefined) throw new ServiceError(404, "not_found", `job ${job} is not waiting`);
    return r;
  }

  /** Starts a recording into the host's folder; returns the file it writes. */
  startRecording(): string {
    const dir = this.#host.recordDir;
    if (dir === undefined) {
      throw new ServiceError(409, "state", "recording needs the server's --record_dir");
    }
    if (this.#sim.isRecording) throw new ServiceError(409, "state", "already recording");
    const n = this.#recordings + 1;
    const file = `${dir.replace(/\/+$/, "")}/${this.name}-${this.id}${n > 1 ? `-${n}` : ""}.replay`;
    let sink: RecordingSink;
    try {
      sink = this.#host.openSink(file);
    } catch (e) {
      throw new ServiceError(500, "io", `cannot open ${file}: ${(e as Error).message}`);
    }
    try {
      this.#sim.startRecording(sink, { snapshotInterval: this.#host.snapshotInterval });
    } catch (e) {
      try {
        sink.close?.();
      } catch { /* already failing */ }
      throw new ServiceError(500, "io", (e as Error).message);
    }
    this.#recordings = n;
    this.#file = file;
    return file;
  }

  /** Stops the recording; returns the number of events it holds. */
  stopRecording(): number {
    if (!this.#sim.isRecording) throw new ServiceError(409, "state", "not recording");
    return this.#sim.stopRecording();
  }

  recordingStatus(): SessionRecordingStatus {
    const s = this.#sim.recordingStatus();
    return this.#file === undefined ? s : { ...s, file: this.#file };
  }

  /** Runs the session to its end (or stops at the clock) and returns everything it wrote. */
  finish(runToCompletion = true): SessionOutput {
    const out = this.call((sim) => sim.finish({ runToCompletion })).result;
    if (this.#sim.isRecording) this.#sim.stopRecording();
    return {
      sessionId: this.id,
      jobs: out.jobs,
      resources: out.resources,
      notices: this.#notices.slice(),
      decisions: this.#decisions.slice(),
      statistics: out.statistics,
      recording: this.recordingStatus(),
    };
  }

  /** Ends a recording that is still running (the session is being dropped). */
  close(): void {
    if (this.#sim.isRecording) this.#sim.stopRecording();
  }
}

/** The sessions of one server. */
export class SessionHost {
  readonly recordDir: string | undefined;
  readonly maxSessions: number;
  readonly openSink: (path: string) => RecordingSink;
  readonly snapshotInterval: number | undefined;
  readonly #sessions = new Map<string, Session>();

  constructor(options: SessionHostOptions = {}) {
    this.recordDir = options.recordDir;
    this.maxSessions = options.maxSessions ?? 64;
    this.openSink = options.openSink ?? writeThroughSink;
    this.snapshotInterval = options.snapshotInterval;
  }

  /** Sessions open now. */
  get size(): number {
    return this.#sessions.size;
  }

  /** Creates a session; with a record folder it records from its start. */
  create(params: SessionParams): Session {
    if (this.#sessions.size >= this.maxSessions) {
      throw new ServiceError(
        429,
        "capacity",
        `too many sessions (--max_sessions ${this.maxSessions})`,
      );
    }
    let id = newSessionId();
    while (this.#sessions.has(id)) id = newSessionId();
    const session = new Session(this, id, params);
    if (this.recordDir !== undefined) session.startRecording();
    this.#sessions.set(id, session);
    return session;
  }

  /** The session `id`; 404 if there is none. */
  get(id: string): Session {
    const s = this.#sessions.get(id);
    if (s === undefined) throw new ServiceError(404, "not_found", `no session '${id}'`);
    return s;
  }

  /** Finishes session `id` and drops it; returns its output. */
  finish(id: string, runToCompletion = true): SessionOutput {
    const out = this.get(id).finish(runToCompletion);
    this.#sessions.delete(id);
    return out;
  }

  /** Drops session `id` without finishing it (its recording is ended cleanly). */
  discard(id: string): void {
    this.get(id).close();
    this.#sessions.delete(id);
  }

  /** Ends every session's recording and drops them all (server shutdown). */
  closeAll(): void {
    for (const s of this.#sessions.values()) {
      try {
        s.close();
      } catch { /* shutting down: keep closing the others */ }
    }
    this.#sessions.clear();
  }
}
