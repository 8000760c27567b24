// A small run a spare session worker makes before its session exists, so V8
// has compiled and optimised the engine's hot path (append, advance, EASY
// admission, the finish reply's pages) on the server's spare time instead of
// on the first client's. It goes through the same calls a session answers,
// in a session of its own that is dropped at the end: it uses built-in
// policies only, and the engine keeps no state between simulations.

import type { JobSpec } from "../../core/types.ts";
import { SessionPlace } from "./_session_ops.ts";

/** Jobs of the warm-up run: enough for V8 to optimise the hot functions. */
export const WARM_UP_JOBS = 2000;

/** `n` seeded jobs with increasing submit times on a 64-node machine. */
function warmJobs(n: number): JobSpec[] {
  let a = 0x9e3779b9;
  const rand = () => {
    a = (Math.imul(a, 1664525) + 1013904223) >>> 0;
    return a / 4294967296;
  };
  const jobs: JobSpec[] = [];
  let t = 0;
  for (let i = 0; i < n; i++) {
    t += 1 + Math.floor(rand() * 20);
    const timeLimit = 10 + Math.floor(rand() * 600);
    jobs.push({
      submitTime: t,
      numNodes: 1 + Math.floor(rand() ** 2 * 64),
      timeLimit,
      actualRunTime: 1 + Math.floor(rand() * timeLimit),
    });
  }
  return jobs;
}

/** Runs the warm-up session; never throws (a failed warm-up only leaves the code colder). */
export function warmUp(jobs = WARM_UP_JOBS): void {
  try {
    const place = SessionPlace.create(
      { id: "warm-up", params: { totalNodes: 64, backfillPolicy: "easy" } },
      {},
    );
    const all = warmJobs(jobs);
    for (let i = 0; i < all.length; i += 100) {
      const part = all.slice(i, i + 100);
      place.answer({ op: "append", jobs: part, submit: true });
      place.answer({ op: "step", method: "advanceTo", args: [part.at(-1)!.submitTime] });
    }
    place.answer({ op: "finish", runToCompletion: true });
    for (const field of ["jobs", "resources", "notices", "decisions"] as const) {
      place.answer({ op: "page", field, from: 0, count: 5000 });
    }
    place.answer({ op: "close" });
  } catch { /* colder code, same results */ }
}
