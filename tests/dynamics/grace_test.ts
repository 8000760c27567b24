// A queue's graceTime (core/_grace.ts): a preemption signals its victims,
// which run on until the grace ends (or their own end), then stop; the
// preemptor starts once they have left; no job starts meanwhile.
// Hand-computed examples.

import {
  type DecisionRow,
  type JobSpec,
  type Notice,
  type QueueDef,
  Simulation,
} from "../../mod.ts";
import { assertEquals } from "../_assert.ts";

const queues = (mode: "requeue" | "cancel" | "suspend", graceTime = 30): QueueDef[] => [
  { name: "batch", priority: 0, preemptMode: mode, graceTime },
  { name: "urgent", priority: 10 },
];

function run(jobs: JobSpec[], q: QueueDef[], totalNodes = 5) {
  const notices: Notice[] = [];
  const sim = new Simulation(
    { totalNodes, decisions: true, backfillPolicy: "easy", queues: q },
    { onNotice: (n) => notices.push(n) },
  );
  sim.appendJobs(jobs);
  const out = sim.finish();
  const starts = out.decisions.filter((d) => d.type !== "PEND")
    .map((d) => [d.type, d.time, d.jobId]);
  return { ...out, notices, stats: sim.statistics(), starts };
}

// 5 nodes. Job 0 (batch, 4 nodes, runs 100) starts at 0. Job 1 (urgent, 5
// nodes, runs 20) arrives at 10: it needs job 0's 4 nodes and the free one.
// Job 0 is signalled at 10 and runs on until 10 + 30 = 40, when it is
// requeued (4 × 40 = 160 node-seconds lost); job 1 starts at 40, ends at 60.
// Job 2 (batch, 1 node, runs 5) arrives at 15 and fits the free node, but the
// claim holds it: it starts at 60 with job 0 (requeued at 40, so behind it).
const JOBS: JobSpec[] = [
  { submitTime: 0, numNodes: 4, timeLimit: 100, actualRunTime: 100, queue: "batch" },
  { submitTime: 10, numNodes: 5, timeLimit: 20, actualRunTime: 20, queue: "urgent" },
  { submitTime: 15, numNodes: 1, timeLimit: 5, actualRunTime: 5, queue: "batch" },
];

Deno.test("grace time: the victim runs on until the grace ends, the preemptor starts then, nothing else starts meanwhile", () => {
  const r = run(JOBS, queues("requeue"));
  assertEquals(r.starts, [
    ["DISPATCH", 0, 0],
    ["PREEMPT", 10, 1],
    ["DISPATCH", 40, 1],
    ["DISPATCH", 60, 2],
    ["DISPATCH", 60, 0],
  ]);
  const p = r.decisions.find((d) => d.type === "PREEMPT") as Extract<
    DecisionRow,
    { type: "PREEMPT" }
  >;
  assertEquals([p.victims, p.mode, p.grace, p.stopAt], [[0], ["requeue"], [30], 40]);
  assertEquals(r.jobs.map((j) => [j.jobId, j.beginTime, j.endTime, j.requeues]), [
    [0, 60, 160, 1],
    [1, 40, 60, undefined],
    [2, 60, 65, undefined],
  ]);
  const change = r.notices.find((n) => n.kind === "jobStateChange");
  assertEquals([change?.time, change?.jobId], [40, 0]);
  assertEquals([r.stats.preemptions, r.stats.preemptedWork], [1, 160]);
});

Deno.test("grace time: a victim that ends on its own during the grace completes; the preemptor starts then", () => {
  const jobs = JOBS.map((j, i) => i === 0 ? { ...j, actualRunTime: 25 } : j);
  const r = run(jobs, queues("requeue"));
  assertEquals(r.starts, [
    ["DISPATCH", 0, 0],
    ["PREEMPT", 10, 1],
    ["DISPATCH", 25, 1],
    ["DISPATCH", 45, 2],
  ]);
  assertEquals(r.jobs.map((j) => [j.jobId, j.beginTime, j.endTime, j.requeues]), [
    [0, 0, 25, undefined],
    [1, 25, 45, undefined],
    [2, 45, 50, undefined],
  ]);
  assertEquals([r.stats.preemptions, r.stats.preemptedWork], [1, 0]);
  assertEquals(r.notices.filter((n) => n.kind === "jobStateChange"), []);
});

// Suspended at the grace's end (40, after 40 s of work), job 0 resumes at 60
// with 60 s left: it ends at 120. Cancelled, it ends at 40, exit status 143.
Deno.test("grace time with suspend and cancel: the victim stops at the grace's end", () => {
  const s = run(JOBS, queues("suspend"));
  assertEquals(s.jobs.map((j) => [j.jobId, j.beginTime, j.endTime]), [
    [0, 0, 120],
    [1, 40, 60],
    [2, 60, 65],
  ]);
  assertEquals([s.stats.suspensions, s.stats.suspendedSeconds, s.stats.preemptedWork], [1, 20, 0]);
  const c = run(JOBS, queues("cancel"));
  assertEquals(c.jobs.map((j) => [j.jobId, j.beginTime, j.endTime, j.exitStatus]), [
    [0, 0, 40, 143],
    [1, 40, 60, undefined],
    [2, 60, 65, undefined],
  ]);
});

Deno.test("grace time 0 is the default: the same rows and decisions as without the field", () => {
  const a = run(JOBS, queues("requeue", 0));
  const b = run(JOBS, [{ name: "batch", preemptMode: "requeue" }, {
    name: "urgent",
    priority: 10,
  }]);
  assertEquals([a.jobs, a.decisions, a.notices], [b.jobs, b.decisions, b.notices]);
  assertEquals(a.starts[1], ["PREEMPT", 10, 1]);
  assertEquals(a.starts[2], ["DISPATCH", 10, 1]);
});
