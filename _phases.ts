// Cold timings of the CLI's phases in one process: read, simulate, format rows.
import { readTrace } from "./io/trace_csv.ts";
import { initialState, step } from "./mod.ts";
import { resourceLine } from "./io/resource_csv.ts";
import { scheduleLine } from "./io/schedule_csv.ts";
const [path, nodes] = Deno.args;
let t0 = performance.now();
const t = await readTrace(path, { requireActualRunTime: true } as never);
const read = performance.now() - t0;
t0 = performance.now();
let s = initialState({ totalNodes: Number(nodes), backfillPolicy: "easy" });
const jobRows: unknown[] = [], resRows: unknown[] = [];
const jobs = t.jobs;
for (let i = 0; i < jobs.length; i += 4096) {
  const chunk = jobs.slice(i, i + 4096);
  if (chunk[0].submitTime > s.time) {
    const r = step(s, { kind: "runUntilExclusive", time: chunk[0].submitTime });
    s = r.state;
    jobRows.push(...r.rows.jobs);
    resRows.push(...r.rows.resources);
  }
  const r = step(s, { kind: "appendJobs", jobs: chunk });
  s = r.state;
}
for (const k of ["runToCompletion", "finish"] as const) {
  const r = step(s, { kind: k });
  s = r.state;
  jobRows.push(...r.rows.jobs);
  resRows.push(...r.rows.resources);
}
const sim = performance.now() - t0;
t0 = performance.now();
let chars = 0;
for (const r of jobRows) chars += scheduleLine(r as never, { queueColumn: "queue" }).length;
for (const r of resRows) chars += resourceLine(r as never, false).length;
const fmt = performance.now() - t0;
console.log(
  `${Deno.cwd()} read ${read.toFixed(0)} sim ${sim.toFixed(0)} format ${
    fmt.toFixed(0)
  } ms (${chars} chars)`,
);
