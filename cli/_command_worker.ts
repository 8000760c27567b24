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

scope.onmessage = async (e) => {
  watchTemporaries({
    made: (path, kind) => post({ made: path, kind }),
    released: (path) => post({ released: path }),
    spawned: (pid) => post({ spawned: pid }),
    reaped: (pid) => post({ reaped: pid }),
    committing: (busy) => post({ committing: busy }),
  });
  try {
    post({ exit: await main(e.data.args, processConsole()) });
  } catch (err) {
    post({ crash: err instanceof Error ? err.stack ?? String(err) : String(err) });
  }
};
