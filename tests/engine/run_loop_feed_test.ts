// The simulate loop feeds a trace in small appendJobs steps (a long step's
// rows and records outlive scavenges and fill the old generation: issue 34
// item 3), and the schedule is the one appending everything at once gives.

import { assert, assertEquals } from "../_assert.ts";
import { initialState } from "../../api/initial_state.ts";
import { type Input, step } from "../../core/step.ts";
import type { JobRow } from "../../core/types.ts";
import type { JobSpec } from "../../core/types.ts";
import type { LoadedInput } from "../../cli/load.ts";
import { Progress } from "../../cli/progress.ts";
import { type LoopContext, simulateFiles, Yielder } from "../../cli/run_loop.ts";

function trace(n: number): JobSpec[] {
  const jobs: JobSpec[] = [];
  for (let i = 0; i < n; i++) {
    jobs.push({
      submitTime: i * 7,
      numNodes: 1 + (i * 37) % 16,
      timeLimit: 50 + (i * 53) % 400,
      actualRunTime: 10 + (i * 29) % 300,
    });
  }
  return jobs;
}

const CONFIG = { totalNodes: 32, backfillPolicy: "easy" } as const;

Deno.test("simulate feeds a trace in appendJobs steps of at most 512 jobs, same schedule", async () => {
  const jobs = trace(2000);
  let state = initialState(CONFIG);
  const rows: JobRow[] = [];
  const sizes: number[] = [];
  const apply = (input: Input) => {
    if (input.kind === "appendJobs") sizes.push(input.jobs.length);
    const r = step(state, input);
    state = r.state;
    rows.push(...r.rows.jobs);
  };
  const loop: LoopContext = {
    apply,
    current: () => state,
    progress: new Progress("simulating", 0, false, { write: () => {}, columns: () => 80 }),
    maxTime: undefined,
    memoryLimit: undefined,
    yielder: new Yielder(),
  };
  const input: LoadedInput = {
    mode: "simulation",
    jobs,
    recorded: [],
    queueColumn: undefined,
    messages: [],
    linesRead: jobs.length,
  };
  await simulateFiles(["trace.csv"], input, 0, () => Promise.reject(), () => {}, loop);
  apply({ kind: "runToCompletion" });
  apply({ kind: "finish" });
  assert(Math.max(...sizes) <= 512, `chunks: ${sizes.join(",")}`);
  assertEquals(sizes.reduce((a, b) => a + b, 0), jobs.length);

  let whole = initialState(CONFIG);
  const expected: JobRow[] = [];
  for (const i of [{ kind: "appendJobs", jobs }, { kind: "runToCompletion" }, { kind: "finish" }]) {
    const r = step(whole, i as Input);
    whole = r.state;
    expected.push(...r.rows.jobs);
  }
  assertEquals(rows, expected);
});
