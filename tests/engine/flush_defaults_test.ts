// The default reclaim interval and resource buffer (512 each, 4096 before):
// they change when rows are written, never which; and a state an earlier
// build saved with up to 4096 buffered rows still loads and continues.

import {
  advanceTo,
  appendJobs,
  initialState,
  type Input,
  loadSnapshot,
  runToCompletion,
  saveSnapshot,
  type SimState,
  step,
} from "../../mod.ts";
import { DEFAULT_RESOURCE_HISTORY_CAPACITY } from "../../core/config.ts";
import { assert, assertEquals } from "../_assert.ts";

// 3000 one-node jobs on 2 nodes, a second apart, each running 1 s: a start
// and an end row each.
const JOBS = Array.from({ length: 3000 }, (_, i) => ({
  submitTime: i,
  numNodes: 1,
  timeLimit: 5,
  actualRunTime: 1,
}));
const FINISH: Input = { kind: "finish" };

// The job rows and the resource rows `inputs` write from `s`, and the state after them.
function run(s: SimState, inputs: readonly Input[]) {
  const jobs: string[] = [], resources: string[] = [];
  for (const input of inputs) {
    const r = step(s, input);
    s = r.state;
    for (const j of r.rows.jobs) jobs.push(`${j.jobId},${j.beginTime},${j.endTime}`);
    for (const x of r.rows.resources) resources.push(`${x.time},${x.allocatedNodes}`);
  }
  return { state: s, jobs, resources };
}

Deno.test("the default buffers write the rows a 4096-row buffer writes, sooner", () => {
  const inputs = [appendJobs(JOBS), advanceTo(2040)];
  const earlier = { totalNodes: 2, resourceHistoryCapacity: 4096, jobFlushInterval: 4096 };
  const now = run(initialState({ totalNodes: 2 }), inputs);
  const before = run(initialState(earlier), inputs);
  // By t = 2040 (4083 rows made) the default has written all but the last few hundred.
  assert(now.state.resourceBufferLength < DEFAULT_RESOURCE_HISTORY_CAPACITY);
  assert(
    now.resources.length > 3500 && before.resources.length === 0,
    `${before.resources.length}`,
  );
  const rest = [runToCompletion(), FINISH];
  const a = run(now.state, rest), b = run(before.state, rest);
  assertEquals([...now.jobs, ...a.jobs], [...before.jobs, ...b.jobs]);
  assertEquals([...now.resources, ...a.resources], [...before.resources, ...b.resources]);
});

Deno.test("a state saved with the earlier default's buffer loads and continues", () => {
  // A run that buffered past 512 rows, saved as the earlier build saved it
  // (capacity 0: its default of 4096).
  const { state } = run(initialState({ totalNodes: 2, resourceHistoryCapacity: 4096 }), [
    appendJobs(JOBS),
    advanceTo(2040),
  ]);
  const saved = JSON.parse(JSON.stringify(saveSnapshot(state)));
  assert(saved.resourceBuffer.length > DEFAULT_RESOURCE_HISTORY_CAPACITY);
  saved.config.resourceHistoryCapacity = 0;
  const rest = [runToCompletion(), FINISH];
  const loaded = run(loadSnapshot(saved), rest);
  const original = run(state, rest);
  assertEquals(loaded.resources, original.resources);
  assertEquals(loaded.jobs, original.jobs);
  // More rows than any build buffered by default is refused.
  const last = saved.resourceBuffer.at(-1);
  while (saved.resourceBuffer.length <= 4096) saved.resourceBuffer.push(last);
  let refused = "";
  try {
    loadSnapshot(saved);
  } catch (e) {
    refused = (e as Error).message;
  }
  assert(refused.includes("resourceBuffer"), refused);
});
