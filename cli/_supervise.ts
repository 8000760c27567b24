// Interrupts that always work (docs/outputs.md, "Errors and exit status") for code that may never
// return. A JavaScript loop blocks its thread, so no signal listener on that
// thread can run while a user's policy module loops forever. Such runs go to
// a Worker, and the main thread does nothing but wait: on a signal it ends
// the worker (V8's TerminateExecution stops it even inside a busy loop),
// removes the temporaries the worker reported (cli/_command_worker.ts,
// io/_temporaries.ts) and exits 130 / 143, all within milliseconds. Old
// outputs are untouched: they are replaced only by the commit at the end.
//
// The worker costs a second module graph compiled without the code cache,
// about 130 ms a run on KTH (bench:traces, 2 cores), so it is kept for the
// runs that load user code: `--policy_module` (given, or named in a
// `--config` file), `replay` (a recording names its modules and they load
// by themselves), and `sweep` / `sweep-cell` whose spec names a
// `policy_module` (a sweep of built-in policies pays it neither in the sweep
// nor in its cell processes: a SIGTERM from the sweep stops a cell through
// its watchdog).
// Every other computing command runs on the main thread with a watchdog
// thread and an interrupt flag the engine checks (cli/_watchdog.ts).
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
  if (rest.some((a) => a === "-h" || a === "--help")) return false;
  switch (command) {
    case "sweep":
    case "sweep-cell":
      return specLoadsPolicyModule(rest);
    case "replay":
      return !rest.some((a) =>
        a === "--interactive" || a.startsWith("--interactive=") || /^-[A-Za-z]*i/.test(a)
      );
    case "simulate":
    case "compare":
      return loadsPolicyModule(rest);
    default:
      return false;
  }
}

/** Whether `evtsim ARGS` computes on the main thread under the watchdog (cli/_watchdog.ts). */
export function runsUnderWatchdog(args: readonly string[]): boolean {
  const [command, ...rest] = args;
  if (rest.some((a) => a === "-h" || a === "--help")) return false;
  switch (command) {
    case "simulate":
    case "compare":
    case "report":
    case "dump":
    case "topo":
    case "sweep":
    case "sweep-cell":
      return !runsInWorker(args);
    default:
      return false;
  }
}

// `--policy_module` on the command line, or in a `--config` file (read here
// only to look for the name: the command reads and checks it properly).
function loadsPolicyModule(rest: readonly string[]): boolean {
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i];
    if (a === "--policy_module" || a.startsWith("--policy_module=")) return true;
    let config: string | undefined;
    if (a === "-c" || a === "--config") config = rest[i + 1];
    else if (a.startsWith("--config=")) config = a.slice("--config=".length);
    else if (/^-c./.test(a)) config = a.slice(2);
    if (config !== undefined) {
      try {
        if (Deno.readTextFileSync(config).includes("policy_module")) return true;
      } catch { /* unreadable: the command says so */ }
    }
  }
  return false;
}

// A sweep runs user code when its spec names a policy module (the spec
// reader loads it to check the policy names; each cell loads it), and
// `sweep collect` reads the spec its folder records. Without a spec file
// among the arguments (a missing one: the command says so) it cannot be
// told, so a worker it is.
function specLoadsPolicyModule(rest: readonly string[]): boolean {
  if (rest.includes("collect")) return true;
  let spec = false;
  for (const a of rest) {
    const path = a.startsWith("--") ? a.slice(a.indexOf("=") + 1) : a;
    let text: string;
    try {
      if (!Deno.statSync(path).isFile) continue;
      text = Deno.readTextFileSync(path);
    } catch {
      continue;
    }
    spec = true;
    if (text.includes("policy_module")) return true;
  }
  return !spec;
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
