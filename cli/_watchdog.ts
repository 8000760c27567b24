// Interrupts that always work, at the cost of a thread rather than a cold
// engine (issue 32 item 4). A command that computes runs on the main thread,
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

import { watchInterrupt } from "../core/_interrupt.ts";
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

/**
 * Starts the watchdog thread and hands the engine its flag. The temporaries
 * and child processes made from here on are told to the watchdog too, for
 * the rare case that it has to end the process itself.
 */
export function startWatchdog(): void {
  const flag = new SharedArrayBuffer(4);
  const worker = new Worker(new URL("./_watchdog_worker.ts", import.meta.url), { type: "module" });
  const post = (m: WatchdogMessage) => worker.postMessage(m);
  post({ flag });
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
    committing: (busy) => post({ committing: busy }),
  });
  watchInterrupt(new Int32Array(flag), exitForSignal);
}
