// Fault rows of the report's Gantt chart on allocated nodes (issue 29 item 2, r-gantt).

import type { FaultRow } from "./repo/fault_catalogue_test.ts";
import { runCli } from "./_cli.ts";

// Reports a schedule whose second job's nodes field is `nodes`.
async function report(dir: string, nodes: string) {
  Deno.writeTextFileSync(
    `${dir}/run.csv`,
    "job_submit_time,begin_time,end_time,num_nodes,exit_status,nodes\n" +
      `0,0,10,2,0,n[001-002]\n0,0,10,1,0,${nodes}\n`,
  );
  Deno.writeTextFileSync(`${dir}/run_resources.csv`, "time,free_nodes,allocated_nodes\n0,1,3\n");
  const r = await runCli(["report", `${dir}/run.csv`, "--out", `${dir}/r.html`]);
  return { code: r.code, error: r.err.join("\n") };
}

export const GANTT_ROWS: FaultRow[] = [
  {
    surface: "in-process",
    input: "report: a schedule's nodes field is not a hostlist (n[003-001])",
    run: (dir) => report(dir, "n[003-001]"),
    expected:
      /^evtsim: \S+run\.csv:3: nodes: expected a Slurm hostlist: hostlist "n\[003-001\]": range '003-001' ends before it starts$/,
  },
  {
    surface: "in-process",
    input: "report: a schedule's nodes field names a billion nodes",
    run: (dir) => report(dir, "n[1-1000000000]"),
    expected:
      /^evtsim: \S+run\.csv:3: nodes: hostlist 'n\[1-1000000000\]' names 1000000000 nodes, more than a report draws \(16777216\)$/,
  },
];
