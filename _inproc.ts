// In-process engine timing on a CSV trace: best of N runs (after one warm-up).
// usage: deno run -A inproc.ts TRACE NODES POLICY(easy|none|conservative) [N]
import { readTrace } from "./io/trace_csv.ts";
import { initialState, step } from "./mod.ts";
const [path, nodes, policy, n] = Deno.args;
const t = await readTrace(path, { requireActualRunTime: true } as never);
const jobs = t.jobs;
const backfillPolicy = policy as "easy";
const priorityPolicy = policy === "conservative" ? "fcfs_conservative" : "fcfs";
function once(): number {
  const t0 = performance.now();
  let s = initialState({ totalNodes: Number(nodes), backfillPolicy, priorityPolicy });
  for (let i = 0; i < jobs.length; i += 4096) {
    const chunk = jobs.slice(i, i + 4096);
    if (chunk[0].submitTime > s.time) {
      s = step(s, { kind: "runUntilExclusive", time: chunk[0].submitTime }).state;
    }
    s = step(s, { kind: "appendJobs", jobs: chunk }).state;
  }
  s = step(s, { kind: "runToCompletion" }).state;
  step(s, { kind: "finish" });
  return performance.now() - t0;
}
once();
const times = Array.from({ length: Number(n ?? 5) }, once).sort((a, b) => a - b);
console.log(
  `${Deno.cwd()} best ${times[0].toFixed(0)} ms median ${times[times.length >> 1].toFixed(0)} ms`,
);
