// The worker a command runs in when evtsim runs as a process (see
// cli/_supervise.ts): it runs `main` on the arguments it is sent, tells the
// main thread of every temporary as it is made and released, and sends the
// exit code (or the stack of a bug, which the main thread prints).

import { main, processConsole } from "./main.ts";
import { ignoreRecordedPolicyFaults } from "./_policy_fault_listeners.ts";
import { watchTemporaries } from "../io/_temporaries.ts";

/** What the worker sends to the main thread. */
export type WorkerReport =
  | { readonly made: string; readonly kind: "file" | "folder" | "tree" }
  | { readonly released: string }
  | { readonly spawned: number }
  | { readonly reaped: number }
  | { readonly committing: boolean }
  | { readonly exit: number }
  | { readonly crash: string };

// The worker's global scope (the checker types `self` as a window).
const scope = self as unknown as {
  postMessage(m: WorkerReport): void;
  onmessage: ((e: MessageEvent<{ args: string[] }>) => void) | null;
};
const post = (m: WorkerReport) => scope.postMessage(m);

ignoreRecordedPolicyFaults();

// `Deno.exit(N)` in a policy ends only this worker, and silently: the main
// thread would wait for ever. The unload event still runs, so say it here;
// the main thread then removes the temporaries and exits N.
let finished = false;
globalThis.addEventListener("unload", () => {
  if (!finished) post({ exit: Deno.exitCode });
});

scope.onmessage = async (e) => {
  watchTemporaries({
    made: (path, kind) => post({ made: path, kind }),
    released: (path) => post({ released: path }),
    spawned: (pid) => post({ spawned: pid }),
    reaped: (pid) => post({ reaped: pid }),
    committing: (busy) => post({ committing: busy }),
  });
  try {
    const code = await main(e.data.args, processConsole());
    finished = true;
    post({ exit: code });
  } catch (err) {
    finished = true;
    post({ crash: err instanceof Error ? err.stack ?? String(err) : String(err) });
  }
};
