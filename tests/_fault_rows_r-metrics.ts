// Fault rows of the metric breakdowns and --trim (issue 29, r-metrics).

import type { FaultRow } from "./repo/fault_catalogue_test.ts";
import { computeMetrics } from "../core/metrics.ts";
import { runCli } from "./_cli.ts";

const TRACE = "job_submit_time,num_nodes,time_limit\n0,1,10\n5,2,10\n";

async function simulate(dir: string, args: string[]) {
  await Deno.writeTextFile(`${dir}/t.csv`, TRACE);
  const r = await runCli(["simulate", `${dir}/t.csv`, "-n", "4", "-o", `${dir}/s.csv`, ...args]);
  return { code: r.code, error: r.err.join("\n") };
}

export const METRICS_ROWS: FaultRow[] = [
  {
    surface: "in-process",
    input: "simulate --trim 1.5,0 (a fraction must be below 1, a count whole)",
    run: (dir) => simulate(dir, ["--stats_json", `${dir}/s.json`, "--trim", "1.5,0"]),
    expected:
      /^evtsim: --trim: expected WARMUP,COOLDOWN, each a fraction in \[0, 1\) or a whole number of jobs, got '1\.5,0'$/,
  },
  {
    surface: "in-process",
    input: "simulate --trim with --measure_window",
    run: (dir) => simulate(dir, ["--trim", "0,1", "--measure_window", "0:10"]),
    expected: /^evtsim: --trim and --measure_window: give one of them, not both$/,
  },
  {
    surface: "in-process",
    input: "report --trim 10 (one number, not WARMUP,COOLDOWN)",
    run: async (dir) => {
      const r = await runCli(["report", `${dir}/s.csv`, "--out", `${dir}/r.html`, "--trim", "10"]);
      return { code: r.code, error: r.err.join("\n") };
    },
    expected: /^evtsim: --trim: expected WARMUP,COOLDOWN/,
  },
  {
    surface: "in-process",
    input: "sweep --format arrow",
    run: async (dir) => {
      await Deno.writeTextFile(`${dir}/t.csv`, TRACE);
      await Deno.writeTextFile(`${dir}/s.yaml`, "traces: [t.csv]\ntotal_nodes: [4]\n");
      const r = await runCli(["sweep", `${dir}/s.yaml`, "--format", "arrow"]);
      return { code: r.code, error: r.err.join("\n") };
    },
    expected: /^evtsim: --format expects csv or parquet, got 'arrow'$/,
  },
  {
    surface: "library",
    input: "computeMetrics with trim [-1, 0]",
    run: () => {
      try {
        computeMetrics([], 1, { trim: [-1, 0] });
        return Promise.resolve({ code: 0, error: "" });
      } catch (e) {
        return Promise.resolve({ code: 1, error: (e as Error).message });
      }
    },
    expected: /^trim warmup must be a fraction in \[0, 1\) or a whole number of jobs, got -1$/,
  },
];
