// Property tests on random traces for every policy pair (issue 2): resource
// and clock invariants, the schedule output contract, FCFS order, the EASY
// and CONSERVATIVE reservation guarantees, and exact agreement with the
// naive reference simulator in tests/_reference_sim.ts.

import fc from "fast-check";
import type { JobSpec, PriorityPolicy, SimulationConfig } from "../../core/types.ts";
import {
  arbAnyScenario,
  arbScenario,
  arbStreamingSchedule,
  checkCapacity,
  checkClockMonotone,
  checkConservativeReservations,
  checkEasyHeadReservation,
  checkFcfsOrder,
  checkScheduleRows,
  runBatch,
  runInputs,
  type Scenario,
  type StreamingAction,
  streamingInputs,
  withIds,
} from "../../testing/mod.ts";
import { referenceModels, referenceSimulate } from "../_reference_sim.ts";
import { assert, assertEquals } from "../_assert.ts";

/** 200 runs in CI; set EVTSIM_PROPERTY_RUNS for a deeper local search. */
const PARAMS = { seed: 42, numRuns: runsFromEnv() ?? 200 };

function runsFromEnv(): number | undefined {
  try {
    const n = Number(Deno.env.get("EVTSIM_PROPERTY_RUNS"));
    return Number.isInteger(n) && n > 0 ? n : undefined;
  } catch {
    return undefined; // no --allow-env
  }
}
const PRIORITIES: PriorityPolicy[] = ["fcfs", "fcfs_alt", "fcfs_conservative", "sjf", "ljf"];
const anyScenario: fc.Arbitrary<Scenario> = arbAnyScenario();

const prop = <T>(arb: fc.Arbitrary<T>, check: (x: T) => void) =>
  fc.assert(fc.property(arb, check), PARAMS);

Deno.test("allocated nodes never exceed the total or go negative, under every policy", () => {
  prop(anyScenario, ({ config, trace }) => {
    assertEquals(checkCapacity(runBatch(config, trace).resourceRows, config.totalNodes), []);
  });
});

/** A scenario with a streaming plan for its trace. */
const streamedScenario = anyScenario.chain((s) =>
  arbStreamingSchedule(s.trace).map((plan) => ({ ...s, plan }))
);

Deno.test("the clock never decreases, along resource rows and across streaming steps", () => {
  prop(streamedScenario, ({ config, trace, plan }) => {
    const out = runInputs(config, streamingInputs(trace, plan));
    assertEquals(checkClockMonotone(out.resourceRows), []);
    assertEquals(checkClockMonotone(out.clocks), []);
    assertEquals(checkCapacity(out.resourceRows, config.totalNodes), []);
  });
});

Deno.test("every accepted job is written exactly once, begin >= submit, end = begin + run time; oversized jobs never start", () => {
  prop(anyScenario, ({ config, trace }) => {
    const out = runBatch(config, trace);
    assertEquals(checkScheduleRows(out.jobRows, withIds(trace), config), []);
    const oversized = trace.flatMap((j, id) => (j.numNodes > config.totalNodes ? [id] : []));
    assertEquals(out.notices.map((n) => n.kind === "rejected" ? n.jobId : -1), oversized);
    assertEquals(out.statistics.jobsStarted, trace.length - oversized.length);
    assertEquals(out.statistics.jobsRejected, oversized.length);
  });
});

Deno.test("without backfilling, jobs start in submit order", () => {
  prop(arbScenario({ backfills: ["none"], priorities: PRIORITIES }), ({ config, trace }) => {
    // SJF/LJF break submit-time ties by limit, FCFS by job id.
    const sjf = config.priorityPolicy === "sjf" || config.priorityPolicy === "ljf";
    assertEquals(checkFcfsOrder(runBatch(config, trace).jobRows, { ties: sjf ? "any" : "id" }), []);
  });
});

function assertMatchesReference(config: SimulationConfig, trace: readonly JobSpec[]): void {
  const engine = runBatch(config, trace);
  const ref = referenceSimulate(config, trace);
  assertEquals(engine.jobRows, ref.jobRows);
  assertEquals(engine.resourceRows, ref.resourceRows);
  assertEquals(engine.notices, ref.notices);
}

Deno.test("the engine's job and resource rows equal the reference simulator's, for every policy pair", () => {
  prop(
    anyScenario.filter((c) => referenceModels(c.config)),
    ({ config, trace }) => assertMatchesReference(config, trace),
  );
});

Deno.test("a streaming plan that keeps the contract gives exactly the batch run's rows", () => {
  prop(streamedScenario, ({ config, trace, plan }) => {
    assertPlanKeepsContract(trace, plan);
    const streamed = runInputs(config, streamingInputs(trace, plan));
    const batch = runBatch(config, trace);
    assertEquals(streamed.jobRows, batch.jobRows);
    assertEquals(streamed.resourceRows, batch.resourceRows);
    assertEquals(streamed.notices, batch.notices);
  });
});

function assertPlanKeepsContract(
  trace: readonly JobSpec[],
  plan: readonly StreamingAction[],
): void {
  let next = 0;
  let last = -Infinity;
  for (const a of plan) {
    if (a.kind === "append") next += a.count;
    if (a.kind !== "advanceTo" && a.kind !== "runUntilExclusive") continue;
    const upcoming = next < trace.length ? trace[next].submitTime : Infinity;
    assert(a.time >= last, `target ${a.time} before the previous target ${last}`);
    assert(
      a.kind === "advanceTo" ? a.time < upcoming : a.time <= upcoming,
      `${a.kind}(${a.time}) vs next submit ${upcoming}`,
    );
    last = a.time;
  }
  assertEquals(next, trace.length);
}

// ---- reservations ----------------------------------------------------------
//
// The guarantees are promises about limits, so they need jobs that end no
// later than their limits, and positive limits: DR_EVT counts a release only
// when a job's projected end is after now, so a zero-limit job started at an
// instant holds nodes no reservation expects back until its end is processed
// (the example tests at the end of this file pin that down).

const reservationOptions = {
  zeroLimits: false,
  priorities: PRIORITIES,
  backfills: ["easy", "conservative"],
} as const;
const backfilled = fc.oneof(
  arbScenario(reservationOptions),
  arbScenario({ ...reservationOptions, maxGap: 6 }), // deep queues, many backfills
);

Deno.test("EASY: no backfilled job delays the head past the reservation computed at the moment of backfill", () => {
  prop(backfilled, ({ config, trace }) => {
    const engine = runBatch(config, trace);
    const begin = new Map(engine.jobRows.map((r) => [r.jobId, r.beginTime]));
    const ref = referenceSimulate(config, trace);
    const sjf = config.priorityPolicy === "sjf" || config.priorityPolicy === "ljf";
    for (const d of ref.decisions) {
      if (d.kind !== "backfill") continue;
      const limit = trace[d.jobId].timeLimit;
      // The backfill ends, by its limit, before the head's shadow (SJF/LJF: at the latest at it).
      const bound = d.window ?? d.shadow!;
      assert(
        sjf ? limit <= bound - d.time : d.time + limit < bound,
        `backfill ${JSON.stringify(d)}`,
      );
      // ... and the head, in the engine's output, begins no later than that shadow.
      assert(begin.get(d.headId!)! <= d.shadow!, `head delayed: ${JSON.stringify(d)}`);
    }
    // Stronger: a head never begins after the first reservation it had as head.
    for (const [id, h] of ref.headReservations) {
      assert(
        begin.get(id)! <= h.reservation,
        `job ${id} began after its first reservation ${h.reservation}`,
      );
    }
    // The same guarantee recomputed from the engine's rows alone.
    assertEquals(checkEasyHeadReservation(engine.jobRows, withIds(trace), config), []);
  });
});

// CONSERVATIVE: "no job starts later than its earliest reservation". DR_EVT
// keeps no reservation table; what it promises is that a job is started
// ahead of others only if it ends before the reservation of every job still
// ahead of it. With exact estimates, the reservation a conservative
// scheduler gives a job at submission is the time it would begin if no later
// job existed, so the property is checked as: cut the trace after job k, and
// job k must begin in the full run no later than in the cut run
// (checkConservativeReservations). On the reference's decision log: every
// conservative backfill ends before the minimum reservation of the jobs
// ahead of it, which is at most the head's.
Deno.test("CONSERVATIVE: no job starts later than its earliest reservation (actual = limit)", () => {
  const options = {
    zeroLimits: false,
    actual: "equalsLimit",
    maxJobs: 20,
    priorities: ["fcfs", "fcfs_alt", "fcfs_conservative"],
    backfills: ["conservative"],
  } as const;
  const conservative = fc.oneof(arbScenario(options), arbScenario({ ...options, maxGap: 6 }));
  prop(conservative, ({ config, trace }) => {
    const engine = runBatch(config, trace);
    assertEquals(checkConservativeReservations(engine.jobRows, withIds(trace), config), []);
    for (const d of referenceSimulate(config, trace).decisions) {
      if (d.kind !== "backfill") continue;
      assert(
        d.time + trace[d.jobId].timeLimit < d.window! && d.window! <= d.shadow!,
        JSON.stringify(d),
      );
    }
  });
});

// ---- fixed examples: each property can fail, and DR_EVT's edge cases ------

const job = (
  submitTime: number,
  numNodes: number,
  timeLimit: number,
  actualRunTime?: number,
): JobSpec =>
  actualRunTime === undefined
    ? { submitTime, numNodes, timeLimit }
    : { submitTime, numNodes, timeLimit, actualRunTime };

Deno.test("EASY may delay a non-head job that CONSERVATIVE protects (the check is not vacuous)", () => {
  // Job 3 (the whole machine) has shadow 3. EASY backfills jobs 4 and 6 at 0;
  // job 6's nodes keep job 5 (13n, limit 1) from starting at 1, as it would
  // without job 6, and at 2 it no longer ends before the shadow, so it waits
  // for job 3 and begins at 4. CONSERVATIVE does not start job 6 ahead of job 5.
  const trace = [
    job(0, 2, 1),
    job(0, 1, 1),
    job(0, 1, 3),
    job(0, 17, 1),
    job(0, 1, 2),
    job(0, 13, 1),
    job(0, 3, 2),
  ];
  const easy: SimulationConfig = { totalNodes: 17, backfillPolicy: "easy" };
  const cons: SimulationConfig = {
    totalNodes: 17,
    priorityPolicy: "fcfs_conservative",
    backfillPolicy: "conservative",
  };
  const easyRows = runBatch(easy, trace).jobRows;
  assertEquals([easyRows[5].beginTime, easyRows[6].beginTime], [4, 0]);
  assertEquals(checkConservativeReservations(easyRows, withIds(trace), cons).length, 1);
  assertEquals(checkEasyHeadReservation(easyRows, withIds(trace), easy), []);
  const consRows = runBatch(cons, trace).jobRows;
  assertEquals(consRows[5].beginTime, 1);
  assertEquals(checkConservativeReservations(consRows, withIds(trace), cons), []);
  assertMatchesReference(easy, trace);
  assertMatchesReference(cons, trace);
});

Deno.test("observed-behaviour D.3 example: EASY backfills J5, CONSERVATIVE does not (J4's reservation is now)", () => {
  const trace = [
    job(0, 80, 100),
    job(1, 50, 100),
    job(2, 30, 100),
    job(3, 15, 100),
    job(4, 10, 40),
  ];
  const cons: SimulationConfig = {
    totalNodes: 100,
    priorityPolicy: "fcfs_conservative",
    backfillPolicy: "conservative",
  };
  assertEquals(
    runBatch({ totalNodes: 100, backfillPolicy: "easy" }, trace).jobRows[4].beginTime,
    4,
  );
  assert(runBatch(cons, trace).jobRows[4].beginTime > 4, "J5 must wait under CONSERVATIVE");
  assertMatchesReference(cons, trace);
});

Deno.test("CONSERVATIVE window: a job ahead whose nodes are never covered blocks backfilling (zero limit)", () => {
  // Job 2 (limit 0) starts at 0 and holds a node no release covers until its
  // end is processed, so job 1's reservation is `now`, which blocks job 4,
  // although job 3 (fewer nodes) has a reservation at 5. The engine once took
  // only the smallest job ahead and started job 4 at 0.
  const trace = [job(0, 1, 5), job(0, 4, 1), job(0, 1, 0), job(0, 3, 10), job(0, 1, 1)];
  const config: SimulationConfig = {
    totalNodes: 4,
    priorityPolicy: "fcfs_conservative",
    backfillPolicy: "conservative",
  };
  assertEquals(runBatch(config, trace).jobRows[4].beginTime, 6);
  assertMatchesReference(config, trace);
});

Deno.test("CONSERVATIVE window: the same with an overrunning job", () => {
  // Job 0 runs past its limit, so from t=1 its node is not a projected
  // release; at t=2 job 2 (5n) can never be covered, which blocks job 4.
  const trace = [job(0, 1, 1, 10), job(0, 1, 100), job(2, 5, 1), job(2, 4, 1), job(2, 1, 1)];
  const config: SimulationConfig = {
    totalNodes: 5,
    priorityPolicy: "fcfs_conservative",
    backfillPolicy: "conservative",
  };
  assertEquals(runBatch(config, trace).jobRows[4].beginTime, 11);
  assertMatchesReference(config, trace);
});

Deno.test("DR_EVT quirk: a zero-limit backfill lets the next call at the same instant backfill past the shadow", () => {
  // Shadow 10 for job 2 (8n); job 3 (2n, limit 0) is backfilled and, until
  // its end is processed, holds nodes no release covers, so the next call's
  // shadow is 20 and job 4 (limit 15) is backfilled too: the head begins at 15.
  const trace = [job(0, 5, 10), job(0, 3, 20), job(0, 8, 1), job(0, 2, 0), job(0, 1, 15)];
  const config: SimulationConfig = { totalNodes: 11, backfillPolicy: "easy" };
  const ref = referenceSimulate(config, trace);
  assertEquals(
    ref.decisions.filter((d) => d.kind === "backfill").map((d) => [d.jobId, d.shadow]),
    [[3, 10], [4, 20]],
  );
  assertEquals(runBatch(config, trace).jobRows[2].beginTime, 15);
  assertMatchesReference(config, trace);
});

Deno.test("the checkers report violations on a broken schedule", () => {
  const trace = withIds([job(0, 2, 5), job(1, 3, 5)]);
  const config: SimulationConfig = { totalNodes: 4, backfillPolicy: "none" };
  const rows = [
    {
      jobId: 1,
      submitTime: 1,
      beginTime: 1,
      endTime: 6,
      numNodes: 3,
      timeLimit: 5,
      queue: undefined,
    },
    {
      jobId: 0,
      submitTime: 0,
      beginTime: 2,
      endTime: 8,
      numNodes: 2,
      timeLimit: 5,
      queue: undefined,
    },
  ];
  assertEquals(checkScheduleRows(rows, trace, config).length, 2); // out of id order; wrong end
  assertEquals(checkFcfsOrder(rows).length, 1);
  assertEquals(checkEasyHeadReservation(rows, trace, config).length, 1);
  assertEquals(checkCapacity([{ time: 1, freeNodes: -1, allocatedNodes: 5 }], 4).length, 1);
  assertEquals(checkClockMonotone([3, 2]).length, 1);
});

Deno.test("the head-reservation check refuses an EASY backfill whose limit ends exactly at the shadow time", () => {
  // DR_EVT's FCFS EASY backfills only a job that ends strictly before the
  // head's shadow time (`<`; SJF/LJF compare with `<=`). Job 0 holds 6 of 10
  // nodes until 100; head 1 needs 8, so its shadow time is 100. Job 2 on the
  // 4 free nodes must end before 100: a limit of 100 breaks the rule, 99 not.
  const config: SimulationConfig = { totalNodes: 10, backfillPolicy: "easy" };
  const rowsWith = (limit: number) => {
    const trace = withIds([
      { submitTime: 0, numNodes: 6, timeLimit: 100 },
      { submitTime: 0, numNodes: 8, timeLimit: 10 },
      { submitTime: 0, numNodes: 4, timeLimit: limit },
    ]);
    const row = (jobId: number, begin: number, end: number) => ({
      jobId,
      submitTime: 0,
      beginTime: begin,
      endTime: end,
      numNodes: trace[jobId].numNodes,
      timeLimit: trace[jobId].timeLimit,
      queue: undefined,
    });
    return { trace, rows: [row(0, 0, 100), row(1, 100, 110), row(2, 0, limit)] };
  };
  const exact = rowsWith(100);
  assertEquals(checkEasyHeadReservation(exact.rows, exact.trace, config), [
    "job 2 began at 0 while head 1 waited: its limit ends at 100, not before the head's reservation 100",
  ]);
  const before = rowsWith(99);
  assertEquals(checkEasyHeadReservation(before.rows, before.trace, config), []);
  // Under SJF the same backfill is allowed (`<=`).
  assertEquals(
    checkEasyHeadReservation(exact.rows, exact.trace, { ...config, priorityPolicy: "sjf" }),
    [],
  );
});
