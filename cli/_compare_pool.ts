// `evtsim compare`'s policies on the cores: a few Deno Workers
// (cli/_compare_worker.ts), and the command's own thread when no policy
// module may load, each running one policy's `simulate` after another, so the
// runs go on side by side; the trace this thread parses is sent to each
// worker with its first task (cli/_compare_jobs.ts). A run's files, and so its row, are those of the same run alone; the
// rows keep the order of --policies whatever order the runs end in. On a
// failure the other runs are stopped and the error is the command's.

import { EvtsimError } from "../core/errors.ts";
import type { Console } from "./simulate.ts";
import type { CompareReply, CompareTask } from "./_compare_worker.ts";
import type { SharedTrace } from "./_compare_jobs.ts";

/** How one run ended: its exit code and stdout lines (and, run in memory, the figures a row reads, as JSON). */
export interface RunOutput {
  readonly code: number;
  readonly out: readonly string[];
  readonly stats?: string;
}

/**
 * Runs `simulate` for each of `tasks` on `workers` workers; `ended(i,
 * out)` is called as run `i` ends (in the order they end). Resolves when all
 * have ended; rejects with the first failure.
 */
export async function runOnWorkers(
  tasks: readonly CompareTask[],
  workers: number,
  con: Console,
  ended: (i: number, out: RunOutput) => Promise<void>,
  here?: (task: CompareTask) => Promise<RunOutput>,
  seed?: Promise<{ trace?: SharedTrace }>,
): Promise<void> {
  const pool: Worker[] = [];
  let next = 0;
  let failed = false;
  let seeded = 0;
  const one = async () => {
    const w = new Worker(new URL("./_compare_worker.ts", import.meta.url), { type: "module" });
    pool.push(w);
    // The trace this thread reads for its first run, sent with the worker's
    // first task: the worker starts up meanwhile and need not read it.
    let box = seed === undefined ? undefined : await seed;
    while (next < tasks.length && !failed) {
      const i = next++;
      const asked = ask(
        w,
        box?.trace === undefined ? tasks[i] : { ...tasks[i], seed: box.trace },
        con,
      );
      // Each worker's copy is made as it is sent: once all have theirs,
      // the columns are not kept here.
      if (box !== undefined && ++seeded === runners - (here === undefined ? 0 : 1)) {
        box.trace = undefined;
      }
      box = undefined;
      const out = await asked;
      if (!failed) await ended(i, out);
    }
  };
  // This thread is one of the runners when `here` is given: its code is
  // compiled from V8's cache, a worker's is compiled again, so the first
  // run starts here at once while the workers start up.
  const local = async () => {
    while (next < tasks.length && !failed) {
      const i = next++;
      const out = await here!(tasks[i]);
      if (!failed) await ended(i, out);
    }
  };
  const runners = Math.max(1, Math.min(workers, tasks.length));
  // On a failure no new run starts, but the runs under way are let end
  // before the workers go: a worker stopped in the middle of opening its
  // outputs could make its folder again after the command removed its
  // scratch folder, and leave it behind.
  let first: { error: unknown } | undefined;
  try {
    await Promise.all(
      Array.from(
        { length: runners },
        (_, k) =>
          (k === 0 && here !== undefined ? local() : one()).catch((e) => {
            failed = true;
            first ??= { error: e };
          }),
      ),
    );
  } finally {
    for (const w of pool) w.terminate();
  }
  if (first !== undefined) throw first.error;
}

function ask(w: Worker, task: CompareTask, con: Console): Promise<RunOutput> {
  return new Promise((resolve, reject) => {
    w.onmessage = (e: MessageEvent<CompareReply>) => {
      const m = e.data;
      if ("err" in m) con.err(m.err);
      else if ("code" in m) {
        resolve({ code: m.code, out: m.out, ...(m.stats !== undefined ? { stats: m.stats } : {}) });
      } else if ("error" in m) reject(new EvtsimError(m.error.kind, m.error.message));
      else reject(new Error(m.crash));
    };
    w.onerror = (e) => {
      e.preventDefault();
      reject(new Error(e.message));
    };
    w.postMessage(task);
  });
}
