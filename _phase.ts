import { readTrace } from "./io/trace_csv.ts";
import { initialState, step } from "./mod.ts";
const mode = Deno.args[0];
const t = await readTrace(Deno.args[1], { requireActualRunTime: true });
if (mode === "parse") Deno.exit(0);
let s = initialState({ totalNodes: Number(Deno.args[2]), backfillPolicy: "easy" });
let rows = 0;
const jobs = t.jobs;
for (let i = 0; i < jobs.length; i += 4096) {
  const chunk = jobs.slice(i, i + 4096);
  if (chunk[0].submitTime > s.time) {
    const r = step(s, { kind: "runUntilExclusive", time: chunk[0].submitTime });
    s = r.state;
    rows += r.rows.jobs.length + r.rows.resources.length;
  }
  const r = step(s, { kind: "appendJobs", jobs: chunk });
  s = r.state;
}
for (const input of [{ kind: "runToCompletion" }, { kind: "finish" }] as const) {
  const r = step(s, input);
  s = r.state;
  rows += r.rows.jobs.length + r.rows.resources.length;
}
console.log(rows);
