// The `fairshare` picker (issue 16 item 3): the worked example of docs/policies.md
// with its priorities computed by hand, agreement with the plain reference in
// tests/_reference_fairshare.ts on random traces, and the properties (one
// user with age weight only is FCFS; a snapshot taken mid-run continues with
// the same rows; streaming gives the batch rows).

import fc from "fast-check";
import {
  fairsharePicker,
  type FairshareState,
  initialState,
  type JobRecord,
  type JobSpec,
  loadSnapshot,
  type Picker,
  rankFairshare,
  saveSnapshot,
  Simulation,
  type SimulationConfig,
  step,
} from "../../mod.ts";
import type { BackfillPolicy } from "../../core/types.ts";
import {
  arbScenario,
  arbStreamingSchedule,
  fuzzScheduler,
  runBatch,
  runInputs,
  type Scenario,
  streamingInputs,
} from "../../testing/mod.ts";
import { referenceFairshare } from "../_reference_fairshare.ts";
import { rowsThroughSnapshot } from "../_snapshot_cut.ts";
import { assert, assertEquals } from "../_assert.ts";

// ---- the worked example ----------------------------------------------------

const HOUR = 3600;
const EXAMPLE_SETTINGS = { halfLife: HOUR, maxAge: HOUR, weights: { fairshare: 1000, age: 100 } };
const EXAMPLE: JobSpec[] = [
  { submitTime: 0, numNodes: 10, timeLimit: HOUR, user: "alice" },
  { submitTime: 60, numNodes: 10, timeLimit: 600, user: "alice" },
  { submitTime: 120, numNodes: 10, timeLimit: 600, user: "bob" },
];

Deno.test("worked example: the light user's later job jumps ahead of the heavy user's (priorities by hand)", () => {
  // The picker's state at 3600, when job 0 (alice, 10 nodes, [0, 3600)) has ended.
  let s: FairshareState = fairsharePicker.init({
    queues: [],
    searchByLimit: false,
    pickerNamed: () => fairsharePicker,
    totalNodes: 10,
    settings: EXAMPLE_SETTINGS,
  });
  const rec = (id: number): JobRecord => ({
    id,
    submitTime: EXAMPLE[id].submitTime,
    numNodes: EXAMPLE[id].numNodes,
    timeLimit: EXAMPLE[id].timeLimit,
    queue: undefined,
    user: EXAMPLE[id].user,
    runTime: EXAMPLE[id].timeLimit,
    priority: 0,
    beginTime: -1,
    endTime: -1,
    rejected: false,
    hidden: false,
  });
  for (const id of [0, 1, 2]) s = fairsharePicker.onJobPush(s, rec(id));
  s = fairsharePicker.onJobStateChange(s, rec(0), "cancelled"); // started: no longer waiting
  s = fairsharePicker.onJobEnd!(s, { ...rec(0), beginTime: 0, endTime: HOUR });

  // alice's usage: 10 nodes · (H / ln 2) · (1 − 2^−1) = 25,968.1 node-seconds; bob's: 0.
  const [alice] = [...s.usage.values()];
  assert(Math.abs(alice.value - 10 * (HOUR / Math.LN2) * 0.5) < 1e-9, `usage ${alice.value}`);
  // Ū: alice 1, bob 0; shares S = 1/2 each; F = 2^(−Ū/S): alice 2^−2 = 0.25, bob 1.
  // Ages at 3600: job 1 (3600 − 60)/3600, job 2 (3600 − 120)/3600.
  const p1 = 1000 * 0.25 + 100 * (3540 / 3600); // 348.33
  const p2 = 1000 * 1 + 100 * (3480 / 3600); // 1096.67
  const ranked = rankFairshare(s, HOUR);
  assertEquals(ranked.map((r) => r.job.id), [2, 1]);
  assert(Math.abs(ranked[0].priority - p2) < 1e-9, `job 2: ${ranked[0].priority}`);
  assert(Math.abs(ranked[1].priority - p1) < 1e-9, `job 1: ${ranked[1].priority}`);

  // The run: bob's job 2 starts at 3600, alice's job 1 after it; FCFS has them the other way.
  const begins = (config: SimulationConfig) => {
    const sim = new Simulation(config);
    sim.appendJobs(EXAMPLE);
    return sim.finish().jobs.map((r) => [r.jobId, r.beginTime]);
  };
  const base = { totalNodes: 10, backfillPolicy: "none" } as const;
  assertEquals(
    begins({ ...base, picker: "fairshare", pickerSettings: { fairshare: EXAMPLE_SETTINGS } }),
    [[0, 0], [1, 4200], [2, 3600]],
  );
  assertEquals(begins(base), [[0, 0], [1, 3600], [2, 4200]]);
});

Deno.test("fairshare settings: unknown fields and wrong types are one clear error", () => {
  const bad = (fairshare: unknown) => () =>
    initialState({ totalNodes: 4, picker: "fairshare", pickerSettings: { fairshare } });
  const message = (f: () => unknown) => {
    try {
      f();
    } catch (e) {
      return (e as Error).message;
    }
    return "no error";
  };
  assertEquals(
    message(bad({ halfLfe: 3 })),
    "fairshare settings: halfLfe: unknown field (expected one of by, halfLife, maxAge, weights, shares)",
  );
  assertEquals(
    message(bad({ halfLife: 0 })),
    "fairshare settings: halfLife: expected a positive number of seconds, got 0",
  );
  assertEquals(
    message(bad({ by: "group" })),
    "fairshare settings: by: expected user or account, got 'group'",
  );
  assertEquals(
    message(bad({ shares: { a: -1 } })),
    "fairshare settings: shares.a: expected a positive number, got -1",
  );
  assertEquals(
    message(bad({ weights: { age: "x" } })),
    "fairshare settings: weights.age: expected a non-negative number, got 'x'",
  );
});

// ---- random traces -------------------------------------------------------------

const USERS = ["u1", "u2", "u3", undefined] as const;

/** A fairshare configuration: random settings (short half-lives matter on short traces). */
const arbSettings = fc.record({
  by: fc.constantFrom("user", "account"),
  halfLife: fc.constantFrom(1, 7, 60, 500, 604800),
  maxAge: fc.constantFrom(1, 30, 1000),
  weights: fc.record({
    fairshare: fc.constantFrom(0, 1, 1000),
    age: fc.constantFrom(0, 1, 100, 5000),
    size: fc.constantFrom(0, 10),
  }),
  shares: fc.constantFrom(undefined, { u1: 3 }, { u2: 0.5, "": 2 }),
}).map((s) => (s.shares === undefined ? { ...s, shares: undefined } : s));

/** A scenario with users and accounts on its jobs and a fairshare configuration. */
function withFairshare(base: fc.Arbitrary<Scenario>): fc.Arbitrary<Scenario> {
  return base.chain((sc) =>
    fc.record({
      settings: arbSettings,
      who: fc.array(fc.tuple(fc.constantFrom(...USERS), fc.constantFrom(...USERS)), {
        minLength: sc.trace.length,
        maxLength: sc.trace.length,
      }),
    }).map(({ settings, who }) => {
      const { shares, ...rest } = settings;
      return {
        config: {
          ...sc.config,
          picker: "fairshare",
          pickerSettings: { fairshare: shares === undefined ? rest : settings },
        },
        trace: sc.trace.map((j, i) => ({
          ...j,
          ...(who[i][0] === undefined ? {} : { user: who[i][0] }),
          ...(who[i][1] === undefined ? {} : { account: who[i][1] }),
        })),
      };
    })
  );
}

function scenarios(backfill: "none" | "easy" | "conservative"): fc.Arbitrary<Scenario> {
  return withFairshare(fc.oneof(
    arbScenario({ backfills: [backfill], allowOversized: true, maxJobs: 40 }),
    arbScenario({ backfills: [backfill], allowOversized: true, integerTimes: false, maxJobs: 30 }),
    // Deep queues: fast arrivals on a small machine.
    arbScenario({
      backfills: [backfill],
      totalNodes: 32,
      maxNodes: 32,
      maxGap: 3,
      minJobs: 60,
      maxJobs: 120,
      ties: true,
    }),
  ));
}

for (const backfill of ["none", "easy"] as const) {
  Deno.test(`fairshare + ${backfill}: the engine's rows equal the plain reference's on 500 random traces`, () => {
    let deep = 0;
    let reordered = 0;
    const seed = 1616;
    try {
      fc.assert(
        fc.property(scenarios(backfill), ({ config, trace }) => {
          const engine = runBatch(config, trace);
          const ref = referenceFairshare(config, trace);
          assertEquals(engine.jobRows, ref.jobRows);
          assertEquals(engine.resourceRows, ref.resourceRows);
          if (engine.statistics.peakQueueLength > 30) deep++;
          const { picker: _, ...fcfs } = config;
          const plain = runBatch(fcfs, trace).jobRows;
          if (JSON.stringify(plain) !== JSON.stringify(engine.jobRows)) reordered++;
        }),
        { seed, numRuns: 500 },
      );
    } catch (e) {
      console.error(`fast-check seed ${seed}`);
      throw e;
    }
    assert(deep >= 50, `only ${deep} of 500 traces had a queue deeper than 30`);
    // Not vacuous: the fair-share order differs from FCFS on many traces.
    assert(reordered >= 150, `only ${reordered} of 500 traces were scheduled unlike FCFS`);
  });
}

Deno.test("fairshare with one user and no fair-share difference orders as FCFS: the same rows as builtin_fcfs", () => {
  const oneUser = fc.constantFrom("none", "easy", "conservative").chain((b) =>
    fc.tuple(
      arbScenario({ backfills: [b as "none"], allowOversized: true, maxJobs: 40 }),
      fc.constantFrom(1, 30, 604800),
      fc.constantFrom(0, 1, 100),
      fc.constantFrom(0, 1000),
      fc.constantFrom(undefined, "solo"),
    )
  );
  fc.assert(
    fc.property(oneUser, ([{ config, trace }, maxAge, age, fairshare, user]) => {
      const jobs = trace.map((j) => (user === undefined ? j : { ...j, user }));
      const fcfs = runBatch({ ...config, priorityPolicy: "fcfs" }, jobs);
      const fs = runBatch({
        ...config,
        picker: "fairshare",
        pickerSettings: { fairshare: { maxAge, weights: { age, fairshare, size: 0 } } },
      }, jobs);
      assertEquals(fs.jobRows, fcfs.jobRows);
      assertEquals(fs.resourceRows, fcfs.resourceRows);
    }),
    { seed: 1617, numRuns: 300 },
  );
});

/** A scenario (any admission) with a streaming plan for its trace. */
const streamed = fc.constantFrom("none", "easy", "conservative", "easy_extra").chain((b) =>
  withFairshare(arbScenario({ backfills: [b as "none"], allowOversized: true, maxJobs: 30 }))
    .chain((s) => arbStreamingSchedule(s.trace).map((plan) => ({ ...s, plan })))
);

Deno.test("fairshare: a streaming plan gives exactly the batch run's rows", () => {
  fc.assert(
    fc.property(streamed, ({ config, trace, plan }) => {
      const s = runInputs(config, streamingInputs(trace, plan));
      const b = runBatch(config, trace);
      assertEquals(s.jobRows, b.jobRows);
      assertEquals(s.resourceRows, b.resourceRows);
    }),
    { seed: 1618, numRuns: 300 },
  );
});

Deno.test("fairshare: a run restored from a snapshot taken mid-run gives the uninterrupted run's rows", () => {
  let withUsage = 0;
  fc.assert(
    fc.property(streamed, fc.nat(), ({ config, trace, plan }, k) => {
      const inputs = streamingInputs(trace, plan);
      const cut = 1 + (k % (inputs.length - 1));
      // Finished records are reclaimed early, so usage cannot be rebuilt from them.
      const c = { ...config, jobStoreCapacity: 2, jobFlushInterval: 1 };
      const whole = rowsThroughSnapshot(c, inputs, -1);
      const restored = rowsThroughSnapshot(c, inputs, cut);
      assertEquals(restored.jobs, whole.jobs);
      assertEquals(restored.resources, whole.resources);
      let s = initialState(c);
      for (const input of inputs.slice(0, cut)) s = step(s, input).state;
      const memory = saveSnapshot(s).pickerMemory as { usage: [string, number, number][] };
      if (memory.usage.some(([, v]) => v > 0)) withUsage++;
    }),
    { seed: 1619, numRuns: 300 },
  );
  assert(withUsage >= 100, `only ${withUsage} cuts had usage to carry`);
});

Deno.test("fairshare: a snapshot's usage memory is checked when it is loaded", () => {
  const sim = new Simulation({ totalNodes: 4, picker: "fairshare" });
  sim.appendJobs(EXAMPLE.map((j) => ({ ...j, numNodes: 4 })));
  sim.advanceTo(4000);
  const data = saveSnapshot(sim.state);
  const memory = data.pickerMemory as { usage: [string, number, number][] };
  assertEquals(memory.usage.map(([n]) => n), ["alice", "bob"]);
  assert(memory.usage[0][1] > 0 && memory.usage[0][2] === 3600, JSON.stringify(memory));
  for (
    const [bad, message] of [
      [{}, "snapshot: fairshare memory must hold a usage list"],
      [
        { usage: [["a", -1, 0]] },
        'snapshot: fairshare usage entry ["a",-1,0] is not [name, usage, time]',
      ],
    ] as const
  ) {
    try {
      loadSnapshot({ ...data, pickerMemory: bad });
      throw new Error("a bad memory must be refused");
    } catch (e) {
      assertEquals((e as Error).message, message);
    }
  }
});

Deno.test("fuzzScheduler: the fairshare picker passes the invariants under every admission policy", () => {
  // Its traces have no users: one entity, whose usage still changes the order's factors.
  for (
    const admission of ["none", "easy", "conservative", "easy_extra", "conservative_profile"]
  ) {
    const r = fuzzScheduler({ picker: fairsharePicker as Picker }, {
      numRuns: 60,
      seed: 1620,
      admissions: [admission as BackfillPolicy],
    });
    assert(r.ok, r.ok ? "" : `${admission}: ${r.report}`);
    assertEquals(r.checked["batch-streaming"], 60, admission);
  }
});
