// The local executor: a pool of `--jobs N` long-lived child processes, each
// `evtsim sweep-cell SPEC --stdin` (cli/_sweep_worker.ts) running one cell
// after another as it is handed their indices. A cell runs through the very
// code a Slurm array task runs (`sweep-cell --cell`), so its result file is
// the same bytes however it ran; a worker runs its cells warm (V8 has
// compiled the engine after the first) and parses each trace once. Processes
// rather than Deno Workers keep a crash, an out-of-memory or an endless
// policy to the one cell that had it: the worker's process ends, the cell is
// recorded as failed (or, when stopped by a signal, left without a result)
// and a new worker takes the rest.

import { EvtsimError } from "../core/errors.ts";
import { Progress, type ProgressSink } from "./progress.ts";
import { onShutdown } from "./_shutdown.ts";
import { textLines } from "./_text_lines.ts";
import { childReaped, childSpawned } from "../io/_temporaries.ts";
import type { Console } from "./simulate.ts";
import { type CellResult, readCellResult, writeCellResult } from "./_sweep_results.ts";
import { type Cell, cellAt, type Sweep } from "./_sweep_model.ts";

/** The `evtsim` task's permissions: what a cell's simulate run may need. */
const PERMISSIONS = [
  "--allow-read",
  "--allow-write",
  "--allow-env",
  "--allow-sys",
  "--allow-net",
];

/**
 * The V8 flags of a cell's process. Single-threaded when the cells fill the
 * cores (--jobs of them, on Slurm one task per CPU): V8's background GC and
 * compiler threads then only compete with the other cells (on 2 cores, 8 KTH
 * cells with --jobs 2 went from 1.2x to 1.6-1.8x the speed of --jobs 1).
 * With fewer cells than cores those threads compile the engine on an idle
 * core while the cell runs: 8 KTH cells with --jobs 1 on 2 cores took a
 * median 1.61 s instead of 1.95 s, less in each of 10 alternating pairs, at
 * the same CPU time (1.73 s against 1.81 s; the second cell 0.22 s instead
 * of 0.45 s).
 */
const v8Flags = (singleThreaded: boolean) =>
  `--v8-flags=--max-semi-space-size=32${singleThreaded ? ",--single-threaded" : ""}`;

/**
 * The argv of this very `evtsim` (Deno's path first): the same permissions
 * as the `evtsim` task, this checkout's deno.json for the npm imports, and
 * this main module; single-threaded (see `v8Flags`) unless told that fewer
 * cells than cores run at once.
 */
export function selfCommand(singleThreaded = true): string[] {
  const main = new URL("./main.ts", import.meta.url);
  const argv = [Deno.execPath(), "run", "--quiet", ...PERMISSIONS, v8Flags(singleThreaded)];
  if (main.protocol !== "file:") return [...argv, main.href];
  const config = decodeURIComponent(new URL("../deno.json", import.meta.url).pathname);
  try {
    if (Deno.statSync(config).isFile) argv.push("--config", config);
  } catch { /* a copy without deno.json: Deno finds its own */ }
  return [...argv, decodeURIComponent(main.pathname)];
}

/** Refuses to start without the permission to run the cells' processes. */
export function checkRunPermission(what: string): void {
  if (Deno.permissions.querySync({ name: "run" }).state !== "granted") {
    throw new EvtsimError(
      "usage",
      `${what} needs --allow-run (the evtsim task and 'deno task install' grant it)`,
    );
  }
}

/**
 * The argv of a worker process for the sweep of spec `specPath` (absolute)
 * with results in `dir`, one of `jobs` running at once.
 */
export function workerArgv(specPath: string, dir: string, jobs: number): string[] {
  const singleThreaded = jobs >= (navigator.hardwareConcurrency ?? 1);
  return [...selfCommand(singleThreaded), "sweep-cell", specPath, "--stdin", "--results", dir];
}

/**
 * Worker processes started before the sweep is planned: a worker loads its
 * modules (the simulate path) while the sweep reads its spec and prepares
 * the results folder, and reads the spec and the folder's record only when
 * it is given its first cell. SIGINT/SIGTERM stop them (cli/_supervise.ts,
 * cli/_watchdog.ts are told of each process; the shutdown hook sends
 * SIGTERM); `close` ends those not used.
 */
export class Prestarted {
  readonly #live = new Set<CellWorker>();
  readonly #idle: CellWorker[] = [];

  /**
   * Starts the workers for the sweep of `specPath` into `dir` (both
   * absolute) with `jobs` cells at once: as many, at most one per core.
   */
  constructor(readonly specPath: string, readonly dir: string, jobs: number) {
    onShutdown(() => this.kill());
    const argv = workerArgv(specPath, dir, jobs);
    const count = Math.min(jobs, navigator.hardwareConcurrency ?? 1);
    for (let i = 0; i < count; i++) this.#idle.push(new CellWorker(argv, this.#live));
  }

  /** A started worker not yet taken, if any. */
  take(): CellWorker | undefined {
    return this.#idle.pop();
  }

  /** Sends SIGTERM to every worker still running. */
  kill(): void {
    for (const w of this.#live) w.kill();
  }

  /**
   * Stops the workers not taken (SIGTERM: they have read no cell and have
   * nothing to clean up; a bad spec is not kept waiting for their start-up);
   * waits for them.
   */
  async close(): Promise<void> {
    await Promise.all(this.#idle.splice(0).map((w) => w.stop()));
  }
}

/**
 * Runs the cells at indices `todo` on `jobs` worker processes (the
 * `prestarted` ones first, when they are for this sweep); returns the failed
 * cells' results once every cell has its answer, and `ended`, settled once
 * every worker has exited too (the results can be merged meanwhile: a
 * worker that has answered its last cell writes nothing more).
 */
export async function runLocal(
  sweep: Sweep,
  dir: string,
  todo: readonly number[],
  jobs: number,
  con: Console,
  showProgress: boolean,
  sink?: ProgressSink,
  prestarted?: Prestarted,
): Promise<{ failed: CellResult[]; ended: Promise<void> }> {
  const argv = workerArgv(sweep.specPath, dir, jobs);
  const ready = prestarted?.specPath === sweep.specPath && prestarted.dir === dir
    ? prestarted
    : undefined;
  const progress = new Progress("sweep", todo.length, showProgress, sink, "cells");
  const failed: CellResult[] = [];
  // SIGINT/SIGTERM to the sweep stop its workers too (cli/_supervise.ts is
  // told of each one; on the main thread cli/main.ts runs this hook): a cell
  // stopped leaves no result, so a rerun runs it.
  const live = new Set<CellWorker>();
  let stopping = false;
  onShutdown(() => {
    stopping = true;
    for (const w of live) w.kill();
  });
  let next = 0;
  let done = 0;
  const exits: Promise<void>[] = [];
  const worker = async () => {
    let w: CellWorker | undefined;
    try {
      while (next < todo.length && !stopping) {
        const cell = cellAt(sweep, todo[next++]);
        const started = performance.now();
        w ??= ready?.take() ?? new CellWorker(argv, live);
        const exited = await w.run(cell.index);
        let r: CellResult | undefined;
        if (exited === undefined) r = await readCellResult(dir, cell);
        else {
          w = undefined;
          r = await afterExit(dir, cell, exited, started);
        }
        done++;
        if (r === undefined) {
          // The sweep is being stopped (or the cell was): start no more cells.
          next = todo.length;
          progress.done();
          con.err(
            `evtsim: sweep: cell ${cell.index} (${cell.id}) was interrupted: no result (a rerun runs it)`,
          );
        } else if (r.status === "failed") {
          failed.push(r);
          progress.done();
          con.err(`evtsim: sweep: cell ${cell.index} (${cell.id}) failed: ${r.error}`);
        }
        progress.update(done);
      }
    } finally {
      // Its stdin closed, the worker ends on its own: not waited for here.
      if (w !== undefined) exits.push(w.close());
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, Math.min(jobs, todo.length)) }, worker));
  } catch (e) {
    await Promise.all([...exits, ready?.close()]);
    throw e;
  }
  exits.push(ready?.close() ?? Promise.resolve());
  progress.done();
  return {
    failed: failed.sort((a, b) => a.index - b.index),
    ended: Promise.all(exits).then(() => {}),
  };
}

/** How a worker's process ended, with the last lines it wrote on stderr. */
interface Exit {
  readonly status: Deno.CommandStatus;
  readonly stderr: readonly string[];
}

/** One worker process: given a cell index at a time on stdin, it answers on stdout when the cell has ended. */
class CellWorker {
  readonly #child: Deno.ChildProcess;
  readonly #stdin: WritableStreamDefaultWriter<Uint8Array>;
  readonly #answers: AsyncIterator<string>;
  readonly #status: Promise<Deno.CommandStatus>;
  /** The last lines of stderr (a crash's message is the last one that is not a stack frame). */
  readonly #stderr: string[] = [];
  readonly #stderrRead: Promise<void>;
  /** What the worker's answers start with (no policy's output does). */
  readonly #tag = crypto.randomUUID();

  constructor(argv: readonly string[], private readonly live: Set<CellWorker>) {
    const child = new Deno.Command(argv[0], {
      args: argv.slice(1),
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.#child = child;
    live.add(this);
    childSpawned(child.pid);
    this.#stdin = child.stdin.getWriter();
    this.#answers = textLines(child.stdout)[Symbol.asyncIterator]();
    this.#stderrRead = (async () => {
      for await (const line of textLines(child.stderr)) {
        if (line.trim() === "") continue;
        this.#stderr.push(line);
        if (this.#stderr.length > 50) this.#stderr.shift();
      }
    })();
    this.#status = child.status.then(async (status) => {
      live.delete(this);
      childReaped(child.pid);
      await this.#stderrRead.catch(() => {});
      return status;
    });
  }

  /** Runs cell `index`: undefined once it has ended, or how the process ended before it did. */
  async run(index: number): Promise<Exit | undefined> {
    this.#stderr.length = 0;
    try {
      await this.#stdin.write(new TextEncoder().encode(`${index} ${this.#tag}\n`));
      // Other lines on stdout (a policy module's console.log) are not answers.
      for (;;) {
        const answer = await this.#answers.next();
        if (answer.done === true) break;
        if (
          answer.value === `${this.#tag} ok ${index}` ||
          answer.value === `${this.#tag} failed ${index}`
        ) return undefined;
      }
    } catch { /* the process has ended: its status says how */ }
    return { status: await this.#status, stderr: this.#stderr };
  }

  /** Sends SIGTERM (the sweep is being stopped). */
  kill(): void {
    try {
      this.#child.kill("SIGTERM");
    } catch { /* it has just ended */ }
  }

  /** Sends SIGTERM; waits for the process to end. */
  async stop(): Promise<void> {
    this.kill();
    await this.#stdin.close().catch(() => {});
    await this.#status;
  }

  /** Closes stdin, so the worker ends; waits for it. */
  async close(): Promise<void> {
    await this.#stdin.close().catch(() => {});
    await this.#status;
  }
}

// The result of a cell whose worker ended while running it.
async function afterExit(
  dir: string,
  cell: Cell,
  exit: Exit,
  started: number,
): Promise<CellResult | undefined> {
  // A bug fails its cell and ends the worker: the result is written first.
  const result = await readCellResult(dir, cell);
  if (result !== undefined) return result;
  const r = exit.status;
  // Stopped by SIGINT/SIGTERM (the sweep's, or a terminal's Ctrl-C to the
  // whole group): no result, so that a rerun runs the cell.
  if (
    r.signal === "SIGINT" || r.signal === "SIGTERM" || r.code === 130 || r.code === 143
  ) return undefined;
  // The process died before it wrote a result (killed, out of memory, a
  // broken install): record that, so --retry_failed picks the cell up.
  const last = exit.stderr.findLast((l) => !/^\s+at /.test(l)) ?? "";
  const failed: CellResult = {
    id: cell.id,
    index: cell.index,
    status: "failed",
    error: `the cell's process exited with ${r.signal ?? `code ${r.code}`}` +
      (last === "" ? "" : `: ${last.replace(/^evtsim: /, "")}`),
    wall_seconds: Math.round(performance.now() - started) / 1000,
  };
  writeCellResult(dir, failed);
  return failed;
}
