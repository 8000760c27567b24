// The sessions of one server. Each session runs where its engine work cannot
// hold up anything else: by default in a worker of its own (a Deno Worker,
// one thread per session), so a call that steps 20,000 jobs leaves /health
// and every other session answering at once. The host keeps, per session,
// the calls in arrival order (one runs at a time, as before), a time budget
// per call, and when it was last used; it ends sessions that are deleted,
// over budget or idle, and ends their recordings cleanly itself when their
// worker had to be stopped mid-call.
//
// `isolation: "inline"` runs sessions on the host's own thread instead (one
// call cannot then be abandoned or limited while it runs): for embedding
// and for tests that inject a failing recording sink.

import { encode } from "../../io/replay_log.ts";
import type { PolicyRegistry } from "../../core/policies.ts";
import type { Machine } from "../../core/machine.ts";
import { checkJsonBounds } from "../../core/_json_bounds.ts";
import type { RecordingSink } from "../recorder.ts";
import {
  opError,
  type OpReply,
  type SessionInit,
  type SessionOp,
  SessionPlace,
} from "./_session_ops.ts";
import { type Runner, WorkerPool, WorkerRunner } from "./_worker_pool.ts";
import type { ExternalOptions } from "./_external.ts";
import { newChannel } from "./_external_channel.ts";
import { noRound, RoundWait } from "./_external_rounds.ts";

export { AwaitingRound } from "./_external_rounds.ts";
import {
  newSessionId,
  type RecordingMark,
  ServiceError,
  type SessionMetricOptions,
  type SessionParams,
  withMetricDefaults,
} from "./sessions.ts";

/** Options of a {@link SessionHost}. */
export interface SessionHostOptions {
  /** Where recordings go; with it every session records from its start. */
  readonly recordDir?: string;
  /** Most sessions open at once (default 64). */
  readonly maxSessions?: number;
  /** Snapshot interval of recordings (default 1000 events). */
  readonly snapshotInterval?: number;
  /** A session idle this many seconds is ended (default 1800; 0 = never). */
  readonly sessionIdleTimeout?: number;
  /** Longest one call may run, in seconds (default 300); then the session is ended (503). */
  readonly callTimeLimit?: number;
  /** A policy module whose pickers and admission policies sessions may name. */
  readonly policyModule?: string;
  /** Its registry, for inline sessions (workers load `policyModule` themselves). */
  readonly registry?: PolicyRegistry;
  /**
   * Workers kept started and warmed up ahead for the next sessions (default
   * 4); they count against `maxSessions`. Each serves one session only.
   */
  readonly spareWorkers?: number;
  /** Where sessions run (default "worker"). */
  readonly isolation?: "worker" | "inline";
  /** The server's `--machine`: every session runs on it. */
  readonly machine?: Machine;
  /**
   * The server's metric options (`--bsld_tau`, `--measure_window`, `--trim`,
   * `--resource_columns`): every session's defaults, which its own override.
   */
  readonly metricDefaults?: SessionMetricOptions;
  /** Opens a recording file (inline sessions only); tests inject failures. */
  readonly openSink?: (path: string) => RecordingSink;
}

/** A session as `GET /sessions` lists it. */
export interface SessionListing {
  readonly sessionId: string;
  readonly name: string;
  /** Seconds since it was created. */
  readonly ageSeconds: number;
  /** Seconds since its last call ended (0 while a call runs). */
  readonly idleSeconds: number;
  /** Calls running or waiting. */
  readonly calls: number;
}

/** Spare workers a host keeps started ahead unless told otherwise. */
export const DEFAULT_SPARE_WORKERS = 4;

/** Most calls one session may have waiting behind the running one. */
export const MAX_QUEUED_CALLS = 64;

class InlineRunner implements Runner {
  constructor(readonly place: SessionPlace) {}
  run(op: SessionOp): Promise<OpReply> {
    return Promise.resolve(this.place.answer(op));
  }
  stop(): void {}
}

/**
 * Ends a recording whose writer was stopped: cuts the file back to its last
 * answered call and appends the end message, as `stopRecording` would have.
 */
function endRecordingFile(mark: RecordingMark): void {
  try {
    const f = Deno.openSync(mark.file, { write: true });
    try {
      f.truncateSync(mark.bytes);
      f.seekSync(mark.bytes, Deno.SeekMode.Start);
      const bytes = new TextEncoder().encode(encode.end(mark.events, mark.time));
      let off = 0;
      while (off < bytes.length) off += f.writeSync(bytes.subarray(off));
    } finally {
      f.close();
    }
  } catch (e) {
    console.error(`evtsim serve: cannot end the recording ${mark.file}: ${(e as Error).message}`);
  }
}

/** One session as the host keeps it. */
export class SessionHandle {
  readonly createdAt = performance.now();
  lastUsed = performance.now();
  /** Calls running or waiting. */
  calls = 0;
  #tail: Promise<unknown> = Promise.resolve();
  #mark: RecordingMark | undefined;
  /** Why the session is gone (set once it is ended). */
  ended: string | undefined;
  /** An external session's rounds (in a worker only: an inline one is refused). */
  readonly #rounds: RoundWait | undefined;
  /**
   * What the front that made the call in a round does with its result once
   * the rounds are answered (its own reply), kept here by that front.
   */
  continuation: ((result: unknown) => unknown) | undefined;

  constructor(
    readonly host: SessionHost,
    readonly id: string,
    readonly name: string,
    readonly runner: Runner,
    mark: RecordingMark | undefined,
    /** The options of an external session (`admission: "external"`). */
    readonly external?: ExternalOptions,
  ) {
    this.#mark = mark;
    this.#rounds = external === undefined || !(runner instanceof WorkerRunner)
      ? undefined
      : new RoundWait(id, external, (why) => host.end(id, why));
  }

  /** Runs `op` after the calls before it; its result, or its error thrown as a ServiceError. */
  run(op: SessionOp): Promise<unknown> {
    if (this.ended !== undefined) return Promise.reject(this.#gone());
    if (this.#rounds?.inRound) return Promise.reject(this.#rounds.busy());
    if (this.calls > MAX_QUEUED_CALLS) {
      return Promise.reject(
        new ServiceError(
          429,
          "busy",
          `session '${this.id}' has ${this.calls} calls running or waiting; wait for their replies`,
        ),
      );
    }
    this.calls++;
    const p = this.#tail.then(() => this.#execute(op));
    this.#tail = p.catch(() => {});
    return p.finally(() => {
      this.calls--;
      this.lastUsed = performance.now();
    });
  }

  /**
   * Answers the round awaited with the client's answer (`round` its number,
   * `text` the answer's JSON): the next round, or the call's own result.
   * A round that is not the one awaited is refused (409 `round`).
   */
  async decide(round: number, text: string): Promise<unknown> {
    if (this.ended !== undefined) throw this.#gone();
    if (this.#rounds === undefined) throw new ServiceError(409, "round", noRound(this.id));
    this.#rounds.take(round);
    this.calls++;
    try {
      return await this.#settle(() => (this.runner as WorkerRunner).decide(text));
    } finally {
      this.calls--;
      this.lastUsed = performance.now();
    }
  }

  async #execute(op: SessionOp): Promise<unknown> {
    if (this.ended !== undefined) throw this.#gone();
    if (this.#rounds?.inRound) throw this.#rounds.busy();
    return await this.#settle(() => this.runner.run(op));
  }

  /** Runs a call (or an answer's continuation) within the call time limit; maps its reply. */
  async #settle(call: () => Promise<OpReply>): Promise<unknown> {
    this.lastUsed = performance.now();
    const limit = this.host.callTimeLimit;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const over = new Promise<"over">((resolve) => {
      if (limit > 0 && this.runner instanceof WorkerRunner) {
        timer = setTimeout(() => resolve("over"), limit * 1000);
      }
    });
    const reply = await Promise.race([call(), over]);
    clearTimeout(timer);
    if (reply === "over") {
      this.host.end(this.id, `its call ran over the time budget (--call_time_limit ${limit} s)`);
      throw new ServiceError(
        503,
        "budget",
        `the call ran over the session's time budget (--call_time_limit ${limit} s): ` +
          "session ended, its recording ends at its last answered call",
      );
    }
    if (this.ended !== undefined) throw this.#gone();
    if (reply.ok === "awaiting") return this.#rounds!.began(reply.awaiting);
    this.#rounds?.done();
    this.#mark = reply.mark;
    if (!reply.ok) {
      if (reply.error.kind === "decision") {
        // onInvalid "fail": the refused answer ends the session.
        this.host.end(this.id, `an invalid answer ended it: ${reply.error.message}`);
        throw new ServiceError(
          409,
          "decision",
          `${reply.error.message} (onInvalid fail: session ended)`,
        );
      }
      throw new ServiceError(reply.error.status, reply.error.kind, reply.error.message);
    }
    return reply.result;
  }

  #gone(): ServiceError {
    return new ServiceError(404, "not_found", `no session '${this.id}' (${this.ended})`);
  }

  /**
   * Ends the session now. A worker is stopped even mid-call (the call is
   * abandoned) and its recording is ended here, cut back to the last answered
   * call; an inline session (never mid-call) closes its recording itself.
   */
  stop(why: string): void {
    if (this.ended !== undefined) return;
    this.ended = why;
    this.#rounds?.stop();
    if (this.runner instanceof InlineRunner) {
      try {
        this.runner.place.session.close();
      } catch { /* ending anyway */ }
      return;
    }
    this.runner.stop();
    if (this.#mark !== undefined) endRecordingFile(this.#mark);
  }
}

/** The sessions of one server. */
export class SessionHost {
  readonly recordDir: string | undefined;
  readonly maxSessions: number;
  readonly snapshotInterval: number | undefined;
  readonly idleTimeout: number;
  readonly callTimeLimit: number;
  readonly #options: SessionHostOptions;
  readonly #sessions = new Map<string, SessionHandle>();
  /** Why the last external sessions ended other than by finish or delete (their 404s say it). */
  readonly #externalEnds = new Map<string, string>();
  #creating = 0;
  /** The server's temp folder: one folder per worker session for its finish rows. */
  #spillRoot: string | undefined;
  #sweeper: ReturnType<typeof setInterval> | undefined;
  #pool: WorkerPool | undefined;

  constructor(options: SessionHostOptions = {}) {
    this.#options = options;
    this.recordDir = options.recordDir;
    this.maxSessions = options.maxSessions ?? 64;
    this.snapshotInterval = options.snapshotInterval;
    this.idleTimeout = options.sessionIdleTimeout ?? 1800;
    this.callTimeLimit = options.callTimeLimit ?? 300;
  }

  /** The spare workers, made when first needed. */
  get #workers(): WorkerPool {
    return this.#pool ??= new WorkerPool(
      this.#options.spareWorkers ?? DEFAULT_SPARE_WORKERS,
      { policyModule: this.#options.policyModule, warmUp: true },
      () => this.maxSessions - this.#sessions.size - this.#creating,
    );
  }

  /**
   * Starts the spare workers (a server calls it once it listens); with
   * inline sessions, or after `closeAll`, it does nothing.
   */
  startSpares(): void {
    if (this.#options.isolation !== "inline") this.#workers.fill();
  }

  /** Spare workers ready now. */
  get spares(): number {
    return this.#pool?.size ?? 0;
  }

  /** Spare workers running: ready, or still starting. */
  get sparesStarted(): number {
    return this.#pool?.started ?? 0;
  }

  /** Whether sessions run on the server's `--machine` (then they give no totalNodes). */
  get hasMachine(): boolean {
    return this.#options.machine !== undefined;
  }

  /** Sessions open now. */
  get size(): number {
    return this.#sessions.size;
  }

  /** Creates a session; with a record folder it records from its start. */
  async create(params: SessionParams): Promise<SessionHandle> {
    if (this.#sessions.size + this.#creating >= this.maxSessions) {
      throw new ServiceError(
        429,
        "capacity",
        `too many sessions (--max_sessions ${this.maxSessions})`,
      );
    }
    // Bounded here, before the settings are copied to a worker: the copy
    // itself recurses, and a value nested deep enough overflows its stack.
    try {
      if (params.pickerSettings !== undefined) {
        checkJsonBounds(params.pickerSettings, "picker settings");
      }
    } catch (e) {
      throw toError(opError(e));
    }
    let id = newSessionId();
    while (this.#sessions.has(id)) id = newSessionId();
    const init: SessionInit = {
      id,
      params: withMetricDefaults(this.#options.metricDefaults, params),
      recordDir: this.recordDir,
      snapshotInterval: this.snapshotInterval,
      policyModule: this.#options.policyModule,
      ...(this.#options.machine !== undefined ? { machine: this.#options.machine } : {}),
    };
    this.#creating++;
    let runner: Runner | undefined;
    let reply: OpReply;
    try {
      if (this.#options.isolation === "inline") {
        try {
          const place = SessionPlace.create(init, {
            recordDir: this.recordDir,
            snapshotInterval: this.snapshotInterval,
            openSink: this.#options.openSink,
          }, this.#options.registry);
          runner = new InlineRunner(place);
          reply = { ok: true, result: true, mark: place.session.recordingMark() };
        } catch (e) {
          throw toError(opError(e));
        }
      } else {
        this.#spillRoot ??= Deno.makeTempDirSync({ prefix: "evtsim-serve-" });
        const spillDir = `${this.#spillRoot}/${id}`;
        Deno.mkdirSync(spillDir);
        const w = this.#workers.take();
        const channel = params.admission === "external" ? { channel: newChannel() } : {};
        reply = await w.init({ ...init, spillDir, ...channel });
        if (!reply.ok) {
          w.stop();
          this.#removeSpill(id);
          throw toError(reply.error);
        }
        runner = w;
      }
    } finally {
      this.#creating--;
      if (runner === undefined) this.#fillSpares();
    }
    const handle = new SessionHandle(
      this,
      id,
      params.name ?? "session",
      runner,
      reply.mark,
      params.admission === "external" ? params.external ?? {} : undefined,
    );
    this.#sessions.set(id, handle);
    this.#fillSpares();
    this.#startSweeper();
    return handle;
  }

  /**
   * Tops the spares up once a burst of creates is over: a spare warming up
   * meanwhile would take a core from the workers those creates are starting.
   */
  #fillSpares(): void {
    if (this.#creating === 0) this.#pool?.fill();
  }

  /** The session `id`; 404 if there is none. */
  get(id: string): SessionHandle {
    const s = this.#sessions.get(id);
    if (s === undefined) {
      const why = this.#externalEnds.get(id);
      throw new ServiceError(
        404,
        "not_found",
        `no session '${id}'${why === undefined ? "" : ` (${why})`}`,
      );
    }
    return s;
  }

  /** Whether session `id` is open. */
  has(id: string): boolean {
    return this.#sessions.has(id);
  }

  /** The open sessions: ids, names, age and idle time. */
  list(): SessionListing[] {
    const now = performance.now();
    return [...this.#sessions.values()].map((s) => ({
      sessionId: s.id,
      name: s.name,
      ageSeconds: Math.round((now - s.createdAt) / 10) / 100,
      idleSeconds: s.calls > 0 ? 0 : Math.round((now - s.lastUsed) / 10) / 100,
      calls: s.calls,
    }));
  }

  /**
   * Ends session `id` (deleted, over its budget, idle, or its output was
   * sent): a call running is abandoned, calls waiting are answered 404, and
   * its recording is ended cleanly.
   */
  end(id: string, why: string): void {
    const s = this.#sessions.get(id);
    if (s === undefined) return;
    this.#sessions.delete(id);
    if (this.#sessions.size === 0) this.#stopSweeper();
    s.stop(why);
    // An external client told by a 404 why its session ended (a round timed out, ...).
    if (s.external !== undefined && why !== "finished" && why !== "deleted") {
      this.#externalEnds.set(id, why);
      if (this.#externalEnds.size > 256) {
        this.#externalEnds.delete(this.#externalEnds.keys().next().value!);
      }
    }
    this.#removeSpill(id);
    // A slot is free again: a spare may take it.
    this.#pool?.fill();
  }

  #removeSpill(id: string): void {
    if (this.#spillRoot === undefined) return;
    try {
      Deno.removeSync(`${this.#spillRoot}/${id}`, { recursive: true });
    } catch { /* never made, or gone already */ }
  }

  /** Drops session `id` without finishing it (404 if there is none). */
  discard(id: string): void {
    this.get(id);
    this.end(id, "deleted");
  }

  /** Ends every session and its recording (server shutdown); synchronous. */
  closeAll(): void {
    this.#stopSweeper();
    this.#pool?.close();
    for (const id of [...this.#sessions.keys()]) {
      try {
        this.end(id, "the server stopped");
      } catch { /* shutting down: keep closing the others */ }
    }
    if (this.#spillRoot !== undefined) {
      try {
        Deno.removeSync(this.#spillRoot, { recursive: true });
      } catch { /* gone already */ }
      this.#spillRoot = undefined;
    }
  }

  #startSweeper(): void {
    if (this.#sweeper !== undefined || this.idleTimeout <= 0) return;
    const every = Math.max(50, Math.min(this.idleTimeout * 1000 / 4, 30_000));
    const timer = setInterval(() => this.#sweep(), every);
    Deno.unrefTimer(timer);
    this.#sweeper = timer;
  }

  #stopSweeper(): void {
    if (this.#sweeper !== undefined) clearInterval(this.#sweeper);
    this.#sweeper = undefined;
  }

  #sweep(): void {
    const now = performance.now();
    for (const s of [...this.#sessions.values()]) {
      if (s.calls === 0 && now - s.lastUsed > this.idleTimeout * 1000) {
        this.end(s.id, `idle over --session_idle_timeout ${this.idleTimeout} s`);
      }
    }
  }
}

function toError(
  e: { status: ServiceError["status"]; kind: string; message: string },
): ServiceError {
  return new ServiceError(e.status, e.kind, e.message);
}
