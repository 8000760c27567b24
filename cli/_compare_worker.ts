// A worker of `evtsim compare` (cli/_compare_pool.ts): it runs `simulate`
// for each policy it is sent, in this isolate, so its later runs are warm and
// share one parse of the trace (cli/_trace_cache.ts). Its stderr lines go to
// the command as they come; a run's stdout lines come back with its code. An
// error is sent as the one line the command prints for it.

import { EvtsimError } from "../core/errors.ts";
import { describeFsError, isFsError } from "../io/fs_errors.ts";
import { ignoreRecordedPolicyFaults } from "./_policy_fault_listeners.ts";
import { simulateCommand } from "./simulate.ts";
import { TraceCache } from "./_trace_cache.ts";
import { figuresJson, KeepOneOutput } from "./_cell_outputs.ts";
import type { ErrorKind } from "../core/errors.ts";
import { sharedInput, type SharedTrace } from "./_compare_jobs.ts";

/** What the command sends: one simulate run. */
export interface CompareTask {
  readonly args: readonly string[];
  /**
   * The run's --stats_json path, when the run's outputs stay in memory and
   * the run is stats-only (the figures a row reads sent back as `stats`, as
   * the statistics JSON writes them; cli/_cell_outputs.ts).
   */
  readonly keepOnly?: string;
  /** A trace the command's thread has read (cli/_compare_jobs.ts), for this worker's cache. */
  readonly seed?: SharedTrace;
}

/** What the worker sends back. */
export type CompareReply =
  | { readonly err: string }
  | { readonly code: number; readonly out: readonly string[]; readonly stats?: string }
  | { readonly error: { readonly kind: ErrorKind; readonly message: string } }
  | { readonly crash: string };

const scope = self as unknown as {
  postMessage(m: CompareReply): void;
  onmessage: ((e: MessageEvent<CompareTask>) => void) | null;
};
const post = (m: CompareReply) => scope.postMessage(m);

ignoreRecordedPolicyFaults();
const cache = new TraceCache();

// `Deno.exit(N)` in a policy ends only this worker, and silently: the
// command would wait for ever. The unload event still runs: fail the run.
let busy = false;
globalThis.addEventListener("unload", () => {
  if (busy) {
    post({
      error: {
        kind: "policy",
        message: `a policy called Deno.exit(${Deno.exitCode}) during the run; the run is void`,
      },
    });
  }
});

scope.onmessage = async (e) => {
  const out: string[] = [];
  const keepOnly = e.data.keepOnly;
  const fs = keepOnly === undefined ? undefined : new KeepOneOutput(keepOnly);
  let stats: string | undefined;
  busy = true;
  try {
    if (e.data.seed !== undefined) {
      cache.adopt(e.data.seed.key, sharedInput(e.data.seed));
      // The columns are not kept during the run (the message stays in scope).
      (e.data as { seed?: SharedTrace }).seed = undefined;
    }
    const code = await simulateCommand(
      e.data.args,
      { out: (l) => out.push(l), err: (l) => post({ err: l }), isTerminal: false },
      // In memory, the run is stats-only: the figures a row reads.
      {
        load: cache.load,
        ...(fs !== undefined ? { fs, figures: (f) => stats = figuresJson(f) } : {}),
      },
    );
    busy = false;
    post({ code, out, ...(stats !== undefined ? { stats } : {}) });
  } catch (err) {
    busy = false;
    if (err instanceof EvtsimError) post({ error: { kind: err.kind, message: err.message } });
    else if (isFsError(err)) post({ error: { kind: "input", message: describeFsError(err) } });
    else post({ crash: err instanceof Error ? err.stack ?? String(err) : String(err) });
  }
};
