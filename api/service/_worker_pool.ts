// Session workers, and the spare ones a server keeps started ahead. A worker
// costs about 12 MB and 0.2 s to start, and its first session would also pay
// for V8 warming the engine up; a spare has done both before a client asks,
// so creating a session takes a ready worker. Every worker serves one session
// and is terminated when it ends: spares are never a used worker, so no
// session can see what another (or its policy module) left in memory.

import type { OpReply, SessionInit, SessionOp } from "./_session_ops.ts";
import type { WorkerPrepare } from "./_session_worker.ts";
import { cancelWait, writeAnswer } from "./_external_channel.ts";

/** Where one session runs. */
export interface Runner {
  run(op: SessionOp): Promise<OpReply>;
  /** Stops it at once, even mid-call (a worker is terminated). */
  stop(): void;
}

/** An error reply of the session host itself. */
export function internal(message: string): OpReply {
  return { ok: false, error: { status: 500, kind: "internal", message } };
}

/** A session's own worker. */
export class WorkerRunner implements Runner {
  readonly #worker: Worker;
  readonly #waiting = new Map<number, (r: OpReply) => void>();
  #seq = 0;
  #failed: string | undefined;
  /** An external session's answer channel, once its session is created. */
  #channel: SharedArrayBuffer | undefined;
  /** The call whose external round the worker is blocked on. */
  #awaiting: number | undefined;

  /** Starts the worker; it prepares (`prepare`) before anything else it is sent. */
  constructor(prepare: WorkerPrepare) {
    this.#worker = new Worker(new URL("./_session_worker.ts", import.meta.url).href, {
      type: "module",
    });
    this.#worker.onmessage = (e: MessageEvent) => {
      const { seq, ...reply } = e.data as { seq: number } & OpReply;
      const f = this.#waiting.get(seq);
      this.#waiting.delete(seq);
      this.#awaiting = reply.ok === "awaiting" ? seq : undefined;
      f?.(reply as OpReply);
    };
    this.#worker.onerror = (e: ErrorEvent) => {
      e.preventDefault();
      this.#failed = e.message;
      for (const f of this.#waiting.values()) {
        f(internal(`the session's worker failed: ${e.message}`));
      }
      this.#waiting.clear();
    };
    // Its reply says the worker is ready; `init` answers for any failure.
    this.prepared = this.#send({ prepare }).then(() => {
      this.#ready = true;
    });
  }

  /** Settles once the worker has prepared (or failed). */
  readonly prepared: Promise<void>;
  #ready = false;

  /** Whether the worker has prepared and not failed: a spare that can be handed out. */
  get ready(): boolean {
    return this.#ready && this.#failed === undefined;
  }

  /** Whether the worker has failed (a spare that failed is not handed out). */
  get failed(): boolean {
    return this.#failed !== undefined;
  }

  #send(message: Record<string, unknown>): Promise<OpReply> {
    if (this.#failed !== undefined) {
      return Promise.resolve(internal(`the session's worker failed: ${this.#failed}`));
    }
    const seq = ++this.#seq;
    return new Promise((resolve) => {
      this.#waiting.set(seq, resolve);
      this.#worker.postMessage({ seq, ...message });
    });
  }

  init(init: SessionInit): Promise<OpReply> {
    this.#channel = init.channel;
    return this.#send({ init });
  }

  /**
   * Hands the client's answer to the worker blocked at a round; resolves
   * with the call's next reply (another round, or the call's own result).
   */
  decide(text: string): Promise<OpReply> {
    const seq = this.#awaiting;
    if (seq === undefined || this.#channel === undefined || this.#failed !== undefined) {
      return Promise.resolve(internal("no round is awaited"));
    }
    this.#awaiting = undefined;
    const channel = this.#channel;
    return new Promise((resolve) => {
      this.#waiting.set(seq, resolve);
      writeAnswer(channel, text);
    });
  }

  run(op: SessionOp): Promise<OpReply> {
    return this.#send({ op });
  }

  stop(): void {
    this.#failed ??= "stopped";
    // A worker blocked at a round is woken first (terminating alone may not interrupt a wait).
    if (this.#channel !== undefined) cancelWait(this.#channel);
    this.#worker.terminate();
    for (const f of this.#waiting.values()) f(internal("stopped"));
    this.#waiting.clear();
  }
}

/**
 * Up to `spares` workers started ahead, never more than `room()` (the
 * sessions the server may still open), so spares and sessions together stay
 * within --max_sessions workers. Spares are started one at a time, so their
 * warm-up runs take at most one core from the sessions running.
 */
export class WorkerPool {
  #spares: WorkerRunner[] = [];
  #starting: WorkerRunner | undefined;
  #closed = false;

  constructor(
    readonly spares: number,
    readonly prepare: WorkerPrepare,
    readonly room: () => number,
  ) {}

  /** Spare workers ready now. */
  get size(): number {
    return this.#spares.length;
  }

  /** Spare workers started: ready, or still starting. */
  get started(): number {
    return this.#spares.length + (this.#starting === undefined ? 0 : 1);
  }

  /**
   * A worker for a new session: a ready spare, else a new one (without a
   * warm-up run, which its session would wait for). The host tops the
   * spares up (`fill`) once its burst of creates is over.
   */
  take(): WorkerRunner {
    let w: WorkerRunner | undefined;
    while ((w = this.#spares.shift()) !== undefined && !w.ready) w.stop();
    w ??= new WorkerRunner({ ...this.prepare, warmUp: false });
    return w;
  }

  /** Starts the next spare if there are fewer than `spares` and `room()`; ends any over `room()`. */
  fill(): void {
    if (this.#closed) return;
    const want = Math.max(0, Math.min(this.spares, this.room()));
    if (this.#starting !== undefined && this.#spares.length + 1 > want) {
      this.#starting.stop();
      this.#starting = undefined;
    }
    while (this.#spares.length > want) this.#spares.pop()!.stop();
    if (this.#starting !== undefined || this.#spares.length >= want) return;
    const w = new WorkerRunner(this.prepare);
    this.#starting = w;
    void w.prepared.then(() => {
      if (this.#starting !== w) return; // closed meanwhile (and stopped)
      this.#starting = undefined;
      if (w.ready) this.#spares.push(w);
      else w.stop();
      this.fill();
    });
  }

  /** Ends every spare and starts no more (server shutdown). */
  close(): void {
    this.#closed = true;
    this.#starting?.stop();
    this.#starting = undefined;
    for (const w of this.#spares) w.stop();
    this.#spares = [];
  }
}
