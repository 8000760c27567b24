// Decisions as rows: the whole stream of a small trace is pinned (codes,
// messages, times, rounds), and on random runs every PEND reason is checked
// against the state the job rows say held at that moment.

import fc from "fast-check";
import type { DecisionRow, JobRow, QueueDef, SimulationConfig } from "../../mod.ts";
import { arbScenario, runBatch } from "../../testing/mod.ts";
import { assert, assertEquals } from "../_assert.ts";

const RUNS = Number(Deno.env.get("EVTSIM_PROPERTY_RUNS") ?? 200);

function text(d: DecisionRow): string {
  return d.type === "DISPATCH"
    ? `${d.time} r${d.round} DISPATCH ${d.jobId} nodes=${d.numNodes}${
      d.backfill ? " backfill" : ""
    }`
    : `${d.time} r${d.round} PEND ${d.jobId} ${d.reason.code}: ${d.reason.message}`;
}

Deno.test("decisions: the whole stream of a small EASY trace", () => {
  const out = runBatch({ totalNodes: 10, backfillPolicy: "easy", decisions: true }, [
    { submitTime: 0, numNodes: 6, timeLimit: 100, actualRunTime: 80 },
    { submitTime: 10, numNodes: 8, timeLimit: 50 },
    { submitTime: 20, numNodes: 4, timeLimit: 50 },
    { submitTime: 20, numNodes: 4, timeLimit: 200 },
    { submitTime: 30, numNodes: 6, timeLimit: 10 },
  ]);
  assertEquals(out.decisions.map(text), [
    "0 r1 DISPATCH 0 nodes=6",
    "10 r2 PEND 1 insufficient_nodes: needs 8 nodes, 4 free",
    "20 r3 DISPATCH 2 nodes=4 backfill",
    "20 r3 PEND 3 backfill_skipped: no node is free: no backfill pass behind job 1",
    "30 r4 PEND 4 backfill_skipped: no node is free: no backfill pass behind job 1",
    // The scheduler plans with limits: job 0's 6 nodes are due back at 100, not at 80.
    "70 r5 PEND 3 reservation_blocked: would end at 270, not before the reservation at 100 of job 1",
    "70 r5 PEND 4 insufficient_nodes: needs 6 nodes, 4 free",
    "80 r6 DISPATCH 1 nodes=8",
    "80 r6 PEND 3 insufficient_nodes: needs 4 nodes, 2 free",
    "130 r7 DISPATCH 3 nodes=4",
    "130 r7 DISPATCH 4 nodes=6",
  ]);
});

Deno.test("decisions: queues give queue_limit and queue_closed; none gives behind_head", () => {
  const queues: QueueDef[] = [{ name: "a", maxRunning: 1 }, { name: "b", open: false }];
  const out = runBatch({ totalNodes: 10, backfillPolicy: "none", queues, decisions: true }, [
    { submitTime: 0, numNodes: 2, timeLimit: 10, queue: "a" },
    { submitTime: 0, numNodes: 2, timeLimit: 10, queue: "a" },
    { submitTime: 0, numNodes: 2, timeLimit: 10, queue: "b" },
  ]);
  assertEquals(out.decisions.map(text), [
    "0 r1 DISPATCH 0 nodes=2",
    "0 r1 PEND 1 queue_limit: queue a runs its maximum of 1 jobs",
    "0 r1 PEND 2 queue_closed: queue b is closed",
    "10 r2 DISPATCH 1 nodes=2",
  ]);
  const none = runBatch({ totalNodes: 4, backfillPolicy: "none", decisions: true }, [
    { submitTime: 0, numNodes: 4, timeLimit: 10 },
    { submitTime: 0, numNodes: 3, timeLimit: 10 },
    { submitTime: 0, numNodes: 1, timeLimit: 10 },
  ]);
  assertEquals(none.decisions.map(text).slice(1), [
    "0 r1 PEND 1 insufficient_nodes: needs 3 nodes, 0 free",
    "0 r1 PEND 2 behind_head: no backfilling: job 1 is ahead",
    "10 r2 DISPATCH 1 nodes=3",
    "10 r2 DISPATCH 2 nodes=1",
  ]);
});

/**
 * The nodes held just before decision `i`: jobs that began earlier, or at
 * this instant by a dispatch earlier in the stream, and have not ended by
 * then (a zero-length job started in an earlier round at this instant has).
 */
function heldAt(rows: readonly JobRow[], decisions: readonly DecisionRow[], i: number): number {
  const d = decisions[i];
  const dispatchedAt = new Map<number, { index: number; round: number }>();
  decisions.forEach((x, k) => {
    if (x.type === "DISPATCH") dispatchedAt.set(x.jobId, { index: k, round: x.round });
  });
  let held = 0;
  for (const r of rows) {
    const start = dispatchedAt.get(r.jobId);
    const began = r.beginTime < d.time ||
      (r.beginTime === d.time && start !== undefined && start.index < i);
    if (!began) continue;
    const ended = r.endTime < d.time ||
      (r.endTime === d.time && (r.beginTime < d.time || start!.round < d.round));
    if (!ended) held += r.numNodes;
  }
  return held;
}

Deno.test("decisions: every PEND reason is true of the state at that moment", () => {
  fc.assert(
    fc.property(
      arbScenario({ maxJobs: 25, priorities: ["fcfs", "fcfs_conservative", "sjf", "ljf"] }),
      ({ config: c, trace }) => {
        const config: SimulationConfig = { ...c, decisions: true };
        const out = runBatch(config, trace);
        const rows = out.jobRows;
        const byId = new Map(rows.map((r) => [r.jobId, r]));
        const violations: string[] = [];
        out.decisions.forEach((d, i) => {
          const free = Math.max(0, config.totalNodes - heldAt(rows, out.decisions, i));
          const where = `${text(d)} (free ${free})`;
          if (d.type === "DISPATCH") {
            if (d.numNodes > free) violations.push(`${where}: does not fit`);
            return;
          }
          const job = byId.get(d.jobId)!;
          const r = d.reason;
          const startedBefore = (id: number) => {
            const k = out.decisions.findIndex((x) => x.type === "DISPATCH" && x.jobId === id);
            return byId.get(id)!.beginTime < d.time || (k >= 0 && k < i);
          };
          if (startedBefore(job.jobId)) violations.push(`${where}: the job had started`);
          switch (r.code) {
            case "insufficient_nodes":
              if (!(job.numNodes > free) || r.free !== free) {
                violations.push(`${where}: needs ${job.numNodes}`);
              }
              break;
            case "reservation_blocked":
              if (r.end !== d.time + job.timeLimit || !(r.end! >= r.reservation!)) {
                violations.push(`${where}: end ${r.end} vs reservation ${r.reservation}`);
              }
              if (job.numNodes > free) violations.push(`${where}: does not even fit`);
              break;
            case "backfill_skipped":
              if (free !== 0) violations.push(`${where}: nodes were free`);
              break;
            case "behind_head": {
              const ahead = byId.get(r.blockedBy!);
              if (ahead === undefined || startedBefore(ahead.jobId)) {
                violations.push(`${where}: job ${r.blockedBy} was not waiting`);
              }
              break;
            }
            default:
              violations.push(`${where}: no queues in this run`);
          }
        });
        assertEquals(violations, []);
      },
    ),
    { seed: 6060, numRuns: RUNS },
  );
});

Deno.test('decisions "heads": the same schedule and DISPATCH rows as `true`, PEND rows only for jobs the policy looked at', () => {
  let pends = 0;
  fc.assert(
    fc.property(
      arbScenario({ maxJobs: 25, priorities: ["fcfs", "fcfs_conservative", "sjf", "ljf"] }),
      ({ config, trace }) => {
        const off = runBatch(config, trace);
        const all = runBatch({ ...config, decisions: true }, trace);
        const heads = runBatch({ ...config, decisions: "heads" }, trace);
        assertEquals(heads.jobRows, off.jobRows);
        assertEquals(heads.resourceRows, off.resourceRows);
        const dispatches = (ds: readonly DecisionRow[]) => ds.filter((d) => d.type === "DISPATCH");
        assertEquals(dispatches(heads.decisions), dispatches(all.decisions));
        // With the built-in (indexed) pickers a heads PEND of DR_EVT's rules
        // is a blocked head: the first job of its round that did not fit.
        // (The textbook policies, drawn from the registry too, pend the jobs
        // their walk looks at.)
        const drevt = ["none", "easy", "conservative"].includes(config.backfillPolicy ?? "easy");
        for (const d of drevt ? heads.decisions : []) {
          if (d.type !== "PEND") continue;
          pends++;
          assertEquals(d.reason.code, "insufficient_nodes");
          const rest = heads.decisions.filter((x) =>
            x.round === d.round && x.type === "PEND" && x !== d
          );
          assertEquals(rest, []);
        }
      },
    ),
    { seed: 7070, numRuns: RUNS },
  );
  if (pends === 0) throw new Error("no heads PEND row was seen");
});

Deno.test("decisions: conservative's reservation_blocked names the job whose reservation it would delay", () => {
  // The property above checks that a reason is true, not that it names *the*
  // blocking job. DR_EVT's CONSERVATIVE window is the reservation of the
  // smallest job ahead (the first of equal ones): here job 2 (5 nodes, not
  // the head's 8, nor job 3 of the same size), reserved at 100 when job 0 ends.
  const jobs = [
    { submitTime: 0, numNodes: 6, timeLimit: 100 },
    { submitTime: 0, numNodes: 8, timeLimit: 10 },
    { submitTime: 0, numNodes: 5, timeLimit: 10 },
    { submitTime: 0, numNodes: 5, timeLimit: 10 },
    { submitTime: 0, numNodes: 2, timeLimit: 200 },
    { submitTime: 0, numNodes: 1, timeLimit: 50 },
  ];
  const config: SimulationConfig = {
    totalNodes: 10,
    backfillPolicy: "conservative",
    decisions: true,
  };
  const out = runBatch(config, jobs);
  const round = out.decisions.filter((d) => d.round === 1).map(text);
  // Job 4 fits now, so its own reservation is now: job 5 behind it waits (DR_EVT's walk).
  assertEquals(round, [
    "0 r1 DISPATCH 0 nodes=6",
    "0 r1 PEND 1 insufficient_nodes: needs 8 nodes, 4 free",
    "0 r1 PEND 2 insufficient_nodes: needs 5 nodes, 4 free",
    "0 r1 PEND 3 insufficient_nodes: needs 5 nodes, 4 free",
    "0 r1 PEND 4 reservation_blocked: would end at 200, not before the reservation at 100 of job 2",
    "0 r1 PEND 5 reservation_blocked: would end at 50, not before the reservation at 0 of job 4",
  ]);
  const blocked = out.decisions.find((d) => d.type === "PEND" && d.jobId === 4);
  assert(blocked?.type === "PEND" && blocked.reason.blockedBy === 2, JSON.stringify(blocked));
});
