// The GPU example (examples/gpu_trace.csv on examples/gpu_machine.yaml) run
// by `evtsim simulate` under EASY: what the machine tests compare each front
// against.

import { ROOT, runCli } from "./_cli.ts";
import { assertEquals } from "./_assert.ts";
import { byTimes } from "./_trace_jobs.ts";

/** Runs `evtsim simulate` on the GPU example under EASY with `options`; fails unless it exits 0. */
export async function simulateGpu(options: string[]): Promise<void> {
  const r = await runCli([
    "simulate",
    `${ROOT}examples/gpu_trace.csv`,
    "--machine",
    `${ROOT}examples/gpu_machine.yaml`,
    "-b",
    "easy",
    ...options,
  ]);
  assertEquals(r.code, 0, r.err.join("\n"));
}

/** Node changes on the GPU example's machine, as a `--capacity_schedule` file. */
export const GPU_NODE_SCHEDULE = "time,nodes,state\n200,gpu,down\n400,cpu003,down\n" +
  "500,cpu001,down\n2500,gpu,up\n2600,cpu003,up\n2700,cpu001,up\n";

/** The same node changes as live requests (`changeNodes`, gRPC `change_capacity`). */
export const GPU_NODE_CHANGES = [
  { time: 200, down: ["gpu"] },
  { time: 400, down: ["cpu003"] },
  { time: 500, down: ["cpu001"] },
  { time: 2500, up: ["gpu"] },
  { time: 2600, up: ["cpu003"] },
  { time: 2700, up: ["cpu001"] },
];

/**
 * The GPU example with {@link GPU_NODE_SCHEDULE} under `cut` (files in
 * `dir`): each job's [id, begin, end] in the order of {@link byTimes}, and
 * the stats JSON.
 */
export async function gpuRunWithNodeChanges(
  dir: string,
  cut: "drain" | "kill",
  // deno-lint-ignore no-explicit-any
): Promise<{ rows: number[][]; stats: any }> {
  await Deno.writeTextFile(`${dir}/c.csv`, GPU_NODE_SCHEDULE);
  await simulateGpu([
    "--capacity_schedule",
    `${dir}/c.csv`,
    "--on_capacity_cut",
    cut,
    "-o",
    `${dir}/s.csv`,
    "--stats_json",
    `${dir}/stats.json`,
  ]);
  const rows = (await Deno.readTextFile(`${dir}/s.csv`)).trim().split("\n").slice(1)
    .map((l) => l.split(",").slice(0, 3).map(Number)).sort(byTimes);
  return { rows, stats: JSON.parse(await Deno.readTextFile(`${dir}/stats.json`)) };
}
