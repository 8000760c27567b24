// A preemption under a power cap (core/_preemption.ts, docs/power.md): a job
// that the cap would refuse once its victims have left preempts nobody.

import { type DecisionRow, type JobSpec, Simulation, type SimulationConfig } from "../../mod.ts";
import { assertEquals } from "../_assert.ts";

// 5 nodes of 10 W idle and 30 W busy; batch jobs may be requeued by urgent ones.
const CONFIG: SimulationConfig = {
  totalNodes: 5,
  idleWatts: 10,
  busyWatts: 30,
  decisions: true,
  backfillPolicy: "easy",
  queues: [
    { name: "batch", priority: 0, preemptMode: "requeue" },
    { name: "urgent", priority: 10 },
  ],
};

const JOBS: JobSpec[] = [
  // An urgent job that is never a victim: 1 node and 50 W of its own until 300.
  { submitTime: 0, numNodes: 1, timeLimit: 300, queue: "urgent", power: 50 },
  { submitTime: 0, numNodes: 2, timeLimit: 100, queue: "batch" },
  { submitTime: 0, numNodes: 2, timeLimit: 100, queue: "batch" },
  // Needs 3 nodes at 10: only by preempting both batch jobs.
  { submitTime: 10, numNodes: 3, timeLimit: 100, queue: "urgent", power: 90 },
];

function run(powerCap: number) {
  const sim = new Simulation({ ...CONFIG, powerCap });
  sim.appendJobs(JOBS);
  const out = sim.finish();
  return { ...out, stats: sim.statistics() };
}

const brief = (d: DecisionRow) =>
  d.type === "PEND"
    ? `${d.time} PEND ${d.jobId} ${d.reason.code}`
    : `${d.time} ${d.type} ${d.jobId}`;

Deno.test("power cap 250 W: a preemption the cap would refuse after the victims leave is not made", () => {
  const r = run(250);
  // At 0 all three start: 5 × 30 + 50 = 200 W. Job 3 alone would draw
  // 2 × 10 + 3 × 30 + 90 = 200 W (under the cap: not held), but with job 0
  // running on once both batch jobs had left, 10 + 4 × 30 + 50 + 90 = 270 W:
  // over 250, so job 3 preempts nobody. At 100 the batch jobs end and the
  // same 270 W refuses it; at 300 job 0 ends and it starts (200 W).
  assertEquals(r.decisions.filter((d) => d.type === "PREEMPT"), []);
  assertEquals(r.jobs.map((j) => [j.jobId, j.beginTime, j.endTime, j.requeues]), [
    [0, 0, 300, undefined],
    [1, 0, 100, undefined],
    [2, 0, 100, undefined],
    [3, 300, 400, undefined],
  ]);
  assertEquals(r.stats.preemptions ?? 0, 0);
  assertEquals(
    r.decisions.filter((d) => d.type === "PEND" && d.jobId === 3).map(brief),
    ["10 PEND 3 insufficient_nodes", "100 PEND 3 power_cap"],
  );
  assertEquals(r.resources.map((x) => [x.time, x.allocatedNodes, x.power]), [
    [0, 0, 5 * 10],
    [0, 1, 4 * 10 + 30 + 50],
    [0, 3, 2 * 10 + 3 * 30 + 50],
    [0, 5, 5 * 30 + 50],
    [100, 3, 2 * 10 + 3 * 30 + 50],
    [100, 1, 4 * 10 + 30 + 50],
    [300, 0, 5 * 10],
    [300, 3, 2 * 10 + 3 * 30 + 90],
    [400, 0, 5 * 10],
  ]);
});

Deno.test("power cap 270 W: the same preemption fits the cap and is made", () => {
  const r = run(270);
  // 10 + 4 × 30 + 50 + 90 = 270 W: at the cap, allowed; both batch jobs go back.
  assertEquals(
    r.decisions.filter((d) => d.type === "PREEMPT").map((d) => d.type === "PREEMPT" && d.victims),
    [[2, 1]],
  );
  assertEquals(r.jobs.find((j) => j.jobId === 3)?.beginTime, 10);
});
