// `easy_extra` (textbook EASY with the extra-nodes rule): the engine against
// the plain reference simulator (tests/_reference_sim.ts) on random traces,
// both of its paths (the walk with every decision, the indexed search), the
// EASY guarantees as properties over its own decision rows, and a worked
// example pinned job by job.

import fc from "fast-check";
import type { DispatchDecision } from "../../core/decisions.ts";
import type { JobRow, JobSpec, SimulationConfig } from "../../core/types.ts";
import { type ActualRunTimeKind, arbScenario, runBatch } from "../../testing/mod.ts";
import { referenceSimulate } from "../_reference_sim.ts";
import { assert, assertEquals } from "../_assert.ts";

const RUNS = Number(Deno.env.get("EVTSIM_PROPERTY_RUNS") ?? 500);

function easyExtra(config: SimulationConfig): SimulationConfig {
  return { ...config, priorityPolicy: "fcfs", backfillPolicy: "easy_extra" };
}

/** Small traces, and deep queues (fast arrivals on a small machine) past the index's cut-off. */
function scenarios(seedShift = 0) {
  return fc.oneof(
    { weight: 4, arbitrary: arbScenario({ allowOversized: true, minJobs: 5, maxJobs: 40 }) },
    {
      weight: 1,
      arbitrary: arbScenario({
        totalNodes: 64,
        maxNodes: 64,
        maxGap: 2 + seedShift,
        minJobs: 70,
        maxJobs: 110,
        ties: true,
      }),
    },
  );
}

Deno.test("easy_extra: the engine equals the plain reference on 500 random traces, deep queues included", () => {
  let deep = 0;
  let differsFromEasy = 0;
  fc.assert(
    fc.property(scenarios(), ({ config, trace }) => {
      const c = easyExtra(config);
      const engine = runBatch(c, trace);
      const ref = referenceSimulate(c, trace);
      assertEquals(engine.jobRows, ref.jobRows);
      assertEquals(engine.resourceRows, ref.resourceRows);
      if (engine.statistics.peakQueueLength > 64) deep++;
      const easy = runBatch({ ...c, backfillPolicy: "easy" }, trace);
      if (JSON.stringify(easy.jobRows) !== JSON.stringify(engine.jobRows)) differsFromEasy++;
    }),
    { seed: 1616, numRuns: RUNS },
  );
  // The tests would prove nothing if the traces never went deep or never
  // gave the extra-nodes rule anything to do.
  assert(deep >= RUNS / 20, `only ${deep} of ${RUNS} traces had a queue deeper than 64`);
  assert(differsFromEasy >= RUNS / 10, `only ${differsFromEasy} traces differ from DR_EVT's EASY`);
});

Deno.test("easy_extra: the walk (a decision for every job) and the indexed search decide alike", () => {
  fc.assert(
    fc.property(scenarios(), fc.constantFrom("builtin_fcfs", "sjf", "ljf"), (s, picker) => {
      const c = { ...easyExtra(s.config), picker };
      const searched = runBatch(c, s.trace);
      const walked = runBatch({ ...c, decisions: true }, s.trace);
      assertEquals(walked.jobRows, searched.jobRows);
      assertEquals(walked.resourceRows, searched.resourceRows);
      const heads = runBatch({ ...c, decisions: "heads" }, s.trace);
      assertEquals(
        heads.decisions.filter((d) => d.type === "DISPATCH"),
        walked.decisions.filter((d) => d.type === "DISPATCH"),
      );
    }),
    { seed: 1617, numRuns: 150 },
  );
});

/**
 * The EASY guarantees, checked from the engine's own DISPATCH rows with a
 * shadow time and extra nodes computed here from the rows: for each backfill
 * at t, the head (the oldest job still waiting at that decision) has a
 * reservation S > t against the jobs running then (by their limits); the
 * backfilled job fits the free nodes and either ends by S or needs no more
 * than the extra nodes left (recomputing after earlier backfills of the pass
 * gives the extra nodes left); and the head starts no later than S.
 * Preconditions: FCFS order, positive limits, 1 <= actual <= limit.
 */
function easyExtraViolations(
  totalNodes: number,
  trace: readonly JobSpec[],
  rows: readonly JobRow[],
  dispatches: readonly DispatchDecision[],
): string[] {
  const bad: string[] = [];
  const row = new Map(rows.map((r) => [r.jobId, r]));
  const started: number[] = [];
  const startedSet = new Set<number>();
  for (const d of dispatches) {
    const t = d.time;
    if (d.backfill) {
      const running = started
        .map((id) => row.get(id)!)
        .filter((r) => r.endTime > t);
      const free = totalNodes - running.reduce((n, r) => n + r.numNodes, 0);
      const headId = trace.findIndex((j, id) => j.submitTime <= t && !startedSet.has(id));
      const head = trace[headId];
      const ends = running.map((r) => ({ end: r.beginTime + r.timeLimit, nodes: r.numNodes }))
        .filter((e) => e.end > t).sort((a, b) => a.end - b.end);
      let shadow = -1;
      let released = free;
      for (const e of ends) {
        released += e.nodes;
        if (released >= head.numNodes) {
          shadow = e.end;
          break;
        }
      }
      const job = trace[d.jobId];
      if (head.numNodes <= free) bad.push(`t=${t}: head ${headId} fits, yet ${d.jobId} backfilled`);
      if (shadow <= t) bad.push(`t=${t}: job ${d.jobId} backfilled with no reservation`);
      const atShadow = free +
        ends.filter((e) => e.end <= shadow).reduce((n, e) => n + e.nodes, 0);
      const extra = atShadow - head.numNodes;
      if (job.numNodes > free) bad.push(`t=${t}: job ${d.jobId} does not fit ${free} free`);
      if (!(t + job.timeLimit <= shadow || job.numNodes <= extra)) {
        bad.push(
          `t=${t}: job ${d.jobId} ends at ${t + job.timeLimit} after the shadow ${shadow} ` +
            `and needs ${job.numNodes} > ${extra} extra nodes`,
        );
      }
      const headBegin = row.get(headId)?.beginTime;
      if (headBegin === undefined || headBegin > shadow) {
        bad.push(`t=${t}: head ${headId} reserved at ${shadow} began at ${headBegin}`);
      }
    }
    started.push(d.jobId);
    startedSet.add(d.jobId);
  }
  return bad;
}

for (const actual of ["atMostLimit", "equalsLimit"] as ActualRunTimeKind[]) {
  Deno.test(`easy_extra (actual ${actual}): the head's reservation holds and every backfill ends by it or fits the extra nodes`, () => {
    let backfills = 0;
    let extraUsed = 0;
    const arb = arbScenario({ actual, zeroLimits: false, minJobs: 5, maxJobs: 40, maxGap: 15 })
      .map(({ config, trace }) => ({
        config,
        // Runs of at least 1 s: a zero run started and ended at one instant
        // holds nodes no reservation expects back (see checkEasyHeadReservation).
        trace: trace.map((j) =>
          j.actualRunTime === undefined ? j : { ...j, actualRunTime: Math.max(1, j.actualRunTime) }
        ),
      }));
    fc.assert(
      fc.property(arb, ({ config, trace }) => {
        const c = { ...easyExtra(config), decisions: true };
        const out = runBatch(c, trace);
        const dispatches = out.decisions.filter((d): d is DispatchDecision =>
          d.type === "DISPATCH"
        );
        const bad = easyExtraViolations(config.totalNodes, trace, out.jobRows, dispatches);
        assertEquals(bad, []);
        for (const d of dispatches) {
          if (!d.backfill) continue;
          backfills++;
          const r = out.jobRows.find((x) => x.jobId === d.jobId)!;
          if (r.beginTime + r.timeLimit > headlessShadow(out.jobRows, d)) extraUsed++;
        }
      }),
      { seed: actual === "equalsLimit" ? 1618 : 1619, numRuns: 300 },
    );
    assert(backfills > 300, `only ${backfills} backfills`);
    assert(extraUsed > 30, `only ${extraUsed} backfills past a shadow time`);
  });
}

// The latest projected end among the jobs running at a backfill: a job that
// ends after it certainly ends after the shadow time (so it used extra nodes).
function headlessShadow(rows: readonly JobRow[], d: DispatchDecision): number {
  let latest = d.time;
  for (const r of rows) {
    if (r.beginTime < d.time && r.endTime > d.time) {
      latest = Math.max(latest, r.beginTime + r.timeLimit);
    }
  }
  return latest;
}

// The worked example (docs/policies.md, "Textbook backfilling"): a 10-node machine.
// Job 0 holds 6 nodes until 100. Job 1 (8 nodes) cannot start: its shadow
// time is 100, when 10 nodes are free, 2 more than it needs. Job 2 (2 nodes,
// 300 s) would run past 100 but fits the 2 extra nodes; job 3 (1 node,
// 90 s) ends by 100; job 4 (1 node, 300 s) finds no extra node left.
export const WORKED_EXAMPLE: readonly JobSpec[] = [
  { submitTime: 0, numNodes: 6, timeLimit: 100 },
  { submitTime: 1, numNodes: 8, timeLimit: 50 },
  { submitTime: 2, numNodes: 2, timeLimit: 300 },
  { submitTime: 3, numNodes: 1, timeLimit: 90 },
  { submitTime: 4, numNodes: 1, timeLimit: 300 },
];

Deno.test("easy_extra: the worked example, against DR_EVT's EASY", () => {
  const begins = (backfillPolicy: string) =>
    runBatch({ totalNodes: 10, backfillPolicy, runTimeMode: "limit" }, WORKED_EXAMPLE)
      .jobRows.map((r) => r.beginTime);
  assertEquals(begins("easy_extra"), [0, 100, 2, 3, 150]);
  // DR_EVT's EASY lets only job 3 (ends before 100) pass; job 2 waits for job 1.
  assertEquals(begins("easy"), [0, 100, 100, 3, 150]);
  const out = runBatch(
    { totalNodes: 10, backfillPolicy: "easy_extra", runTimeMode: "limit", decisions: true },
    WORKED_EXAMPLE,
  );
  const pend4 = out.decisions.find((d) => d.type === "PEND" && d.jobId === 4);
  assertEquals(pend4?.type === "PEND" ? pend4.reason.code : undefined, "reservation_blocked");
  assert(
    pend4?.type === "PEND" && pend4.reason.message ===
        "would end at 304, not before the reservation at 100 of job 1",
    JSON.stringify(pend4),
  );
});
