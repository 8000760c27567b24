// The GPU example (examples/gpu_trace.csv on examples/gpu_machine.yaml) run
// by `evtsim simulate` under EASY: what the machine tests compare each front
// against.

import { ROOT, runCli } from "./_cli.ts";
import { assertEquals } from "./_assert.ts";

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
