// Interrupts that always work (issue 32 item 4). A JavaScript loop blocks the
// event loop, so a SIGINT/SIGTERM listener cannot run while the engine is in
// a long synchronous step (6,000 jobs at one instant under
// conservative_profile) or while a user's policy loops forever. An interrupt
// flag the engine checks between events would cost little but cannot stop a
// policy that never returns; so a command that can compute for long runs in
// a Worker, and the main thread does nothing but wait: on a signal it ends
// the worker (V8's TerminateExecution stops it even inside a busy loop),
// removes the temporaries the worker reported (cli/_command_worker.ts,
// io/_temporaries.ts) and exits 130 / 143, all within milliseconds. Old
// outputs are untouched: they are replaced only by the commit at the end.
// The price is one more isolate at start-up: about 20-60 ms of CPU per run
// (user+sys, medians of 10 runs: 0.10 -> 0.12 s on a 20-job trace, 0.20 ->
// 0.24 s on the demo, KTH 0.72 -> 0.70 s, within noise), paid to meet "any
// phase, a looping policy included". The main thread loads nothing but this
// file and cli/main.ts (simulate loads on demand), so no module loads twice.
//
// A sweep's cell processes are reported too, and stopped with it. Commands
// that wait rather than compute stay on the main thread with their own
// signal handling: `serve` (its shutdown hooks end recordings cleanly),
// `replay -i` (the REPL reads the terminal), and help / version.

import { removeTemporaries, type TemporaryKind } from "../io/_temporaries.ts";
import type { WorkerReport } from "./_command_worker.ts";

/** Whether `evtsim ARGS` runs its work in a worker (see the module comment). */
export function runsInWorker(args: readonly string[]): boolean {
  const [command, ...rest] = args;
  switch (command) {
    case "simulate":
    case "compare":
    case "report":
    case "dump":
    case "topo":
    case "sweep":
    case "sweep-cell":
      return !rest.some((a) => a === "-h" || a === "--help");
    case "replay":
      return !rest.some((a) =>
        a === "-h" || a === "--help" || a === "--interactive" || a.startsWith("--interactive=") ||
        /^-[A-Za-z]*i/.test(a)
      );
    default:
      return false;
  }
}

/** Runs `evtsim ARGS` in a worker; exits the process with its code, or 130 / 143 on a signal. */
export function superviseWorker(args: readonly string[]): Promise<never> {
  const worker = new Worker(new URL("./_command_worker.ts", import.meta.url), { type: "module" });
  const live = new Map<string, TemporaryKind>();
  const children = new Set<number>();
  const end = (code: number): never => {
    worker.terminate();
    // A sweep's cells stop with it (each removes its own temporaries).
    for (const pid of children) {
      try {
        Deno.kill(pid, "SIGTERM");
      } catch { /* it has just ended */ }
    }
    removeTemporaries(live);
    Deno.exit(code);
  };
  // Reports the worker sent before it was stopped are read first (a
  // temporary announced a moment before the signal).
  const interrupted = (code: number) => {
    worker.terminate();
    setTimeout(() => end(code), 0);
  };
  const signals: [Deno.Signal, number][] = [["SIGINT", 130], ["SIGTERM", 143]];
  for (const [signal, code] of signals) {
    try {
      Deno.addSignalListener(signal, () => interrupted(code));
    } catch { /* a platform without this signal (SIGTERM on Windows) */ }
  }
  return new Promise<never>(() => {
    worker.onmessage = (e: MessageEvent<WorkerReport>) => {
      const m = e.data;
      if ("made" in m) live.set(m.made, m.kind);
      else if ("released" in m) live.delete(m.released);
      else if ("spawned" in m) children.add(m.spawned);
      else if ("reaped" in m) children.delete(m.reaped);
      else if ("exit" in m) end(m.exit);
      else {
        // A bug: its stack, as an uncaught error would print it.
        Deno.stderr.writeSync(new TextEncoder().encode(`error: Uncaught ${m.crash}\n`));
        end(1);
      }
    };
    worker.onerror = (e) => {
      e.preventDefault();
      Deno.stderr.writeSync(new TextEncoder().encode(`error: Uncaught ${e.message}\n`));
      end(1);
    };
    worker.postMessage({ args: [...args] });
  });
}
