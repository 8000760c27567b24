// Feeding the reducer: jobs in chunks with the clock run up to each chunk's
// first submit time (the streaming contract), replayed jobs in chunks, and
// every file of an --infile_list in turn. Between chunks the loop gives the
// event loop a turn now and then, so a SIGINT/SIGTERM handler can run during
// a long simulation.
//
// A recorded run is fed at the granularity the core works at instead: the
// clock run up to the next submit time (one advance slice, a few instants),
// then the jobs of that submit time, and the run's end cut into its instants
// (core/_instant_steps.ts), so the log has an event per slice or instant and
// its periodic snapshots are seek points spread over the run's time (`replay
// --start_time`). The streaming contract and the instant pieces give the
// same rows and the same final state as the chunks. (Cutting every slice
// into instants too doubles the events, 110,551 against 55,390 on KTH, for
// no seek point a slice does not give.)

import { nextPiece } from "../core/_instant_steps.ts";
import { EvtsimError } from "../core/errors.ts";
import type { SimState } from "../core/state.ts";
import type { Input } from "../core/step.ts";
import type { JobSpec } from "../core/types.ts";
import type { LoadedInput } from "./load.ts";
import type { JobColumns } from "../io/_job_columns.ts";
import type { Progress } from "./progress.ts";

const DRAIN_CHUNK = 4096;
// Jobs per appendJobs when simulating. One step holds what it makes (its
// rows, the records it creates ahead of their arrival) until it returns; a
// step over 4096 jobs' events lived through several scavenges, so all of it
// was promoted to the old generation: HPC2N EASY peaked at 232 MiB RSS, and
// 172 MiB with 512 (1.6 CPU s then 1.5; the output is the same by the
// streaming contract). Smaller chunks gained nothing more.
const FEED_CHUNK = 512;
// Every 200 ms the loop gives the event loop a turn, where the main thread's
// signal listener runs; a stretch of twice that without one is what starts
// the watchdog thread (cli/_watchdog.ts, LONG_STRETCH_MS). The turn is a
// message through a fresh MessageChannel, about 0.09 ms, where a 0 ms timer
// waits for the timer's tick (about 2.3 ms, Deno 2.9). A signal is heard at
// the first turn after it. A turn every 20 ms was tried: KTH's peak RSS rose
// from about 103 to 125 MiB and its simulation time by a sixth (medians of
// 6, same session), so the turns stay 200 ms apart.
/** How often the loop gives the event loop a turn (ms). */
export const YIELD_EVERY_MS = 200;

/** Gives the event loop a turn (timers, signals) at most every 200 ms. */
export class Yielder {
  private last = performance.now();

  /** Resolves at once, or after a turn of the event loop when 200 ms have passed. */
  async maybe(): Promise<void> {
    const now = performance.now();
    if (now - this.last < YIELD_EVERY_MS) return;
    await turn();
    this.last = performance.now();
  }
}

// One turn of the event loop; the channel is closed, so nothing is left open.
function turn(): Promise<void> {
  return new Promise((resolve) => {
    const { port1, port2 } = new MessageChannel();
    port1.onmessage = () => {
      port1.close();
      resolve();
    };
    port2.postMessage(null);
    port2.close();
  });
}

/** What the loop needs from the command. */
export interface LoopContext {
  readonly apply: (input: Input) => void;
  readonly current: () => SimState;
  readonly progress: Progress;
  readonly maxTime: number | undefined;
  readonly memoryLimit: (() => number) | undefined;
  readonly yielder: Yielder;
  /** Drops the jobs a run continued from a snapshot has already seen. */
  readonly unseen?: (jobs: JobSpec[]) => JobSpec[];
  /** Feed one submit time per step, and the run's end one instant per step (a recorded run). */
  readonly byInstant?: boolean;
  /** Called when every job of an input file has been fed (`--checkpoint_file`'s file boundary). */
  readonly fileFed?: () => void;
}

/**
 * Applies an input; one that moves the clock is applied instant by instant
 * when the context asks for it (the pieces end with the input itself).
 */
export function applyAdvance(input: Input, c: LoopContext): void {
  if (c.byInstant !== true) return c.apply(input);
  for (let first = true;; first = false) {
    const piece = nextPiece(c.current(), input, first);
    c.apply(piece.input);
    if (piece.last) return;
  }
}

// The jobs of each submit time in turn, the clock run up to (not including)
// it first.
async function feedByInstant(jobs: readonly JobSpec[], c: LoopContext): Promise<void> {
  for (let i = 0; i < jobs.length;) {
    const t = jobs[i].submitTime;
    let j = i + 1;
    while (j < jobs.length && jobs[j].submitTime === t) j++;
    const limit = c.maxTime === undefined ? t : Math.min(t, c.maxTime);
    if (limit > c.current().time) c.apply({ kind: "runUntilExclusive", time: limit });
    c.apply({ kind: "appendJobs", jobs: jobs.slice(i, j), maxStoreCapacity: c.memoryLimit?.() });
    c.progress.update(c.current().stats.jobsCompleted);
    await c.yielder.maybe();
    i = j;
  }
}

// Jobs go in as chunks; before each chunk the clock runs up to (not
// including) the chunk's first submit time. That is the streaming contract,
// so the result equals appending everything at once, while finished records
// are reclaimed and written as the run goes and progress can be shown.
async function feedJobs(jobs: readonly JobSpec[] | JobColumns, c: LoopContext): Promise<void> {
  if (c.byInstant === true) return await feedByInstant(jobs.slice(0, jobs.length), c);
  for (let i = 0; i < jobs.length; i += FEED_CHUNK) {
    // Jobs in columns become objects here, a chunk at a time.
    const chunk = jobs.slice(i, i + FEED_CHUNK);
    const t = chunk[0].submitTime;
    const limit = c.maxTime === undefined ? t : Math.min(t, c.maxTime);
    if (limit > c.current().time) c.apply({ kind: "runUntilExclusive", time: limit });
    c.apply({ kind: "appendJobs", jobs: chunk, maxStoreCapacity: c.memoryLimit?.() });
    c.progress.update(c.current().stats.jobsCompleted);
    await c.yielder.maybe();
  }
}

/** Replays recorded jobs in chunks. */
export async function replayAll(input: LoadedInput, c: LoopContext): Promise<void> {
  const jobs = input.recorded;
  for (let i = 0; i < jobs.length; i += DRAIN_CHUNK) {
    c.apply({ kind: "replayJobs", jobs: jobs.slice(i, i + DRAIN_CHUNK) });
    c.progress.update(Math.min(jobs.length, i + DRAIN_CHUNK));
    await c.yielder.maybe();
  }
}

/**
 * Simulates every file in order: the first is already loaded; later ones are
 * loaded with what is left of `maxJobs` (data lines across all files; 0 =
 * all) and must be simulation traces whose first job is not before the
 * previous file's last.
 */
export async function simulateFiles(
  paths: readonly string[],
  first: LoadedInput,
  maxJobs: number,
  load: (path: string, maxJobs: number) => Promise<LoadedInput>,
  report: (line: string) => void,
  c: LoopContext,
): Promise<void> {
  let previousLast = -Infinity;
  let remaining = maxJobs - first.linesRead;
  for (let k = 0; k < paths.length; k++) {
    if (k > 0 && maxJobs > 0 && remaining <= 0) break;
    const input = k === 0 ? first : await load(paths[k], maxJobs > 0 ? remaining : 0);
    if (k > 0) {
      remaining -= input.linesRead;
      for (const m of input.messages) report(m);
      if (input.mode !== "simulation") {
        throw new EvtsimError(
          "usage",
          "is a replay trace (begin_time and end_time columns) but the list's first file is " +
            "a simulation trace; --infile_list takes simulation traces only",
          { file: paths[k] },
        );
      }
    }
    const jobs = input.columns ?? (c.unseen?.(input.jobs) ?? input.jobs);
    const submitAt = (i: number) =>
      Array.isArray(jobs) ? jobs[i].submitTime : (jobs as JobColumns).submitTime(i);
    if (jobs.length > 0 && submitAt(0) < previousLast) {
      throw new EvtsimError(
        "input",
        `first job's submit time ${
          submitAt(0)
        } is before the previous file's last submit time ${previousLast}; files must be in submit-time order`,
        { file: paths[k], line: 2 },
      );
    }
    if (jobs.length > 0) previousLast = submitAt(jobs.length - 1);
    await feedJobs(jobs, c);
    c.fileFed?.();
  }
}
