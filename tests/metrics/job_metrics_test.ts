// io/stats_json.ts's JobMetrics: a run without a statistics JSON keeps no
// per-job values (only `add`'s figures for the extended schedule), and one
// with it keeps every completed job's wait and slowdown.

import { EvtsimError } from "../../core/errors.ts";
import type { JobRow } from "../../core/types.ts";
import { JobMetrics } from "../../io/stats_json.ts";
import { assert, assertEquals } from "../_assert.ts";

function row(jobId: number, submitTime: number, beginTime: number, endTime: number): JobRow {
  return { jobId, submitTime, beginTime, endTime, numNodes: 1, timeLimit: 100, queue: undefined };
}

Deno.test("JobMetrics without keep gives each job's figures and no distributions", () => {
  const m = new JobMetrics(false);
  assertEquals(m.add(row(0, 0, 40, 50)), { wait: 40, boundedSlowdown: 5 });
  let thrown: unknown;
  try {
    m.waits();
  } catch (e) {
    thrown = e;
  }
  assert(thrown instanceof EvtsimError && thrown.kind === "state", String(thrown));
});

Deno.test("JobMetrics keeps every completed job's wait and slowdown by default", () => {
  const m = new JobMetrics();
  for (let i = 0; i < 3000; i++) m.add(row(i, 0, i, i + 10));
  m.add({ ...row(3000, 0, 99999, 100000), outcome: "failed", exitStatus: 1 });
  const w = m.waits();
  assertEquals([w.count, w.p50, w.max], [3000, 1499, 2999]);
  assertEquals(m.slowdowns().count, 3000);
});
