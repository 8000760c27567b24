// Stand-in for `cli/main.ts simulate` used by traces.ts when the CLI is not
// there (or with --runner library): reads a DR_EVT `simple` CSV, runs the
// library, writes the schedule and resource rows, and prints the statistics
// lines traces.ts parses. It accepts only the options the suite passes.
//
// usage: _library_runner.ts TRACE --total_nodes N [--backfill_policy B]
//          [--priority_policy P] [--run_time_mode actual|limit] [--outfile F]
//          [--resource_trace R]

import { initialState, type JobSpec, step } from "../mod.ts";
import { statistics } from "../core/queries.ts";
import type { BackfillPolicy, PriorityPolicy, RunTimeMode, StepRows } from "../core/types.ts";
import { parseScriptArgs } from "./_args.ts";

function parseSimpleCsv(text: string): JobSpec[] {
  const lines = text.split("\n");
  const header = lines[0].trim().split(",");
  const col = (names: string[]) => header.findIndex((h) => names.includes(h.trim()));
  const cSubmit = col(["job_submit_time", "submit_time"]);
  const cNodes = col(["num_nodes"]);
  const cLimit = col(["time_limit", "limit_time"]);
  const cQueue = col(["queue", "q_id"]);
  const cActual = col([
    "actual_run_time",
    "actual_runtime",
    "duration",
    "actual_duration",
    "run_time",
  ]);
  if (cSubmit < 0 || cNodes < 0 || cLimit < 0) throw new Error("trace: missing a required column");
  const jobs: JobSpec[] = [];
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === "") continue;
    const c = line.split(",");
    jobs.push({
      submitTime: Number(c[cSubmit]),
      numNodes: Number(c[cNodes]),
      timeLimit: Number(c[cLimit]),
      actualRunTime: cActual >= 0 ? Number(c[cActual]) : undefined,
      queue: cQueue >= 0 ? c[cQueue] : undefined,
    });
  }
  return jobs;
}

async function main(args: string[]): Promise<number> {
  const started = performance.now();
  const usage = "usage: _library_runner.ts TRACE --total_nodes N [options]";
  let f;
  try {
    f = parseScriptArgs(args, {
      total_nodes: { type: "string" },
      backfill_policy: { type: "string" },
      priority_policy: { type: "string" },
      run_time_mode: { type: "string" },
      outfile: { type: "string" },
      resource_trace: { type: "string" },
    });
  } catch (e) {
    console.error(`Error: ${(e as Error).message}\n${usage}`);
    return 1;
  }
  const o = f.values;
  if (f.positionals.length !== 1 || o.total_nodes === undefined) {
    console.error(`Error: ${usage}`);
    return 1;
  }
  const jobs = parseSimpleCsv(await Deno.readTextFile(f.positionals[0]));
  let s = initialState({
    totalNodes: Number(o.total_nodes),
    backfillPolicy: (o.backfill_policy ?? "easy") as BackfillPolicy,
    priorityPolicy: (o.priority_policy ?? "fcfs") as PriorityPolicy,
    runTimeMode: (o.run_time_mode ?? "actual") as RunTimeMode,
  });
  const jobLines = ["job_id,submit_time,begin_time,end_time,num_nodes,time_limit,queue"];
  const resLines = ["time,free_nodes,allocated_nodes"];
  const take = (rows: StepRows) => {
    for (const r of rows.jobs) {
      jobLines.push(
        `${r.jobId},${r.submitTime},${r.beginTime},${r.endTime},${r.numNodes},${r.timeLimit},${
          r.queue ?? ""
        }`,
      );
    }
    for (const r of rows.resources) resLines.push(`${r.time},${r.freeNodes},${r.allocatedNodes}`);
  };
  for (
    const input of [{ kind: "appendJobs", jobs }, { kind: "runToCompletion" }, {
      kind: "finish",
    }] as const
  ) {
    const r = step(s, input);
    take(r.rows);
    s = r.state;
  }
  const out = o.outfile;
  if (out !== undefined) await Deno.writeTextFile(out, jobLines.join("\n") + "\n");
  const res = o.resource_trace;
  if (res !== undefined) await Deno.writeTextFile(res, resLines.join("\n") + "\n");
  const st = statistics(s);
  console.log("\n=== Simulation Statistics ===");
  console.log(`Total jobs: ${st.totalJobs}`);
  console.log(`Jobs completed: ${st.jobsCompleted}`);
  console.log(`Average wait time: ${Number(st.averageWait.toPrecision(6))} sec`);
  console.log(`Peak queue length: ${st.peakQueueLength} jobs`);
  console.log(`\nWall clock time to run simulation: ${(performance.now() - started) / 1000} (sec)`);
  return 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
