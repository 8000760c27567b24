// preemptMode "suspend" (core/_suspension.ts): a victim stops, keeps its
// work, waits again and resumes for what remains. Hand-computed examples.

import { computeMetrics, type JobSpec, type Notice, type QueueDef, Simulation } from "../../mod.ts";
import { assertEquals } from "../_assert.ts";

const QUEUES: QueueDef[] = [
  { name: "batch", priority: 0, preemptMode: "suspend" },
  { name: "urgent", priority: 10 },
];

function run(jobs: JobSpec[], totalNodes = 4) {
  const notices: Notice[] = [];
  const sim = new Simulation(
    { totalNodes, decisions: true, backfillPolicy: "easy", queues: QUEUES },
    { onNotice: (n) => notices.push(n) },
  );
  sim.appendJobs(jobs);
  const out = sim.finish();
  return { ...out, notices, stats: sim.statistics() };
}

// Job 0 (batch, 4 nodes, limit 100, runs 50) starts at 0. Job 1 (urgent, 4
// nodes, runs 20) arrives at 10: job 0 is suspended after 10 s of work (40 s
// and 90 s of limit remain), job 1 runs 10..30, job 0 resumes at 30 and ends
// at 30 + 40 = 70. Suspended 20 s; node-seconds 4 × 50 + 4 × 20 = 280.
Deno.test("suspend: the victim stops at the preemption, resumes when its room is back and runs what remains", () => {
  const r = run([
    { submitTime: 0, numNodes: 4, timeLimit: 100, actualRunTime: 50, queue: "batch" },
    { submitTime: 10, numNodes: 4, timeLimit: 20, actualRunTime: 20, queue: "urgent" },
  ]);
  assertEquals(
    r.decisions.filter((d) => d.type !== "PEND").map((d) => [d.type, d.time, d.jobId]),
    [["DISPATCH", 0, 0], ["PREEMPT", 10, 1], ["DISPATCH", 10, 1], ["DISPATCH", 30, 0]],
  );
  const p = r.decisions.find((d) => d.type === "PREEMPT");
  assertEquals(p?.type === "PREEMPT" ? [p.victims, p.mode] : [], [[0], ["suspend"]]);
  // Its row: first submit, first start, final end, the time limit as submitted.
  assertEquals(
    r.jobs.map((j) => [j.jobId, j.submitTime, j.beginTime, j.endTime, j.timeLimit, j.requeues]),
    [[0, 0, 0, 70, 100, undefined], [1, 10, 10, 30, 20, undefined]],
  );
  assertEquals(r.notices.filter((n) => n.kind === "jobStateChange"), [{
    kind: "jobStateChange",
    time: 10,
    jobId: 0,
    oldState: "running",
    newState: "suspended",
    cause: "preemption",
    nodes: [],
    requeues: 0,
    suspensions: 1,
    preemptedBy: 1,
  }] as Notice[]);
  const s = r.stats;
  assertEquals(
    [s.preemptions, s.maxPreemptions, s.preemptedWork, s.suspensions, s.suspendedSeconds],
    [1, 1, 0, 1, 20],
  );
  // Waits: job 0 from 0 to its first start 0, job 1 none. Utilization: 280
  // node-seconds of 4 × 70.
  assertEquals([s.averageWait, s.utilization], [0, 280 / (4 * 70)]);
  assertEquals(s.averageTurnaround, (70 + 20) / 2);
  // The row carries its suspended seconds: the row metrics' utilization is the statistics'.
  assertEquals(r.jobs.map((j) => j.suspendedSeconds), [20, undefined]);
  assertEquals(computeMetrics(r.jobs, 4).utilization, 280 / (4 * 70));
});

// Job 0 (limit 100, runs 60) is suspended at 10 by urgent job 2 (10..30).
// Batch job 1 came at 5 and waited behind job 0; job 0 now queues by its
// suspension instant 10, so job 1 goes first.
Deno.test("suspend: a suspended job queues by its suspension instant, behind the jobs already waiting", () => {
  const r = run([
    { submitTime: 0, numNodes: 4, timeLimit: 100, actualRunTime: 60, queue: "batch" },
    { submitTime: 5, numNodes: 4, timeLimit: 15, actualRunTime: 15, queue: "batch" },
    { submitTime: 10, numNodes: 4, timeLimit: 20, actualRunTime: 20, queue: "urgent" },
  ]);
  // 0: 0..10, suspended; 2: 10..30; 1 (submitted 5): 30..45; 0 resumes 45,
  // runs its 50 remaining seconds: ends at 95. Suspended 35 s.
  assertEquals(r.jobs.map((j) => [j.jobId, j.beginTime, j.endTime]), [
    [0, 0, 95],
    [1, 30, 45],
    [2, 10, 30],
  ]);
  assertEquals([r.stats.suspensions, r.stats.suspendedSeconds], [1, 35]);
});

Deno.test("suspend: suspended twice, the row still spans the first start to the last end", () => {
  const r = run([
    { submitTime: 0, numNodes: 4, timeLimit: 100, actualRunTime: 50, queue: "batch" },
    { submitTime: 10, numNodes: 4, timeLimit: 10, actualRunTime: 10, queue: "urgent" },
    { submitTime: 30, numNodes: 4, timeLimit: 10, actualRunTime: 10, queue: "urgent" },
  ]);
  // 0: 0..10 (10 s done), 1: 10..20, 0: 20..30 (20 s done), 2: 30..40, 0: 40..70.
  assertEquals(r.jobs.map((j) => [j.jobId, j.beginTime, j.endTime]), [
    [0, 0, 70],
    [1, 10, 20],
    [2, 30, 40],
  ]);
  assertEquals(
    [r.stats.suspensions, r.stats.suspendedSeconds, r.stats.maxPreemptions],
    [2, 20, 2],
  );
  assertEquals(r.stats.utilization, (4 * 50 + 4 * 10 + 4 * 10) / (4 * 70));
});

Deno.test("without a suspend queue the statistics have no suspension fields", () => {
  const sim = new Simulation({
    totalNodes: 4,
    queues: [{ name: "batch", preemptMode: "requeue" }, { name: "urgent", priority: 10 }],
  });
  sim.appendJobs([{ submitTime: 0, numNodes: 4, timeLimit: 10, queue: "batch" }]);
  sim.finish();
  const s = sim.statistics();
  assertEquals(["suspensions" in s, "suspendedSeconds" in s, s.preemptions], [false, false, 0]);
});
