// A live queue update keeps and changes a queue's preemptMode (issue 30): an
// update that makes a queue preemptible lets a higher-priority job preempt
// its running jobs from then on, and one that changes only the priority of a
// preemptible queue leaves it preemptible (the update merged every field but
// this one, so both were lost silently).

import { Simulation } from "../../api/simulation.ts";
import type { DecisionRow } from "../../core/decisions.ts";
import { assertEquals } from "../_assert.ts";

function run(
  queues: { name: string; priority?: number; preemptMode?: "off" | "requeue" | "cancel" }[],
  update: { name: string; priority?: number; preemptMode?: "off" | "requeue" | "cancel" },
  at = 50,
): { preempts: [number, number, number[]][]; begin: number } {
  const preempts: [number, number, number[]][] = [];
  const sim = new Simulation({ totalNodes: 6, runTimeMode: "limit", decisions: true, queues }, {
    onDecision: (d: DecisionRow) => {
      if (d.type === "PREEMPT") preempts.push([d.time, d.jobId, [...d.victims]]);
    },
  });
  sim.appendJobs([
    { submitTime: 0, numNodes: 3, timeLimit: 100, queue: "batch" },
    { submitTime: 0, numNodes: 3, timeLimit: 100, queue: "batch" },
    { submitTime: 20, numNodes: 4, timeLimit: 30, queue: "urgent" },
    // An arrival at 60: a round after the update at 50.
    { submitTime: 60, numNodes: 1, timeLimit: 10, queue: "batch" },
  ]);
  sim.updateQueue(update, at);
  const out = sim.finish();
  return { preempts, begin: out.jobs.find((r) => r.jobId === 2)!.beginTime };
}

Deno.test("updateQueue: a queue made preemptible at 50 is preempted from then on", () => {
  const r = run([{ name: "batch" }, { name: "urgent", priority: 10 }], {
    name: "batch",
    preemptMode: "requeue",
  });
  // The youngest first (job 1), then job 0 as well: 4 nodes need both.
  // At the update's own round, at 50.
  assertEquals(r.preempts, [[50, 2, [1, 0]]]);
  assertEquals(r.begin, 50);
});

Deno.test("updateQueue: a priority change keeps the queue's preemptMode; preemptMode off ends it", () => {
  const queues = [{ name: "batch", preemptMode: "requeue" as const }, {
    name: "urgent",
    priority: 10,
  }];
  // Updates at 10, before the urgent job arrives at 20.
  const kept = run(queues, { name: "batch", priority: 1 }, 10);
  assertEquals([kept.preempts, kept.begin], [[[20, 2, [1, 0]]], 20]);
  const ended = run(queues, { name: "batch", preemptMode: "off" }, 10);
  assertEquals([ended.preempts, ended.begin], [[], 100]);
});
