// The watchdog thread of a command that computes on the main thread (see
// cli/_watchdog.ts). It does nothing until SIGINT or SIGTERM: then it sets
// the shared interrupt flag, which the engine checks between jobs and the
// main thread's own listener sees at its next await. Either way the main
// thread ends the run within milliseconds. Only if it has not within the
// grace time (a phase that never looks at the flag, or a policy module that
// never returns, which should have run in a worker: see cli/_supervise.ts)
// does this thread end the process itself: after a commit under way, it
// stops child processes, removes the temporaries it was told of and kills
// the process (which then exits 137, not 130/143: it could not exit
// cleanly, and says so). It imports only io/_temporaries.ts, so it starts in
// a few milliseconds on its own thread.

import { removeTemporaries, type TemporaryKind } from "../io/_temporaries.ts";

/** What the main thread tells the watchdog. */
export type WatchdogMessage =
  | { readonly flag: SharedArrayBuffer }
  | { readonly made: string; readonly kind: TemporaryKind }
  | { readonly released: string }
  | { readonly spawned: number }
  | { readonly reaped: number }
  | { readonly committing: boolean };

/** How long the main thread has to end the run itself after a signal (ms). */
const GRACE_MS = 700;

const scope = self as unknown as {
  onmessage: ((e: MessageEvent<WatchdogMessage>) => void) | null;
};

let flag: Int32Array | undefined;
const live = new Map<string, TemporaryKind>();
const children = new Set<number>();
let committing = false;
let signalled = false;

scope.onmessage = (e) => {
  const m = e.data;
  if ("flag" in m) flag = new Int32Array(m.flag);
  else if ("made" in m) live.set(m.made, m.kind);
  else if ("released" in m) live.delete(m.released);
  else if ("spawned" in m) children.add(m.spawned);
  else if ("reaped" in m) children.delete(m.reaped);
  else committing = m.committing;
};

function canKill(): boolean {
  try {
    return Deno.permissions.querySync({ name: "run" }).state === "granted";
  } catch {
    return false;
  }
}

function forceExit(waited: number): void {
  // A commit's renames take milliseconds: let them finish, so the outputs
  // are all old or all new.
  if (committing && waited < 500) {
    setTimeout(() => forceExit(waited + 20), 20);
    return;
  }
  // Without the right to send signals the main thread cannot be stopped from
  // here; removing its temporaries under it would only make things worse.
  if (!canKill()) return;
  for (const pid of children) {
    try {
      Deno.kill(pid, "SIGTERM");
    } catch { /* it has just ended */ }
  }
  removeTemporaries(live);
  try {
    Deno.stderr.writeSync(
      new TextEncoder().encode(
        "evtsim: interrupted; the run did not stop by itself, so it was killed\n",
      ),
    );
  } catch { /* stderr closed */ }
  Deno.kill(Deno.pid, "SIGKILL");
}

const signals: [Deno.Signal, number][] = [["SIGINT", 130], ["SIGTERM", 143]];
for (const [signal, code] of signals) {
  try {
    Deno.addSignalListener(signal, () => {
      if (flag !== undefined && Atomics.load(flag, 0) === 0) Atomics.store(flag, 0, code);
      if (signalled) return;
      signalled = true;
      setTimeout(() => forceExit(0), GRACE_MS);
    });
  } catch { /* a platform without this signal (SIGTERM on Windows) */ }
}
