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
// The price is one more isolate at start-up, a constant of about 40-80 ms
// of CPU per run (user+sys, medians of 10 runs on a loaded 2-core machine,
// before -> after: a 20-job trace 0.07 -> 0.11 s, the demo 0.21 -> 0.29 s,
// KTH 0.80 -> 0.86 s; wall time on KTH within noise), mostly the worker
// compiling the module graph. It is paid because the cheaper design, a flag
// the engine checks between events (set by a signal-watching thread), cannot
// stop a policy that never returns, nor the other long synchronous phases
// (a replay, a dump, a report's charts) without a check in each. The main
// thread loads only this file and cli/main.ts (simulate loads on demand),
// so no module is loaded twice.
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
    removeTemporaries(live);
    Deno.exit(code);
  };
  const stopChild = (pid: number) => {
    try {
      Deno.kill(pid, "SIGTERM");
    } catch { /* it has just ended */ }
  };
  // On a signal: reports the worker sent before it are read first (a
  // temporary announced a moment before); a commit under way (a few
  // renames) is let finish, so the outputs are all old or all new; a
  // sweep's cells are sent SIGTERM and waited for (each removes its own
  // temporaries; ending the worker first would kill them outright). Then the
  // worker is ended, its temporaries removed. At most a second in all.
  let committing = false;
  let stopping: number | undefined;
  let stopped = false;
  const stopNow = () => {
    if (stopped) return;
    stopped = true;
    worker.terminate();
    setTimeout(() => end(stopping!), 0); // its last reports first
  };
  const proceed = () => {
    if (stopping !== undefined && !committing && children.size === 0) stopNow();
  };
  const interrupted = (code: number) => {
    if (stopping !== undefined) return;
    stopping = code;
    for (const pid of children) stopChild(pid);
    setTimeout(proceed, 0);
    setTimeout(stopNow, 900); // a commit or a cell that hangs: stop anyway
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
      else if ("spawned" in m) {
        children.add(m.spawned);
        if (stopping !== undefined) stopChild(m.spawned);
      } else if ("reaped" in m) {
        children.delete(m.reaped);
        proceed();
      } else if ("committing" in m) {
        committing = m.committing;
        proceed();
      } else if ("exit" in m) end(m.exit);
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
