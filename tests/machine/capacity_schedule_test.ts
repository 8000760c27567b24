// `config.capacitySchedule`: the usable node count changes over time. A cut
// never preempts running jobs, a job larger than the current capacity waits,
// and only a job larger than the machine is rejected. A change that changes
// the count writes its own resource row (free_nodes = capacity − allocated,
// negative = nodes owed after a cut) only while a job runs at that instant;
// on an idle machine the new capacity shows in the next start's row. A raise
// starts a scheduling pass only when jobs wait. At one instant: capacity
// changes, then ends, then one scheduling pass. Running to completion does
// not move the clock for a change with nothing left to run, and `finish`
// reports jobs that never fit as "stranded". The file format and the CLI
// are in capacity_schedule_cli_test.ts.
//
// These are DR_EVT's rules, kept as `capacitySemantics: "drevt"` (every run
// in this file uses it); evtsim's own (held jobs, free never negative,
// drain or kill) are in capacity_changes_test.ts.

import fc from "fast-check";
import { noticeText } from "../../cli/outputs.ts";
import { availableNodes } from "../../core/queries.ts";
import { initialState as initialStateAny } from "../../api/initial_state.ts";
import { step } from "../../core/step.ts";
import type { JobSpec, SimulationConfig } from "../../core/types.ts";
import {
  checkBatchEnd,
  checkCapacityChangeRows,
  checkCapacityRows,
  checkStartsWithinCapacity,
} from "../../fuzz/capacity_checks.ts";
import { PROPERTIES } from "../../fuzz/properties.ts";
import {
  runBatch as runBatchAny,
  runInputs as runInputsAny,
  type RunOutput,
  streamingInputs,
} from "../../testing/mod.ts";
import { assert, assertEquals, assertThrows } from "../_assert.ts";

const drevt = (c: SimulationConfig): SimulationConfig => ({ capacitySemantics: "drevt", ...c });
const initialState = (c: SimulationConfig) => initialStateAny(drevt(c));
const runBatch = (c: SimulationConfig, t: readonly JobSpec[]) => runBatchAny(drevt(c), t);
const runInputs = (c: SimulationConfig, i: Parameters<typeof runInputsAny>[1]) =>
  runInputsAny(drevt(c), i);

const job = (submitTime: number, numNodes: number, timeLimit: number): JobSpec => ({
  submitTime,
  numNodes,
  timeLimit,
});

/** Job rows as `id:submit/begin-end`, resource rows as `time:free/allocated`. */
function rows(out: RunOutput) {
  return {
    jobs: out.jobRows.map((r) => `${r.jobId}:${r.submitTime}/${r.beginTime}-${r.endTime}`),
    resources: out.resourceRows.map((r) => `${r.time}:${r.freeNodes}/${r.allocatedNodes}`),
    out,
  };
}

const compact = (config: SimulationConfig, trace: readonly JobSpec[]) =>
  rows(runBatch(config, trace));

Deno.test("a cut below the running allocation preempts nothing; its row shows the nodes owed", () => {
  // Two 5-node jobs fill the machine; at 10 the capacity drops to 4. Both run
  // to their ends; job 2 (2 nodes, submitted at 20) waits until the
  // allocation is back within the capacity.
  const config = { totalNodes: 10, capacitySchedule: [{ time: 10, capacity: 4 }] };
  const trace = [job(0, 5, 100), job(0, 5, 50), job(20, 2, 10)];
  const r = compact(config, trace);
  assertEquals(r.jobs, ["0:0/0-100", "1:0/0-50", "2:20/100-110"]);
  // The cut writes its own row: free = 4 - 10 = -6, six nodes owed.
  assertEquals(r.resources, [
    "0:10/0",
    "0:5/5",
    "0:0/10",
    "10:-6/10",
    "50:-1/5",
    "100:4/0",
    "100:2/2",
    "110:4/0",
  ]);
  assertEquals(r.out.notices, []);
  assertEquals(checkStartsWithinCapacity(r.out.jobRows, config), []);
  assertEquals(checkCapacityRows(r.out.resourceRows, config), []);
  assertEquals(checkBatchEnd(trace, r.out.jobRows, r.out.notices, 110, config), []);
  assertEquals(checkCapacityChangeRows(r.out.resourceRows, r.out.jobRows, config), []);
  // The monitor clamps what the row does not.
  let s = step(initialState(config), { kind: "appendJobs", jobs: [job(0, 5, 100), job(0, 5, 50)] })
    .state;
  s = step(s, { kind: "advanceTo", time: 60 }).state;
  assertEquals([s.capacity, s.allocatedNodes, availableNodes(s)], [4, 5, 0]);
});

Deno.test("a change before the next end is applied and the run goes on to that end", () => {
  // Nothing waits or arrives at 50, but a job runs across it: running to
  // completion must not stop there (the shrunk fuzz case of this rule).
  const config = { totalNodes: 15, capacitySchedule: [{ time: 50, capacity: 15 }] };
  const r = compact(config, [{ submitTime: 0, numNodes: 15, timeLimit: 51, actualRunTime: 51 }]);
  assertEquals(r.jobs, ["0:0/0-51"]);
  assertEquals(r.resources, ["0:15/0", "0:0/15", "51:15/0"]); // no change, no row at 50
  assertEquals(r.out.statistics.currentTime, 51);
  const cut = compact({ totalNodes: 4, capacitySchedule: [{ time: 5, capacity: 1 }] }, [
    job(0, 4, 10),
  ]);
  assertEquals([cut.jobs, cut.resources], [["0:0/0-10"], ["0:4/0", "0:0/4", "5:-3/4", "10:1/0"]]);
});

Deno.test("a job larger than the current capacity waits until the capacity is raised; an idle raise writes no row", () => {
  for (const backfillPolicy of ["none", "easy", "conservative"] as const) {
    const config: SimulationConfig = {
      totalNodes: 10,
      backfillPolicy,
      capacitySchedule: [{ time: 0, capacity: 4 }, { time: 50, capacity: 10 }],
    };
    // Job 0 (8 nodes) is the head and cannot be reserved against running
    // jobs (there are none), so DR_EVT's reservation is "now" and nothing
    // backfills past it: job 1 waits too, although it fits. The change at 0
    // only sets the baseline row; nothing runs at the raise at 50, so it has
    // no row of its own: the first start's row shows the new capacity.
    const r = compact(config, [job(0, 8, 10), job(5, 2, 10)]);
    assertEquals(r.jobs, ["0:0/50-60", "1:5/50-60"], backfillPolicy);
    assertEquals(r.resources, ["0:4/0", "50:2/8", "50:0/10", "60:8/2", "60:10/0"]);
    assertEquals(r.out.notices, []);
  }
  // A raise with no other event at that instant starts a scheduling pass
  // (one queue sample each: the start at 0, the raise at 30, the end at 80).
  const raised = compact({
    totalNodes: 10,
    backfillPolicy: "none",
    capacitySchedule: [{ time: 0, capacity: 2 }, { time: 30, capacity: 3 }],
  }, [job(0, 3, 50)]);
  assertEquals([raised.jobs, raised.resources], [["0:0/30-80"], ["0:2/0", "30:0/3", "80:3/0"]]);
  assertEquals(raised.out.statistics.queueSamples, 3);
});

Deno.test("changes while nothing runs and nothing waits leave no trace", () => {
  // A cut and a raise between two jobs: no rows, no scheduling pass, so the
  // rows and statistics are those of the same trace without a schedule.
  const trace = [job(0, 1, 1), job(40, 1, 1)];
  const plain = runBatch({ totalNodes: 4 }, trace);
  const idle = runBatch({
    totalNodes: 4,
    capacitySchedule: [{ time: 20, capacity: 2 }, { time: 30, capacity: 4 }],
  }, trace);
  assertEquals(rows(idle).resources, ["0:4/0", "0:3/1", "1:4/0", "40:3/1", "41:4/0"]);
  assertEquals(
    [idle.jobRows, idle.resourceRows, idle.statistics, idle.notices],
    [plain.jobRows, plain.resourceRows, plain.statistics, plain.notices],
  );
  // With a job waiting, the same raise is a reason to schedule: one more sample.
  const waiting = runBatch({
    totalNodes: 4,
    capacitySchedule: [{ time: 20, capacity: 2 }, { time: 30, capacity: 4 }],
  }, [job(0, 1, 1), job(25, 3, 1)]);
  assertEquals(rows(waiting).jobs, ["0:0/0-1", "1:25/30-31"]);
  assertEquals(rows(waiting).resources, ["0:4/0", "0:3/1", "1:4/0", "30:1/3", "31:4/0"]);
  // Samples at 0, 1 (end), 25 (arrival), 30 (the raise) and 31 (end); the cut at 20 has none.
  assertEquals([plain.statistics.queueSamples, waiting.statistics.queueSamples], [4, 5]);
});

Deno.test("only a job larger than the machine is rejected, whatever the current capacity", () => {
  const config = {
    totalNodes: 10,
    capacitySchedule: [{ time: 0, capacity: 4 }, { time: 20, capacity: 10 }],
  };
  const r = compact(config, [job(0, 11, 5), job(0, 10, 5), job(1, 4, 5)]);
  assertEquals(r.out.notices, [{ kind: "rejected", jobId: 0, numNodes: 11, totalNodes: 10 }]);
  assertEquals(r.jobs, ["1:0/20-25", "2:1/25-30"]);
  assertEquals([r.out.statistics.jobsRejected, r.out.statistics.jobsCompleted], [1, 2]);
});

Deno.test("jobs that never fit the final capacity are reported as stranded at finish", () => {
  // The 8-node job is accepted (8 <= 10) but the capacity never comes back
  // above 4, so it never starts, and as the head it blocks job 1 as well.
  // Neither is written; one notice says so at the end.
  const config = { totalNodes: 10, capacitySchedule: [{ time: 0, capacity: 4 }] };
  const trace = [job(0, 8, 10), job(5, 2, 10)];
  const r = compact(config, trace);
  // Each class of waiting job is counted: job 0 never fits, job 1 waits behind it.
  const notice = {
    kind: "stranded",
    time: 5,
    waitingJobs: 2,
    capacity: 4,
    causes: [
      { cause: "larger_than_capacity", jobs: 1, firstJob: 0 },
      { cause: "blocked_behind", jobs: 1, firstJob: 1, behindJob: 0 },
    ],
  } as const;
  assertEquals([r.jobs, r.out.notices, r.resources], [[], [notice], ["0:4/0"]]);
  const st = r.out.statistics;
  assertEquals([st.jobsWaiting, st.jobsCompleted, st.currentTime], [2, 0, 5]);
  assertEquals(checkBatchEnd(trace, [], r.out.notices, 5, config), []);
  assertEquals(noticeText(notice, 10).split("\n"), [
    "Warning: 1 job(s) never started: at the end of the run (time 5) they still need more " +
    "nodes than the usable capacity (4 nodes, --capacity_schedule); they are left out of the " +
    "schedule",
    "Warning: 1 job(s) (job 1) never started: blocked behind job 0, which needs more nodes " +
    "than the usable capacity (4 nodes); they are left out of the schedule",
  ]);
  // Only `finish` reports it, once: before that the caller may still append
  // and advance, so the jobs are merely waiting. The notice carries the clock
  // where the caller left it.
  const inputs = streamingInputs(trace, [
    { kind: "append", count: 2 },
    { kind: "advanceTo", time: 1000 },
  ]);
  assertEquals(inputs.map((i) => i.kind), ["appendJobs", "advanceTo", "runToCompletion", "finish"]);
  let s = initialState(config);
  for (const input of inputs) {
    const out = step(s, input);
    const want = input.kind === "finish" ? [{ ...notice, time: 1000 }] : [];
    assertEquals(out.rows.notices, want, input.kind);
    s = out.state;
  }
  // A finish with an arrival or an end still pending reports nothing: the
  // waiting jobs might yet fit. Here job 1 has not arrived yet (clock 3)…
  const early = runInputs(config, [
    { kind: "appendJobs", jobs: trace },
    { kind: "advanceTo", time: 3 },
    { kind: "finish" },
  ]);
  assertEquals(early.notices, []);
  // …and here job 0 still runs at 40 while job 1 (3 nodes) waits below the
  // cut to 2 nodes; a run to completion would strand it at 50.
  const cut = { totalNodes: 10, capacitySchedule: [{ time: 20, capacity: 2 }] };
  const busy = [job(0, 4, 50), job(30, 3, 10)];
  assertEquals(
    runInputs(cut, [
      { kind: "appendJobs", jobs: busy },
      { kind: "advanceTo", time: 40 },
      { kind: "finish" },
    ]).notices,
    [],
  );
  assertEquals(runBatch(cut, busy).notices, [
    {
      kind: "stranded",
      time: 50,
      waitingJobs: 1,
      capacity: 2,
      causes: [{ cause: "larger_than_capacity", jobs: 1, firstJob: 1 }],
    },
  ]);
  // A capacity that comes back leaves nothing stranded (see the raise test):
  // the same trace with a final raise runs both jobs.
  const back = compact({
    ...config,
    capacitySchedule: [...config.capacitySchedule, {
      time: 70,
      capacity: 8,
    }],
  }, trace);
  assertEquals([back.jobs, back.out.notices], [["0:0/70-80", "1:5/80-90"], []]);
});

Deno.test("at one instant: capacity changes, then ends, then one scheduling pass", () => {
  // A raise at the instant a job ends and another arrives: the raise's row
  // comes first, the end's row shows the raised capacity, and the arrival
  // starts in the one pass that follows.
  const up = {
    totalNodes: 10,
    capacitySchedule: [{ time: 0, capacity: 4 }, { time: 50, capacity: 10 }],
  };
  const a = compact(up, [job(0, 4, 50), job(50, 10, 10)]);
  assertEquals(a.jobs, ["0:0/0-50", "1:50/50-60"]);
  assertEquals(a.resources, ["0:4/0", "0:0/4", "50:6/4", "50:10/0", "50:0/10", "60:10/0"]);
  // A cut at the instant a job ends and another arrives: the cut's row
  // (2 - 10), then the end's row with the new capacity (2 - 6). Job 2 never
  // fits 2 nodes again: it is stranded.
  const down = { totalNodes: 10, capacitySchedule: [{ time: 50, capacity: 2 }] };
  const b = compact(down, [job(0, 4, 50), job(0, 6, 100), job(50, 3, 10)]);
  assertEquals(b.jobs, ["0:0/0-50", "1:0/0-100"]);
  assertEquals(b.resources, ["0:10/0", "0:6/4", "0:0/10", "50:-8/10", "50:-4/6", "100:2/0"]);
  assertEquals(b.out.notices, [{
    kind: "stranded",
    time: 100,
    waitingJobs: 1,
    capacity: 2,
    causes: [{ cause: "larger_than_capacity", jobs: 1, firstJob: 2 }],
  }]);
  assertEquals(checkCapacityRows(b.out.resourceRows, down), []);
  // Several changes at one instant while a job runs: each one that changes
  // the count writes a row, and the last one holds for the pass (job 1
  // needs 3 nodes, 1 is free: it waits for job 0's end).
  const many = {
    totalNodes: 10,
    backfillPolicy: "none" as const,
    capacitySchedule: [{ time: 0, capacity: 2 }, { time: 30, capacity: 9 }, {
      time: 30,
      capacity: 3,
    }],
  };
  const c = compact(many, [job(0, 2, 40), job(0, 3, 50)]);
  assertEquals([c.jobs, c.resources], [["0:0/0-40", "1:0/40-90"], [
    "0:2/0",
    "0:0/2",
    "30:7/2",
    "30:1/2",
    "40:3/0",
    "40:0/3",
    "90:3/0",
  ]]);
  assertEquals(checkCapacityRows(c.out.resourceRows, many), []);
  assertEquals(checkCapacityChangeRows(c.out.resourceRows, c.out.jobRows, many), []);
  // The same changes on an idle machine write nothing; the start shows the
  // capacity that holds.
  const idle = compact(many, [job(0, 3, 50), job(0, 4, 10)]);
  assertEquals([idle.jobs, idle.resources], [["0:0/30-80"], ["0:2/0", "30:0/3", "80:3/0"]]);
  // A job that begins at a change's instant (zero-length or not) starts in
  // the pass after the change: the change finds nothing running, no row.
  const zero = { totalNodes: 4, capacitySchedule: [{ time: 10, capacity: 2 }] };
  const z = compact(zero, [
    { submitTime: 10, numNodes: 1, timeLimit: 5, actualRunTime: 0 },
    job(10, 1, 5),
  ]);
  assertEquals([z.jobs, z.resources], [["0:10/10-10", "1:10/10-15"], [
    "0:4/0",
    "10:1/1",
    "10:0/2",
    "10:1/1",
    "15:2/0",
  ]]);
  assertEquals(checkCapacityChangeRows(z.out.resourceRows, z.out.jobRows, zero), []);
  // A change to the capacity already in force writes nothing.
  const same = compact({ totalNodes: 4, capacitySchedule: [{ time: 5, capacity: 4 }] }, [
    job(0, 4, 10),
  ]);
  assertEquals(same.resources, ["0:4/0", "0:0/4", "10:4/0"]);
});

Deno.test("running to completion does not move the clock for a change with nothing left to run", () => {
  const late = {
    totalNodes: 4,
    capacitySchedule: [{ time: 20, capacity: 2 }, { time: 500, capacity: 4 }],
  };
  const r = compact(late, [job(0, 4, 10)]);
  assertEquals([r.jobs, r.resources, r.out.notices], [["0:0/0-10"], [
    "0:4/0",
    "0:0/4",
    "10:4/0",
  ], []]);
  const s = r.out.finalState;
  assertEquals([r.out.statistics.currentTime, s.time, s.capacity, s.capacityIndex], [10, 10, 4, 0]);
  // The changes are still pending: a job appended after that run sees the
  // cut at 20 (it needs 3 nodes) and starts at the raise at 500. Nothing
  // runs at either change, so neither has a row; the start's row shows 4.
  const more = rows(runInputs(late, [
    { kind: "appendJobs", jobs: [job(0, 4, 10)] },
    { kind: "runToCompletion" },
    { kind: "appendJobs", jobs: [job(30, 3, 5)] },
    { kind: "runToCompletion" },
    { kind: "finish" },
  ]));
  assertEquals(more.out.clocks, [0, 0, 10, 10, 505, 505]);
  assertEquals(more.jobs, ["0:0/0-10", "1:30/500-505"]);
  assertEquals(more.resources, ["0:4/0", "0:0/4", "10:4/0", "500:1/3", "505:4/0"]);
});

Deno.test("changes at or before the start apply to the baseline row; streaming across a change ≡ batch", () => {
  const config = {
    totalNodes: 10,
    capacitySchedule: [{ time: -5, capacity: 8 }, { time: 0, capacity: 6 }, {
      time: 40,
      capacity: 9,
    }],
  };
  const s = initialState(config);
  assertEquals([s.capacity, s.capacityIndex], [6, 2]);
  const trace = [job(0, 6, 30), job(10, 7, 5), job(40, 2, 5), job(40, 1, 1)];
  const batch = runBatch(config, trace);
  // At 40 the machine is idle, so the raise has no row of its own; job 1
  // (7 nodes) and job 2 (2) start; job 3 waits for their ends.
  assertEquals(rows(batch).resources, [
    "0:6/0",
    "0:0/6",
    "30:6/0",
    "40:2/7",
    "40:0/9",
    "45:7/2",
    "45:9/0",
    "45:8/1",
    "46:9/0",
  ]);
  assertEquals(batch.jobRows.map((r) => r.beginTime), [0, 40, 40, 45]);
  const live = runInputs(
    config,
    streamingInputs(trace, [
      { kind: "append", count: 2 },
      { kind: "runUntilExclusive", time: 40 },
      { kind: "append", count: 2 },
    ]),
  );
  assertEquals([live.jobRows, live.resourceRows], [batch.jobRows, batch.resourceRows]);
  // A cut while job 0 runs has its row, whether the caller advances across it or not.
  const cut = { totalNodes: 10, capacitySchedule: [{ time: 20, capacity: 4 }] };
  const t2 = [job(0, 6, 30), job(40, 2, 5)];
  const b2 = runBatch(cut, t2);
  assertEquals(rows(b2).resources, ["0:10/0", "0:4/6", "20:-2/6", "30:4/0", "40:2/2", "45:4/0"]);
  const l2 = runInputs(
    cut,
    streamingInputs(t2, [
      { kind: "append", count: 1 },
      { kind: "advanceTo", time: 20 },
      { kind: "advanceTo", time: 35 },
      { kind: "append", count: 1 },
    ]),
  );
  assertEquals([l2.jobRows, l2.resourceRows], [b2.jobRows, b2.resourceRows]);
});

// Regression: the shrunk fuzz counterexamples of streaming ≡ batch (fuzz
// property "capacity-schedule", seed 1). A run to completion does not apply
// a change with nothing left to run, but a streaming caller that advances
// past the same change applies it (it cannot know no job will come). Both
// runs agree because such a change writes a row only while a job runs and
// starts a pass only when jobs wait: facts both runs share at that instant.
Deno.test("streaming past a late capacity change gives the batch run's rows and statistics", () => {
  const config = { totalNodes: 1, capacitySchedule: [{ time: 1, capacity: 0 }] };
  const trace = [{ submitTime: 0, numNodes: 1, timeLimit: 1, actualRunTime: 0 }];
  const batch = runBatch(config, trace);
  const live = runInputs(
    config,
    streamingInputs(trace, [{ kind: "append", count: 1 }, { kind: "advanceTo", time: 2 }]),
  );
  assertEquals(rows(live).resources, rows(batch).resources);
  const raise = {
    totalNodes: 4,
    capacitySchedule: [{ time: 20, capacity: 2 }, { time: 30, capacity: 4 }],
  };
  const t2 = [job(0, 1, 1)];
  const plan = [{ kind: "append", count: 1 }, { kind: "advanceTo", time: 35 }] as const;
  const { currentTime: _a, ...liveStats } = runInputs(raise, streamingInputs(t2, plan)).statistics;
  const { currentTime: _b, ...batchStats } = runBatch(raise, t2).statistics;
  assertEquals(liveStats, batchStats);
});

Deno.test("the configuration refuses a capacity outside 0..total or out of time order", () => {
  const bad: SimulationConfig["capacitySchedule"][] = [
    [{ time: 0, capacity: 11 }],
    [{ time: 0, capacity: -1 }],
    [{ time: 0, capacity: 2.5 }],
    [{ time: 5, capacity: 1 }, { time: 4, capacity: 1 }],
    [{ time: Number.NaN, capacity: 1 }],
  ];
  for (const capacitySchedule of bad) {
    assertThrows(() => initialState({ totalNodes: 10, capacitySchedule }), "capacity change");
  }
});

// ---- property ----------------------------------------------------------------

Deno.test("property: starts within capacity, no preemption, change rows, stranded notices, streaming ≡ batch", () => {
  const p = PROPERTIES.find((x) => x.name === "capacity-schedule")!;
  let owed = 0; // runs where a cut's row shows nodes owed (negative free)
  let waited = 0; // runs where a job that fit the machine waited for capacity
  let stranded = 0; // runs that ended with jobs that never fit
  fc.assert(
    fc.property(p.arbitrary, (c) => {
      p.check(c);
      const out = runBatch(c.config, c.trace);
      if (out.resourceRows.some((r) => r.freeNodes < 0)) owed++;
      if (out.jobRows.some((r) => r.beginTime > r.submitTime)) waited++;
      if (out.notices.some((n) => n.kind === "stranded")) stranded++;
    }),
    { seed: 42, numRuns: 300 },
  );
  assert(
    owed >= 10 && waited >= 30 && stranded >= 10,
    `coverage: ${owed} owed, ${waited} waited, ${stranded} stranded`,
  );
});

Deno.test("the capacity checks report what they are for", () => {
  const config = { totalNodes: 8, capacitySchedule: [{ time: 5, capacity: 2 }] };
  const row = (jobId: number, beginTime: number, endTime: number, numNodes: number) => ({
    jobId,
    submitTime: 0,
    beginTime,
    endTime,
    numNodes,
    timeLimit: endTime - beginTime,
    queue: undefined,
  });
  // Job 0 runs across the cut (allowed); job 1 starts at 6 with 7 nodes in use.
  assertEquals(checkStartsWithinCapacity([row(0, 0, 9, 6)], config), []);
  assertEquals(checkStartsWithinCapacity([row(0, 0, 9, 6), row(1, 6, 7, 1)], config).length, 1);
  const good = [
    { time: 0, freeNodes: 8, allocatedNodes: 0 },
    { time: 0, freeNodes: 2, allocatedNodes: 6 },
    { time: 5, freeNodes: -4, allocatedNodes: 6 },
    { time: 9, freeNodes: 2, allocatedNodes: 0 },
  ];
  const jobs = [row(0, 0, 9, 6)];
  assertEquals(checkCapacityRows(good, config), []);
  assertEquals(checkCapacityChangeRows(good, jobs, config), []);
  // An end at 9 written with the capacity before the cut; a missing cut row.
  const stale = [good[0], good[1], { time: 9, freeNodes: 8, allocatedNodes: 0 }];
  assertEquals(checkCapacityRows(stale, config).length, 1);
  assertEquals(checkCapacityChangeRows(stale, jobs, config).length, 2);
  // A job ending at the cut's instant still runs when it applies: a row is
  // due. One ending before it (or beginning at it) leaves the change rowless.
  const endsAt5 = [row(0, 0, 5, 6)];
  const atCut = [good[0], good[1], { time: 5, freeNodes: 2, allocatedNodes: 0 }];
  assertEquals(checkCapacityChangeRows(atCut, endsAt5, config).length, 2);
  assertEquals(
    checkCapacityChangeRows(
      [good[0], good[1], { time: 5, freeNodes: -4, allocatedNodes: 6 }, atCut[2]],
      endsAt5,
      config,
    ),
    [],
  );
  const before = [good[0], good[1], { time: 4, freeNodes: 8, allocatedNodes: 0 }];
  assertEquals(checkCapacityChangeRows(before, [row(0, 0, 4, 6)], config), []);
  const startsAt5 = [
    good[0],
    { time: 5, freeNodes: 0, allocatedNodes: 2 },
    { time: 5, freeNodes: 2, allocatedNodes: 0 },
  ];
  assertEquals(checkCapacityChangeRows(startsAt5, [row(0, 5, 5, 2)], config), []);
  const trace = [job(0, 6, 9), job(1, 4, 1)];
  assertEquals(checkBatchEnd(trace, jobs, [], 9, config).length, 1);
  const notice = { kind: "stranded", time: 9, waitingJobs: 1, capacity: 2 } as const;
  assertEquals(checkBatchEnd(trace, jobs, [notice], 9, config), []);
  assertEquals(checkBatchEnd(trace, jobs, [notice], 12, config).length, 1);
  assertEquals(checkBatchEnd([trace[0]], jobs, [notice], 9, config).length, 1);
});
