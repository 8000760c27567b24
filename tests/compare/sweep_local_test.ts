// The local executor's worker processes (cli/_sweep_local.ts): V8 runs
// single-threaded only when the cells fill the cores; with fewer cells at once
// than cores, V8's compiler and GC threads use the idle cores (a sweep's cold
// first cells compile the engine while they run). Slurm's tasks, one per CPU,
// stay single-threaded.

import { assert, assertEquals } from "../_assert.ts";
import { selfCommand, workerArgv } from "../../cli/_sweep_local.ts";

const singleThreaded = (argv: readonly string[]) =>
  argv.some((a) => a.startsWith("--v8-flags=") && a.includes("--single-threaded"));

Deno.test("sweep local: workers are single-threaded only when --jobs fills the cores", () => {
  const cores = navigator.hardwareConcurrency ?? 1;
  const argv = (jobs: number) => workerArgv("/s/spec.yaml", "/s/results", jobs);
  assert(singleThreaded(argv(cores)));
  assert(singleThreaded(argv(cores + 3)));
  if (cores > 1) assert(!singleThreaded(argv(cores - 1)));
  assert(!singleThreaded(argv(1)) || cores === 1);
  // Either way the same command: the permissions, the semi-space, sweep-cell.
  const tail = ["sweep-cell", "/s/spec.yaml", "--stdin", "--results", "/s/results"];
  assertEquals(argv(1).slice(-5), tail);
  assertEquals(argv(cores).slice(-5), tail);
  for (const jobs of [1, cores]) {
    assert(argv(jobs).some((a) => a.startsWith("--v8-flags=--max-semi-space-size=32")));
    assert(argv(jobs).includes("--allow-read") && !argv(jobs).includes("--allow-run"));
  }
});

Deno.test("sweep local: Slurm's command (one task per CPU) stays single-threaded", () => {
  assert(singleThreaded(selfCommand()));
  assert(!singleThreaded(selfCommand(false)));
});
