// Replay of recorded schedules (core/replay.ts): DR_EVT example timelines,
// warm start, over-allocation, the scheduler never being asked, and the
// simulate-then-replay round trip as a property for every policy pair.

import fc from "fast-check";
import { assert, assertEquals, assertThrows } from "../_assert.ts";
import { rec, recorded, replay, row, simulate, statsOf } from "../_replay_helpers.ts";
import { initialState } from "../../api/initial_state.ts";
import { step } from "../../core/step.ts";
import type {
  BackfillPolicy,
  JobRow,
  JobSpec,
  PriorityPolicy,
  ResourceRow,
  SimulationConfig,
} from "../../core/types.ts";

// ---- DR_EVT example timelines -----------------------------------------------

Deno.test("replay: DR_EVT's resource-trace sample (observed-behaviour E.2)", () => {
  const r = replay({ totalNodes: 100 }, [rec(0, 0, 100, 80), rec(0, 10, 40, 15)]);
  assertEquals(r.resources, [
    row(0, 100, 0),
    row(0, 20, 80),
    row(10, 5, 95),
    row(40, 20, 80),
    row(100, 100, 0),
  ]);
  assertEquals(r.jobs.map((j) => [j.beginTime, j.endTime]), [[0, 100], [10, 40]]);
  assertEquals(r.notices, []);
  assertEquals(r.schedulerCalls, 0);
});

Deno.test("replay: the EASY worked example replays to the simulated rows", () => {
  const config: SimulationConfig = { totalNodes: 100, backfillPolicy: "easy" };
  const sim = simulate(config, [
    { submitTime: 0, numNodes: 70, timeLimit: 200 },
    { submitTime: 10, numNodes: 50, timeLimit: 300 },
    { submitTime: 20, numNodes: 20, timeLimit: 50 },
  ]);
  assertEquals(sim.jobs.map((j) => [j.beginTime, j.endTime]), [[0, 200], [200, 500], [20, 70]]);
  const r = replay(config, recorded(sim.jobs));
  assertEquals(r.resources, sim.resources);
  assertEquals(r.jobs, sim.jobs);
  assertEquals(r.submissions, [
    { jobId: 0, submitTime: 0, nodesBusy: 0 },
    { jobId: 1, submitTime: 10, nodesBusy: 70 },
    { jobId: 2, submitTime: 20, nodesBusy: 70 },
  ]);
});

Deno.test("replay: ends come before starts at one time; submission sees releases, not starts", () => {
  // Job 1 ends at 10 while job 2 is submitted and starts at 10.
  const r = replay({ totalNodes: 10 }, [rec(0, 0, 10, 6), rec(10, 10, 20, 8)]);
  assertEquals(r.resources, [
    row(0, 10, 0),
    row(0, 4, 6),
    row(10, 10, 0),
    row(10, 2, 8),
    row(20, 10, 0),
  ]);
  assertEquals(r.submissions.map((s) => s.nodesBusy), [0, 0]);
});

Deno.test("replay: a job submitted at t may start at t ahead of an older job (SJF)", () => {
  // 10 nodes. Job 0 (2 nodes) runs to 100, job 1 (8 nodes) ends at 5; the
  // head (job 2, 10 nodes) waits for 100. At 5 SJF backfills job 4, submitted
  // at 5, before the older but longer job 3. Replaying one job per call, the
  // instant 5 must not be processed before job 4 is known.
  const config: SimulationConfig = {
    totalNodes: 10,
    priorityPolicy: "sjf",
    backfillPolicy: "easy",
  };
  const sim = simulate(config, [
    { submitTime: 0, numNodes: 2, timeLimit: 100 },
    { submitTime: 0, numNodes: 8, timeLimit: 5 },
    { submitTime: 1, numNodes: 10, timeLimit: 100 },
    { submitTime: 2, numNodes: 3, timeLimit: 50 },
    { submitTime: 5, numNodes: 4, timeLimit: 20 },
  ]);
  assertEquals(sim.jobs.map((j) => j.beginTime), [0, 0, 100, 5, 5]);
  assertEquals(sim.resources.slice(3, 6), [row(5, 8, 2), row(5, 4, 6), row(5, 1, 9)]);
  const r = replay(config, recorded(sim.jobs), [1, 1, 1, 1, 1]);
  assertEquals(r.resources, sim.resources);
  assertEquals(r.submissions.at(-1), { jobId: 4, submitTime: 5, nodesBusy: 2 });
  // Under an FCFS policy the same record replays in queue order instead.
  assertEquals(replay({ totalNodes: 10 }, recorded(sim.jobs)).resources.slice(4, 6), [
    row(5, 5, 5),
    row(5, 1, 9),
  ]);
});

Deno.test("replay: same-time starts follow the policy's order, which the record cannot show", () => {
  // At 0 the head (12 nodes) is blocked by job 0 until 100; two backfills of
  // different sizes start at 1. EASY starts them in queue order, SJF by limit.
  const jobs: JobSpec[] = [
    { submitTime: 0, numNodes: 8, timeLimit: 100 },
    { submitTime: 1, numNodes: 10, timeLimit: 100 },
    { submitTime: 1, numNodes: 1, timeLimit: 50 },
    { submitTime: 1, numNodes: 2, timeLimit: 20 },
  ];
  const easy: SimulationConfig = { totalNodes: 12, priorityPolicy: "fcfs", backfillPolicy: "easy" };
  const sjf: SimulationConfig = { totalNodes: 12, priorityPolicy: "sjf", backfillPolicy: "easy" };
  const a = simulate(easy, jobs);
  const b = simulate(sjf, jobs);
  assertEquals(recorded(a.jobs), recorded(b.jobs));
  assert(
    JSON.stringify(a.resources) !== JSON.stringify(b.resources),
    "the two policies differ in row order",
  );
  assertEquals(replay(easy, recorded(a.jobs)).resources, a.resources);
  assertEquals(replay(sjf, recorded(b.jobs)).resources, b.resources);
});

Deno.test("replay: zero-length jobs release before a start that needs their nodes", () => {
  const config: SimulationConfig = { totalNodes: 10 };
  const sim = simulate(config, [
    { submitTime: 0, numNodes: 10, timeLimit: 5, actualRunTime: 0 },
    { submitTime: 0, numNodes: 10, timeLimit: 5 },
  ]);
  assertEquals(sim.resources, [
    row(0, 10, 0),
    row(0, 0, 10),
    row(0, 10, 0),
    row(0, 0, 10),
    row(5, 10, 0),
  ]);
  const r = replay(config, recorded(sim.jobs));
  assertEquals(r.resources, sim.resources);
  assertEquals(r.notices, [], "no spurious over-allocation");
  // ...and otherwise as late as possible, after the other starts at that time.
  const sim2 = simulate({ totalNodes: 10 }, [
    { submitTime: 0, numNodes: 5, timeLimit: 5, actualRunTime: 0 },
    { submitTime: 0, numNodes: 5, timeLimit: 5 },
  ]);
  assertEquals(replay(config, recorded(sim2.jobs)).resources, sim2.resources);
});

Deno.test("replay: known limit: a second scheduling pass after zero-length releases", () => {
  // At 10 SJF starts the zero-length heads 1 and 2, backfills job 4, and only
  // after 1 and 2 end does a second pass start job 3. The record only says
  // that all four began at 10; replay releases 1 and 2 just before job 3,
  // which no longer fits, so its rows at 10 differ in the middle but agree at
  // the end of the instant (and everywhere else).
  const config: SimulationConfig = {
    totalNodes: 14,
    priorityPolicy: "sjf",
    backfillPolicy: "easy",
  };
  const sim = simulate(config, [
    { submitTime: 0, numNodes: 14, timeLimit: 10 },
    { submitTime: 1, numNodes: 11, timeLimit: 0 },
    { submitTime: 2, numNodes: 2, timeLimit: 8, actualRunTime: 0 },
    { submitTime: 3, numNodes: 3, timeLimit: 8, actualRunTime: 2 },
    { submitTime: 4, numNodes: 1, timeLimit: 8 },
  ]);
  const at10 = (rows: ResourceRow[]) =>
    rows.filter((x) => x.time === 10).map((x) => x.allocatedNodes);
  assertEquals(at10(sim.resources), [0, 11, 13, 14, 3, 1, 4]);
  const r = replay(config, recorded(sim.jobs));
  assertEquals(at10(r.resources), [0, 11, 13, 2, 0, 3, 4]);
  assertEquals(
    r.resources.filter((x) => x.time !== 10),
    sim.resources.filter((x) => x.time !== 10),
  );
  // Under EASY the same shape is reproduced exactly (job 4 waits for the second pass).
  const easy: SimulationConfig = { ...config, priorityPolicy: "fcfs" };
  const simEasy = simulate(easy, [
    { submitTime: 0, numNodes: 14, timeLimit: 10 },
    { submitTime: 1, numNodes: 11, timeLimit: 0 },
    { submitTime: 2, numNodes: 2, timeLimit: 8, actualRunTime: 0 },
    { submitTime: 3, numNodes: 3, timeLimit: 8, actualRunTime: 2 },
    { submitTime: 4, numNodes: 1, timeLimit: 8 },
  ]);
  assertEquals(replay(easy, recorded(simEasy.jobs)).resources, simEasy.resources);
});

// ---- scheduler, validation, API contract ------------------------------------

Deno.test("replay: the scheduler is never called, even by advanceTo / runUntilExclusive", () => {
  const r = replay(
    { totalNodes: 4 },
    [rec(0, 3, 9, 2), rec(1, 1, 2, 2), rec(2, 9, 12, 4)],
    [1, 2],
    [
      { kind: "runUntilExclusive", time: 5 },
      { kind: "advanceTo", time: 9 },
      { kind: "runToCompletion" },
    ],
  );
  assertEquals(r.schedulerCalls, 0);
  assertEquals(r.jobs.length, 3);
  assertEquals(r.resources.at(-1), row(12, 4, 0));
});

Deno.test("replay: bad records, unsorted batches and wrong input kinds are errors", () => {
  const s = initialState({ totalNodes: 4 }, { replay: true });
  assertThrows(() => step(s, { kind: "replayJobs", jobs: [rec(5, 4, 9, 1)] }), "submit > begin");
  assertThrows(() => step(s, { kind: "replayJobs", jobs: [rec(0, 4, 3, 1)] }), "begin > end");
  assertThrows(() => step(s, { kind: "replayJobs", jobs: [rec(0, 4, NaN, 1)] }), "finite");
  assertThrows(
    () => step(s, { kind: "replayJobs", jobs: [rec(3, 4, 5, 1), rec(2, 4, 5, 1)] }),
    "not sorted",
  );
  assertThrows(() => step(s, { kind: "appendJobs", jobs: [] }), "replayJobs");
  assertThrows(
    () => step(initialState({ totalNodes: 4 }), { kind: "replayJobs", jobs: [] }),
    "replay state",
  );
  const later = step(s, { kind: "replayJobs", jobs: [rec(10, 10, 20, 1)] }).state;
  assertEquals(later.time, 10);
  assertThrows(
    () => step(later, { kind: "replayJobs", jobs: [rec(9, 10, 20, 1)] }),
    "before the clock",
  );
});

Deno.test("replay: --max_time style advanceTo leaves unfinished jobs out", () => {
  const r = replay({ totalNodes: 4 }, [rec(0, 0, 5, 1), rec(0, 2, 50, 1)], undefined, [
    { kind: "advanceTo", time: 10 },
  ]);
  assertEquals(r.jobs.map((j) => j.endTime), [5]);
  assertEquals(r.state.time, 10);
});

// ---- over-allocation ----------------------------------------------------------

Deno.test("replay: over-allocation is reported once, with its first time and amount", () => {
  const r = replay({ totalNodes: 10 }, [rec(0, 0, 10, 6), rec(0, 5, 15, 6), rec(0, 6, 15, 6)]);
  assertEquals(r.notices, [{ kind: "overallocated", time: 5, allocatedNodes: 12, totalNodes: 10 }]);
  assertEquals(r.resources.slice(2, 4), [row(5, -2, 12), row(6, -8, 18)]);
  assertEquals(r.jobs.length, 3);
});

// ---- warm start ---------------------------------------------------------------

Deno.test("replay: warm start keeps running jobs as hidden initial occupancy", () => {
  const config: SimulationConfig = { totalNodes: 100, startTime: 100 };
  const r = replay(config, [
    rec(0, 50, 150, 10), // running at 100: hidden, ends at 150
    rec(10, 20, 100, 5), // ended at 100: holds nothing at 100, dropped
    rec(40, 60, 120, 7), // running at 100: hidden, ends at 120
    rec(50, 120, 130, 3), // submitted before 100, not running: excluded
    rec(100, 100, 200, 20),
    rec(110, 150, 160, 30),
  ], [2, 3, 1]);
  assertEquals(r.resources, [
    row(100, 83, 17), // baseline at the start time with the initial occupancy
    row(100, 63, 37),
    row(120, 70, 30),
    row(150, 80, 20),
    row(150, 50, 50),
    row(160, 80, 20),
    row(200, 100, 0),
  ]);
  assertEquals(r.jobs.map((j) => [j.submitTime, j.beginTime, j.endTime]), [[100, 100, 200], [
    110,
    150,
    160,
  ]]);
  assertEquals(r.submissions, [
    { jobId: 2, submitTime: 100, nodesBusy: 17 },
    { jobId: 3, submitTime: 110, nodesBusy: 37 },
  ]);
  const st = statsOf(r, config);
  assertEquals([st.totalJobs, st.jobsStarted, st.jobsCompleted, st.averageWait, st.makespan], [
    2,
    2,
    2,
    20,
    100,
  ]);
  assertEquals(r.notices, []);
});

Deno.test("replay: warm start with no later jobs, and over-allocation at the baseline", () => {
  const r = replay({ totalNodes: 10, startTime: 50 }, [rec(0, 10, 60, 8), rec(5, 20, 70, 8)]);
  assertEquals(r.resources, [row(50, -6, 16), row(60, 2, 8), row(70, 10, 0)]);
  assertEquals(r.notices, [{
    kind: "overallocated",
    time: 50,
    allocatedNodes: 16,
    totalNodes: 10,
  }]);
  assertEquals(r.jobs, []);
});

Deno.test("replay: a warm-start job after later jobs is an error", () => {
  let s = initialState({ totalNodes: 10, startTime: 50 }, { replay: true });
  s = step(s, { kind: "replayJobs", jobs: [rec(50, 50, 60, 1)] }).state;
  assertThrows(
    () => step(s, { kind: "replayJobs", jobs: [rec(0, 10, 60, 1)] }),
    "before the start time",
  );
});

// ---- properties ---------------------------------------------------------------

const POLICIES: ReadonlyArray<[PriorityPolicy, BackfillPolicy]> = (
  ["fcfs", "fcfs_alt", "fcfs_conservative", "sjf", "ljf"] as const
).flatMap((p) =>
  (["none", "easy", "conservative"] as const).map((b): [PriorityPolicy, BackfillPolicy] => [p, b])
);

function traceArb(minRun: number) {
  return fc.record({
    totalNodes: fc.integer({ min: 1, max: 16 }),
    jobs: fc.array(
      fc.record({
        gap: fc.integer({ min: 0, max: 6 }),
        nodes: fc.integer({ min: 0, max: 18 }),
        limit: fc.integer({ min: minRun, max: 30 }),
        runFraction: fc.integer({ min: 0, max: 4 }),
      }),
      { maxLength: 30 },
    ),
    chunks: fc.array(fc.integer({ min: 0, max: 6 }), { maxLength: 8 }),
    storeCapacity: fc.constantFrom(0, 2, 5),
  }).map(({ totalNodes, jobs, chunks, storeCapacity }) => {
    let t = 0;
    const specs: JobSpec[] = jobs.map((j) => {
      t += j.gap;
      const run = Math.max(minRun, Math.round((j.limit * j.runFraction) / 4));
      return { submitTime: t, numNodes: j.nodes, timeLimit: j.limit, actualRunTime: run };
    });
    return { totalNodes, specs, chunks, storeCapacity };
  });
}

function roundTrip(
  trace: { totalNodes: number; specs: JobSpec[]; chunks: number[]; storeCapacity: number },
  policy: [PriorityPolicy, BackfillPolicy],
) {
  const config: SimulationConfig = {
    totalNodes: trace.totalNodes,
    priorityPolicy: policy[0],
    backfillPolicy: policy[1],
    jobStoreCapacity: trace.storeCapacity,
    resourceHistoryCapacity: 3,
  };
  const sim = simulate(config, trace.specs);
  const rep = replay(config, recorded(sim.jobs), trace.chunks);
  return { config, sim, rep };
}

const strip = (rows: readonly JobRow[]) => rows.map(({ jobId: _, ...rest }) => rest);

Deno.test("property: simulate then replay gives the same resource rows and statistics (every policy)", () => {
  fc.assert(
    fc.property(traceArb(1), (trace) => {
      for (const policy of POLICIES) {
        const { config, sim, rep } = roundTrip(trace, policy);
        assertEquals(rep.schedulerCalls, 0);
        assertEquals(rep.resources, sim.resources, `resource rows, ${policy.join("+")}`);
        assertEquals(strip(rep.jobs), strip(sim.jobs));
        assertEquals(rep.notices, []);
        const a = statsOf(sim, config);
        const b = statsOf(rep, config);
        assertEquals(
          [b.averageWait, b.averageTurnaround, b.makespan, b.jobsCompleted, b.jobsStarted],
          [a.averageWait, a.averageTurnaround, a.makespan, a.jobsCompleted, a.jobsStarted],
        );
      }
    }),
    { seed: 42, numRuns: 250 },
  );
});

// Zero-length jobs (begin = end) can free nodes for a second scheduling pass
// at the same instant; a record cannot show which starts came after that
// release, so only the order-free facts are compared for them.
Deno.test("property: with zero-length jobs, replay keeps statistics and each instant's final allocation", () => {
  fc.assert(
    fc.property(traceArb(0), (trace) => {
      for (const policy of POLICIES) {
        const { config, sim, rep } = roundTrip(trace, policy);
        assertEquals(rep.schedulerCalls, 0);
        const lastPerTime = (rows: readonly ResourceRow[]) =>
          rows.filter((r, i) => i === rows.length - 1 || rows[i + 1].time !== r.time);
        assertEquals(rep.resources.length, sim.resources.length);
        assertEquals(lastPerTime(rep.resources), lastPerTime(sim.resources));
        assertEquals(strip(rep.jobs), strip(sim.jobs));
        const a = statsOf(sim, config);
        const b = statsOf(rep, config);
        assertEquals([b.averageWait, b.averageTurnaround, b.makespan], [
          a.averageWait,
          a.averageTurnaround,
          a.makespan,
        ]);
      }
    }),
    { seed: 42, numRuns: 200 },
  );
});
