// Interrupts that always work, at the cost of a thread rather than a cold
// engine (docs/outputs.md, "Errors and exit status"). A command that computes runs on the main thread,
// with the V8 code cache and no second module graph, and a watchdog thread
// (cli/_watchdog_worker.ts, a few milliseconds to start, in parallel) listens
// for SIGINT/SIGTERM. On a signal the watchdog sets a flag in shared memory;
// the engine looks at it between jobs (core/_interrupt.ts) and the main
// thread's own listener runs at its next await, whichever comes first: both
// end the run here, removing the temporaries and exiting 130 / 143 with the
// old outputs untouched (they are replaced only by the commit at the end).
//
// Code that may never return — a user's policy module — cannot be stopped
// by a flag, so those runs still go to a worker the main thread can
// terminate (cli/_supervise.ts). Measured on a 2-core machine (quiet, KTH,
// bench:traces medians): computing in a worker cost about 130 ms a run
// (a second module graph compiled without the code cache); the watchdog
// costs the ~20 ms of creating its thread.
//
// The thread also costs about 14 MiB (a second Deno runtime: the same with
// an empty worker module; no V8 flag shrinks it), most of a short run's
// memory above bare Deno. So the CLI arms the watchdog instead of starting
// it (armWatchdog): simulate's loop gives the event loop a turn every 200 ms
// (cli/run_loop.ts), where the main thread's own signal listener runs, and
// only when the engine has kept the thread busy for 400 ms without a turn
// (one long step: a deep queue's drain, thousands of jobs at one instant)
// does the engine's interrupt poll start the thread (listening some 20 ms
// later). A signal that lands before that in a long step is honoured when
// the step ends, by the listener, as cleanly; every later one within
// milliseconds.
//
// The stretch must be well above the loop's own rhythm: between two turns
// 200 ms apart the main thread is busy for 200 ms plus the step under way,
// and the process's CPU time (which the stretch also needs) counts V8's GC
// threads too. With 60 ms every run of more than a few tenths of a second
// started the thread: 400 ms took EASY's median peak RSS from 141 to 130
// MiB on HPC2N, 109 to 97 on KTH, 144 to 122 on light_100k, at the same CPU
// time (3 runs each, same session). 400 ms is twice the rhythm, so only a
// step running 200 ms or more past its turn starts it (heavy_100k's deep
// queue does, by DEEP_QUEUE_JOBS).

import { pollInterrupt, watchInterrupt } from "../core/_interrupt.ts";
import { removeTemporaries, type TemporaryKind, watchTemporaries } from "../io/_temporaries.ts";
import { abortAllOutputs } from "../io/atomic_writer.ts";
import { runShutdownHooks } from "./_shutdown.ts";
import type { WatchdogMessage } from "./_watchdog_worker.ts";

const live = new Map<string, TemporaryKind>();
const children = new Set<number>();
let exiting = false;

/**
 * Ends the process for a signal: shutdown hooks, outputs aborted, the
 * temporaries and child processes this thread knows of removed and stopped,
 * then exit `code`. The one way a computing command stops on SIGINT/SIGTERM
 * (called by the signal listener and by the engine's interrupt check).
 */
export function exitForSignal(code: number): never {
  if (!exiting) {
    exiting = true;
    runShutdownHooks();
    abortAllOutputs();
    for (const pid of children) {
      try {
        Deno.kill(pid, "SIGTERM");
      } catch { /* it has just ended */ }
    }
    removeTemporaries(live);
  }
  Deno.exit(code);
}

/** How long the engine may keep the main thread from its event loop before the watchdog starts (ms). */
export const LONG_STRETCH_MS = 400;

/** Jobs in the system (created, not yet ended or rejected) from which the next step may be long. */
export const DEEP_QUEUE_JOBS = 4096;

let worker: Worker | undefined;
let armed = false;
let committing = false;

/**
 * Starts the watchdog thread and hands the engine its flag. The temporaries
 * and child processes made from here on are told to the watchdog too, for
 * the rare case that it has to end the process itself.
 */
export function startWatchdog(): void {
  trackTemporaries();
  if (worker === undefined) startThread();
}

/**
 * Arms the watchdog: the temporaries and child processes are tracked here
 * from now on, and the thread starts (told of them all) once the engine has
 * kept the main thread busy for {@link LONG_STRETCH_MS} without a turn of
 * the event loop (both in wall time and in the process's CPU time), or
 * before a deep step ({@link beforeStep}). Until then the main thread's signal listener, which runs
 * at every turn, is all a run needs.
 */
export function armWatchdog(): void {
  trackTemporaries();
  if (worker !== undefined) return;
  armed = true;
  let busySince = -1;
  let cpuSince = 0;
  pollInterrupt(() => {
    const now = performance.now();
    if (busySince < 0) {
      busySince = now;
      cpuSince = cpuMs();
      // The next turn of the event loop ends the busy stretch.
      Deno.unrefTimer(setTimeout(() => {
        busySince = -1;
      }, 0));
    } else if (
      now - busySince >= LONG_STRETCH_MS &&
      (cpuUsage === undefined || cpuMs() - cpuSince >= LONG_STRETCH_MS)
    ) {
      startThread();
    }
  });
}

// The process's CPU time (ms), so that a run on a loaded machine, which
// waits for a core between its short steps, is not taken for a long step.
// Deno.cpuUsage (user and system µs, Deno 2) is not in Deno's type
// declarations; without it the wall clock alone decides.
const cpuUsage = (Deno as unknown as { cpuUsage?: () => { user: number; system: number } })
  .cpuUsage;
function cpuMs(): number {
  if (cpuUsage === undefined) return 0;
  const u = cpuUsage();
  return (u.user + u.system) / 1000;
}

/**
 * Before a step: an armed watchdog starts now when `jobsInSystem` (created,
 * not yet ended or rejected) reaches {@link DEEP_QUEUE_JOBS}, since a step's
 * passes grow with the queue (a drain of 6,000 jobs queued at one instant
 * under conservative_profile takes minutes) and a signal in the first
 * milliseconds of such a step would otherwise wait for its end. HPC2N peaks
 * at 2,884 jobs in the system under EASY, KTH at 586.
 */
export function beforeStep(jobsInSystem: number): void {
  if (armed && worker === undefined && jobsInSystem >= DEEP_QUEUE_JOBS) startThread();
}

function post(m: WatchdogMessage): void {
  worker?.postMessage(m);
}

function startThread(): void {
  pollInterrupt(undefined);
  armed = false;
  const flag = new SharedArrayBuffer(4);
  worker = new Worker(new URL("./_watchdog_worker.ts", import.meta.url), { type: "module" });
  post({ flag });
  for (const [path, kind] of live) post({ made: path, kind });
  for (const pid of children) post({ spawned: pid });
  if (committing) post({ committing });
  watchInterrupt(new Int32Array(flag), exitForSignal);
}

function trackTemporaries(): void {
  watchTemporaries({
    made: (path, kind) => {
      live.set(path, kind);
      post({ made: path, kind });
    },
    released: (path) => {
      live.delete(path);
      post({ released: path });
    },
    spawned: (pid) => {
      children.add(pid);
      post({ spawned: pid });
    },
    reaped: (pid) => {
      children.delete(pid);
      post({ reaped: pid });
    },
    committing: (busy) => {
      committing = busy;
      post({ committing: busy });
    },
  });
}
