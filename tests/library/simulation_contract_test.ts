// The Simulation's promises when something goes wrong (issue 18, items 8 and
// 15; issue 8, item 7): a call that throws (bad arguments, a broken contract,
// or a sink that throws) leaves the simulation as it was and can be retried;
// a sink that calls back into the simulation gets a clear EvtsimError; every
// argument of the public API is type-checked.

import fc from "fast-check";
import { assert, assertEquals, assertThrows } from "../_assert.ts";
import {
  advanceTo,
  appendJobs,
  EvtsimError,
  initialState,
  type JobRow,
  type JobSpec,
  type Notice,
  type ResourceRow,
  runUntilExclusive,
  Simulation,
  type SimulationConfig,
  step,
  submitJob,
} from "../../mod.ts";
import {
  arbAnyScenario,
  arbStreamingSchedule,
  runBatch,
  snapshotState,
  streamingInputs,
} from "../../testing/mod.ts";

const PARAMS = { seed: 1818, numRuns: 150 };

function evtsimError(f: () => unknown, kind?: string): EvtsimError {
  try {
    f();
  } catch (e) {
    assert(e instanceof EvtsimError, `expected an EvtsimError, got ${e}`);
    if (kind !== undefined) assertEquals(e.kind, kind, e.message);
    return e;
  }
  throw new Error("expected the call to throw");
}

// deno-lint-ignore no-explicit-any
type Any = any;

Deno.test("every Simulation argument is type-checked: EvtsimError, nothing changed", () => {
  const sim = new Simulation({ totalNodes: 8 });
  sim.appendJobs([{ submitTime: 0, numNodes: 4, timeLimit: 10 }]);
  sim.advanceTo(5);
  const before = snapshotState(sim.state);
  const bad: [string, () => unknown][] = [
    ["advanceTo('100')", () => sim.advanceTo("100" as Any)],
    ["advanceTo()", () => (sim.advanceTo as Any)()],
    ["runUntilExclusive(null)", () => sim.runUntilExclusive(null as Any)],
    ["appendJob(null)", () => sim.appendJob(null as Any)],
    ["appendJob(5)", () => sim.appendJob(5 as Any)],
    [
      "appendJob({numNodes:'2'})",
      () => sim.appendJob({ submitTime: 6, numNodes: "2", timeLimit: 1 } as Any),
    ],
    [
      "appendJob({queue: 3})",
      () => sim.appendJob({ submitTime: 6, numNodes: 2, timeLimit: 1, queue: 3 } as Any),
    ],
    [
      "appendJob(_, null)",
      () => sim.appendJob({ submitTime: 6, numNodes: 2, timeLimit: 1 }, null as Any),
    ],
    [
      "appendJob(_, {submit:'no'})",
      () => sim.appendJob({ submitTime: 6, numNodes: 2, timeLimit: 1 }, { submit: "no" } as Any),
    ],
    ["appendJobs('x')", () => sim.appendJobs("x" as Any)],
    ["appendJobs([undefined])", () => sim.appendJobs([undefined] as Any)],
    ["submitJob('0', 1)", () => sim.submitJob("0" as Any, 6)],
    ["submitJob(0, '6')", () => sim.submitJob(0, "6" as Any)],
    ["finish(null)", () => sim.finish(null as Any)],
    ["finish({runToCompletion: 1})", () => sim.finish({ runToCompletion: 1 } as Any)],
    ["loadTrace(null)", () => sim.loadTrace(null as Any)],
    ["initializeTrace('2')", () => sim.initializeTrace("2" as Any)],
  ];
  for (const [what, f] of bad) {
    const e = evtsimError(f);
    assert(!e.message.includes("undefined (reading"), `${what}: ${e.message}`);
    assertEquals(snapshotState(sim.state), before, what);
  }
  // The simulation still works after all of that.
  sim.advanceTo(10);
  assertEquals(sim.finish().jobs.map((r) => r.endTime), [10]);
});

Deno.test("constructor, input constructors and step check their arguments", () => {
  for (
    const f of [
      () => new Simulation(null as Any),
      () => new Simulation("x" as Any),
      () => new Simulation({ totalNodes: 8 }, { onJobRow: "log" } as Any),
      () => new Simulation({ totalNodes: 8 }, null as Any),
      () => new Simulation({ totalNodes: 8, jobs: {} } as Any),
      () => new Simulation({ totalNodes: "8" } as Any),
      () => new Simulation({ totalNodes: 2 ** 60 }),
      () => new Simulation({ totalNodes: 8, runTimeScale: "5" } as Any),
      () => new Simulation({ totalNodes: 8, runTimeStddev: "0" } as Any),
      () => new Simulation({ totalNodes: 8, seed: "1" } as Any),
      () => new Simulation({ totalNodes: 8, capacitySchedule: 5 } as Any),
      () => new Simulation({ totalNodes: 8, capacitySchedule: [null] } as Any),
      () => initialState(undefined as Any),
      () => advanceTo("1" as Any),
      () => runUntilExclusive(undefined as Any),
      () => submitJob(0, "1" as Any),
      () => appendJobs({} as Any),
      () => appendJobs([], { submit: 1 } as Any),
      () => step(undefined as Any, advanceTo(1)),
      () => step(initialState({ totalNodes: 8 }), null as Any),
      () => step(initialState({ totalNodes: 8 }), { kind: "teleport" } as Any),
      () => step(initialState({ totalNodes: 8 }), { kind: "advanceTo", time: "1" } as Any),
      () => step(initialState({ totalNodes: 8 }), { kind: "appendJobs", jobs: null } as Any),
      () =>
        step(initialState({ totalNodes: 8 }), { kind: "submitJob", id: "0", submitTime: 1 } as Any),
    ]
  ) evtsimError(f);
});

Deno.test("values that a double cannot hold exactly are refused", () => {
  const sim = new Simulation({ totalNodes: 8 });
  for (
    const job of [
      { submitTime: 2 ** 53, numNodes: 1, timeLimit: 1 },
      { submitTime: 0, numNodes: 2 ** 60, timeLimit: 1 },
      { submitTime: 0, numNodes: 1, timeLimit: 2 ** 53 },
      { submitTime: 0, numNodes: 1, timeLimit: 1, actualRunTime: 1e300 },
    ]
  ) evtsimError(() => sim.appendJob(job), "input");
  evtsimError(() => new Simulation({ totalNodes: 8, startTime: 2 ** 60 }), "usage");
  evtsimError(() => new Simulation({ totalNodes: 8, jobStoreCapacity: 2 ** 60 }), "usage");
  // A computed time must stay exact too (issue 32 item 20): the end, 2^53 − 1, is the last one.
  evtsimError(() => sim.appendJob({ submitTime: 2 ** 53 - 1, numNodes: 1, timeLimit: 1 }), "input");
  assertEquals(sim.appendJob({ submitTime: 2 ** 53 - 2, numNodes: 1, timeLimit: 1 }), 0);
});

Deno.test("uniform draws: options and draws are bounded, nothing silently vanishes", () => {
  const config = {
    totalNodes: 8,
    runTimeMode: "distribution",
    runTimeDistribution: "uniform",
  } as const;
  evtsimError(() => new Simulation({ ...config, runTimeStddev: 1e308 }), "usage");
  evtsimError(() => new Simulation({ ...config, runTimeScale: 1e300 }), "usage");
  const sim = new Simulation({ ...config, runTimeStddev: 1e6 });
  const before = snapshotState(sim.state);
  // L · (scale + stddev) = 10^19 s: a draw above 2^53 - 1 is refused, naming the job.
  const e = evtsimError(
    () => sim.appendJob({ submitTime: 0, numNodes: 1, timeLimit: 1e13 }),
    "input",
  );
  assert(e.message.startsWith("job 0: drawn run time"), e.message);
  assertEquals(snapshotState(sim.state), before);
  sim.appendJob({ submitTime: 0, numNodes: 1, timeLimit: 1000 });
  assertEquals(sim.finish().jobs.length, 1);
});

Deno.test("appendJob with submit: false, then submitJob: DR_EVT's two steps", () => {
  const sim = new Simulation({ totalNodes: 10, backfillPolicy: "none" });
  const a = sim.appendJob({ submitTime: 0, numNodes: 10, timeLimit: 100 });
  const b = sim.appendJob({ submitTime: 0, numNodes: 5, timeLimit: 10 }, { submit: false });
  // Stored jobs need not be sorted and may carry any submit time.
  const [c, d] = sim.appendJobs([
    { submitTime: 999, numNodes: 5, timeLimit: 10 },
    { submitTime: 1, numNodes: 5, timeLimit: 10 },
  ], { submit: false });
  assertEquals([a, b, c, d], [0, 1, 2, 3]);
  sim.advanceTo(50);
  assertEquals(sim.activeJobCount, 0); // b, c, d are not submitted
  sim.submitJob(c, 60);
  sim.submitJob(b, 50);
  evtsimError(() => sim.submitJob(b, 70), "state"); // at most once
  evtsimError(() => sim.submitJob(d, 40), "time"); // not before the clock
  const out = sim.finish();
  const begin = new Map(out.jobs.map((r) => [r.jobId, [r.submitTime, r.beginTime]]));
  assertEquals(begin.get(b), [50, 100]);
  assertEquals(begin.get(c), [60, 100]);
  assertEquals(begin.has(d), false); // never submitted: not in the schedule
});

Deno.test("a throwing sink undoes the call; the call can be retried, finish() too", () => {
  let failNext = false;
  const rows: JobRow[] = [];
  const boom = new Error("disk full");
  const sim = new Simulation({ totalNodes: 4 }, {
    onJobRow: (r) => {
      if (failNext) {
        failNext = false;
        throw boom;
      }
      rows.push(r);
    },
  });
  sim.appendJobs([
    { submitTime: 0, numNodes: 4, timeLimit: 10 },
    { submitTime: 0, numNodes: 4, timeLimit: 10 },
  ]);
  const before = snapshotState(sim.state);
  failNext = true;
  assert(
    assertThrows(() => sim.finish(), "disk full") === boom,
    "the sink's own error is rethrown",
  );
  assertEquals(snapshotState(sim.state), before);
  assertEquals(sim.currentTime, 0);
  assertEquals(rows.length, 0);
  const out = sim.finish(); // retried: every row is delivered
  assertEquals(rows.map((r) => r.endTime), [10, 20]);
  assertEquals(out.statistics.jobsCompleted, 2);
  assert(sim.finish() === out);
});

Deno.test("rows kept for finish() are rolled back with the call", () => {
  let fail = false;
  const jobs = [{ submitTime: 0, numNodes: 4, timeLimit: 10 }, {
    submitTime: 5,
    numNodes: 4,
    timeLimit: 1,
  }];
  const sim = new Simulation({ totalNodes: 4, resourceHistoryCapacity: 1 }, {
    onJobRow: () => {
      if (fail) throw new Error("no");
    },
  });
  sim.appendJobs(jobs);
  // finish() = run to completion (resource rows, kept: no resource sink) + finish (job rows).
  fail = true;
  assertThrows(() => sim.finish(), "no");
  fail = false;
  const out = sim.finish();
  assertEquals(out.resources, runBatch({ totalNodes: 4 }, jobs).resourceRows);
  assertEquals(out.resources.map((r) => r.time), [0, 0, 10, 10, 11]);
});

Deno.test("a sink that calls back into the simulation gets a clear EvtsimError", () => {
  const seen: string[] = [];
  const sim: Simulation = new Simulation({ totalNodes: 4 }, {
    onJobRow: () => {
      for (const f of [() => sim.advanceTo(100), () => sim.currentTime, () => sim.finish()]) {
        try {
          f();
          seen.push("accepted");
        } catch (e) {
          seen.push(e instanceof EvtsimError && e.kind === "state" ? e.message : `other: ${e}`);
        }
      }
    },
  });
  sim.appendJob({ submitTime: 0, numNodes: 4, timeLimit: 10 });
  sim.finish();
  assertEquals(seen.length, 3);
  assert(seen[0].startsWith("Simulation.advanceTo was called from a sink while finish"), seen[0]);
  assert(seen.every((m) => m.includes("a sink must not use the simulation")), seen.join("\n"));
});

// ---- the property --------------------------------------------------------------

interface Delivered {
  jobs: JobRow[];
  resources: ResourceRow[];
  notices: Notice[];
}

Deno.test("property: a call that throws (a sink at a random row, or a bad argument) leaves snapshotState unchanged, and retrying gives the batch run's rows", () => {
  const arb = arbAnyScenario().chain((s) =>
    fc.record({
      scenario: fc.constant(s),
      plan: arbStreamingSchedule(s.trace),
      failAt: fc.uniqueArray(fc.nat(60), { maxLength: 4 }),
      sinks: fc.record({ jobs: fc.boolean(), resources: fc.boolean(), notices: fc.boolean() }),
      badCalls: fc.array(fc.nat(3), { maxLength: 3 }),
    })
  );
  fc.assert(
    fc.property(arb, ({ scenario, plan, failAt, sinks, badCalls }) => {
      const { config, trace } = scenario;
      const fails = new Set(failAt);
      let count = 0;
      let pending: Delivered = { jobs: [], resources: [], notices: [] };
      const tick = () => {
        if (fails.has(count++)) throw new Error(`injected at row ${count - 1}`);
      };
      const sim = new Simulation(config as SimulationConfig, {
        ...(sinks.jobs ? { onJobRow: (r: JobRow) => (tick(), pending.jobs.push(r)) } : {}),
        ...(sinks.resources
          ? { onResourceRow: (r: ResourceRow) => (tick(), pending.resources.push(r)) }
          : {}),
        ...(sinks.notices ? { onNotice: (n: Notice) => (tick(), pending.notices.push(n)) } : {}),
      });
      const delivered: Delivered = { jobs: [], resources: [], notices: [] };
      const call = (f: () => unknown) => {
        for (;;) {
          const before = snapshotState(sim.state);
          pending = { jobs: [], resources: [], notices: [] };
          try {
            f();
          } catch (e) {
            if (!(e instanceof Error) || !e.message.startsWith("injected")) throw e;
            assertEquals(snapshotState(sim.state), before);
            continue; // the failure points are behind us now: retry
          }
          delivered.jobs.push(...pending.jobs);
          delivered.resources.push(...pending.resources);
          delivered.notices.push(...pending.notices);
          return;
        }
      };
      const misuse = (k: number) => {
        const before = snapshotState(sim.state);
        const bad: (() => unknown)[] = [
          () => sim.advanceTo(sim.currentTime - 1),
          () => sim.appendJob(null as Any),
          () => sim.advanceTo(String(sim.currentTime + 1) as Any),
          () => sim.appendJobs([{ submitTime: sim.currentTime - 1, numNodes: 1, timeLimit: 1 }]),
        ];
        evtsimError(bad[k]);
        assertEquals(snapshotState(sim.state), before);
      };
      let b = 0;
      for (const input of streamingInputs(trace, plan)) {
        if (b < badCalls.length && sim.currentTime > 0) misuse(badCalls[b++]);
        switch (input.kind) {
          case "appendJobs":
            call(() => sim.appendJobs(input.jobs as JobSpec[]));
            break;
          case "advanceTo":
            call(() => sim.advanceTo(input.time));
            break;
          case "runUntilExclusive":
            call(() => sim.runUntilExclusive(input.time));
            break;
          case "flush":
            call(() => sim.flush());
            break;
          case "runToCompletion":
            call(() => sim.runToCompletion());
            break;
          case "finish":
            call(() => sim.finish());
            break;
        }
      }
      const out = sim.finish();
      const batch = runBatch(config, trace);
      assertEquals(sinks.jobs ? delivered.jobs : out.jobs, batch.jobRows);
      assertEquals(sinks.resources ? delivered.resources : out.resources, batch.resourceRows);
      assertEquals(sinks.notices ? delivered.notices : out.notices, batch.notices);
    }),
    PARAMS,
  );
});
