// checkWorkConservation (testing/work_conservation.ts): evtsim's own pickers
// × admission policies keep it on random traces; each policy's exact
// variant (DR_EVT's quirks included) is checked on hand-made cases; and lazy
// schedulers, which pass every older check, are caught.

import fc from "fast-check";
import { orderedPicker, type SimulationConfig } from "../../mod.ts";
import {
  arbAnyScenario,
  arbTrace,
  checkCapacity,
  checkClockMonotone,
  checkEasyHeadReservation,
  checkScheduleRows,
  checkWorkConservation,
  runBatch,
  withIds,
} from "../../testing/mod.ts";
import type { JobSpec } from "../../core/types.ts";
import { headOnly, idleOnly, neverBackfills, stopsAtFirstMisfit } from "../_lazy_policies.ts";
import { assert, assertEquals } from "../_assert.ts";

const RUNS = Number(Deno.env.get("EVTSIM_PROPERTY_RUNS") ?? 300);

const check = (config: SimulationConfig, trace: readonly JobSpec[], rowsOf = config) =>
  checkWorkConservation(runBatch(rowsOf, trace).jobRows, withIds(trace), config);

/** A machine, a capacity schedule (maybe empty) and every pairing evtsim has. */
const ownPolicies = fc.integer({ min: 1, max: 12 }).chain((totalNodes) =>
  fc.record({
    config: fc.record({
      totalNodes: fc.constant(totalNodes),
      priorityPolicy: fc.constantFrom("fcfs", "fcfs_alt", "fcfs_conservative", "sjf", "ljf"),
      backfillPolicy: fc.constantFrom("none", "easy", "conservative"),
      // An explicit picker name runs sjf/ljf with a real conservative admission.
      picker: fc.constantFrom(undefined, "builtin_fcfs", "sjf", "ljf"),
      runTimeMode: fc.constantFrom("actual", "limit"),
      capacitySchedule: fc.oneof(
        fc.constant([]),
        fc.array(
          fc.record({
            time: fc.integer({ min: 0, max: 150 }),
            capacity: fc.integer({ min: 0, max: totalNodes }),
          }),
          { maxLength: 4 },
        ).map((cs) => cs.sort((a, b) => a.time - b.time)),
      ),
    }).map((c) => {
      const { picker, ...rest } = c;
      return (picker === undefined ? rest : { ...rest, picker }) as SimulationConfig;
    }),
    trace: arbTrace({
      totalNodes,
      allowOversized: true,
      maxJobs: 25,
      maxGap: 8,
      actual: "unbounded",
    }),
  })
);

Deno.test("evtsim's own pickers × admissions are work-conserving on random traces (fixed seed)", () => {
  fc.assert(
    fc.property(fc.oneof(arbAnyScenario(), ownPolicies), ({ config, trace }) => {
      assertEquals(check(config, trace), []);
    }),
    { seed: 4242, numRuns: RUNS },
  );
});

Deno.test("a picker of your own: its order, or any order, under every admission policy", () => {
  const largest = orderedPicker({
    name: "largest_first",
    compare: (a, b) => b.numNodes - a.numNodes || a.id - b.id,
  });
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 12 }).chain((totalNodes) =>
        fc.tuple(
          fc.constant(totalNodes),
          fc.constantFrom("none", "easy", "conservative" as const),
          arbTrace({ totalNodes, allowOversized: true, maxJobs: 20, maxGap: 8 }),
        )
      ),
      ([totalNodes, backfillPolicy, trace]) => {
        const config: SimulationConfig = { totalNodes, backfillPolicy, picker: largest };
        const rows = runBatch(config, trace).jobRows;
        const order = (a: { numNodes: number; jobId: number }, b: typeof a) =>
          b.numNodes - a.numNodes || a.jobId - b.jobId;
        assertEquals(checkWorkConservation(rows, withIds(trace), config, { order }), []);
        assertEquals(checkWorkConservation(rows, withIds(trace), config), []); // "any"
      },
    ),
    { seed: 77, numRuns: 150 },
  );
});

Deno.test("none: a head that fits the free nodes is reported, with the capacity in force", () => {
  const trace = [{ submitTime: 0, numNodes: 3, timeLimit: 10 }];
  const config = { totalNodes: 4, backfillPolicy: "none" as const };
  const late = [{ ...withIds(trace)[0], jobId: 0, beginTime: 5, endTime: 15, queue: undefined }];
  assertEquals(checkWorkConservation(late, withIds(trace), config), [
    "at 0: head job 0 (3 nodes, limit 10) fits the 4 free nodes but waits (nothing running)",
  ]);
  // Under a capacity cut to 2 until 5, waiting until 5 is right.
  const cut = { ...config, capacitySchedule: [{ time: 0, capacity: 2 }, { time: 5, capacity: 4 }] };
  assertEquals(checkWorkConservation(late, withIds(trace), cut), []);
  assertEquals(check(cut, trace), []);
  // A job that never ran (no row) is waiting for ever: here it fits, so it is reported.
  assertEquals(checkWorkConservation([], withIds(trace), config).length, 1);
});

Deno.test("easy: DR_EVT's boundary (FCFS: end < shadow; SJF: limit <= shadow - now)", () => {
  const trace = [
    { submitTime: 0, numNodes: 6, timeLimit: 10 },
    { submitTime: 1, numNodes: 8, timeLimit: 10 }, // the head, shadow 10
    { submitTime: 2, numNodes: 4, timeLimit: 8 }, // ends at 10: by the shadow, not before it
  ];
  const fcfs = { totalNodes: 10, backfillPolicy: "easy" as const };
  const sjf = { ...fcfs, priorityPolicy: "sjf" as const };
  assertEquals(runBatch(fcfs, trace).jobRows[2].beginTime, 20);
  assertEquals(runBatch(sjf, trace).jobRows[2].beginTime, 2);
  assertEquals(check(fcfs, trace), []);
  assertEquals(check(sjf, trace), []);
  // FCFS's schedule read with SJF's promise leaves job 2 idle at 2.
  assertEquals(check(sjf, trace, fcfs), [
    "at 2: job 2 (4 nodes, limit 8) fits the 4 free nodes and would end at 10, by head job 1's " +
    "shadow time 10, but was not backfilled (easy)",
  ]);
});

Deno.test("easy: no backfill pass with no node free under FCFS, but SJF still looks", () => {
  const trace = [
    { submitTime: 0, numNodes: 10, timeLimit: 10 },
    { submitTime: 1, numNodes: 8, timeLimit: 10 },
    { submitTime: 2, numNodes: 0, timeLimit: 5 }, // fits the 0 free nodes
  ];
  const fcfs = { totalNodes: 10, backfillPolicy: "easy" as const };
  const sjf = { ...fcfs, priorityPolicy: "sjf" as const };
  assertEquals(runBatch(fcfs, trace).jobRows[2].beginTime, 10);
  assertEquals(runBatch(sjf, trace).jobRows[2].beginTime, 2);
  assertEquals(check(fcfs, trace), []);
  assertEquals(check(sjf, trace), []);
  assertEquals(check(sjf, trace, fcfs).length, 1);
});

Deno.test("conservative: the first fitting job that cannot start blocks the rest (EASY would not)", () => {
  const trace = [
    { submitTime: 0, numNodes: 6, timeLimit: 100 },
    { submitTime: 0, numNodes: 8, timeLimit: 10 }, // head, reservation 100
    { submitTime: 0, numNodes: 4, timeLimit: 200 }, // fits, ends after 100: blocks
    { submitTime: 0, numNodes: 2, timeLimit: 10 }, // would fit before 100
  ];
  const cons = { totalNodes: 10, backfillPolicy: "conservative" as const };
  const easy = { totalNodes: 10, backfillPolicy: "easy" as const };
  assertEquals(runBatch(cons, trace).jobRows[3].beginTime, 110);
  assertEquals(runBatch(easy, trace).jobRows[3].beginTime, 0);
  assertEquals(check(cons, trace), []);
  assertEquals(check(easy, trace, cons), [
    "at 0: job 3 (2 nodes, limit 10) fits the 4 free nodes and would end at 10, before head " +
    "job 1's shadow time 100, but was not backfilled (easy)",
  ]);
  // Without the blocking job, conservative must start job 3 at 0.
  const lazy = { ...cons, admission: { ...neverBackfills, name: "lazy" } };
  const three = [trace[0], trace[1], trace[3]];
  assertEquals(
    checkWorkConservation(runBatch(lazy, three).jobRows, withIds(three), lazy, {
      guarantee: "conservative",
    }),
    [
      "at 0: job 2 (2 nodes, limit 10) fits the 4 free nodes and would end at 10, before 100, " +
      "the earliest reservation of the jobs ahead of it (job 1), but waits (conservative)",
    ],
  );
});

Deno.test("preconditions: queues and jobs ended by live events are out, said so", () => {
  const trace = [{ submitTime: 0, numNodes: 1, timeLimit: 1 }];
  const queued = { totalNodes: 2, queues: [{ name: "q" }] };
  assertEquals(checkWorkConservation([], withIds(trace), queued), [
    "precondition: no configured queues",
  ]);
  const killed = [{
    jobId: 0,
    submitTime: 0,
    beginTime: 0,
    endTime: 0,
    numNodes: 1,
    timeLimit: 1,
    queue: undefined,
    outcome: "killed" as const,
  }];
  assertEquals(checkWorkConservation(killed, withIds(trace), { totalNodes: 2 }), [
    "precondition: job 0 was killed (no live events)",
  ]);
});

/** Finds a trace on which `config` breaks work conservation (fixed seed). */
function lazyCounterexample(
  config: (totalNodes: number) => SimulationConfig,
  guarantee: "none" | "easy" | "conservative",
  order?: "any",
): { config: SimulationConfig; trace: JobSpec[]; violations: string[] } {
  const r = fc.check(
    fc.property(
      fc.integer({ min: 1, max: 10 }).chain((n) =>
        fc.tuple(fc.constant(n), arbTrace({ totalNodes: n, maxJobs: 15, zeroLimits: false }))
      ),
      ([n, trace]) => {
        const c = config(n);
        const v = checkWorkConservation(runBatch(c, trace).jobRows, withIds(trace), c, {
          guarantee,
          ...(order !== undefined ? { order } : {}),
        });
        return v.length === 0;
      },
    ),
    { seed: 5, numRuns: 500 },
  );
  assert(r.failed, `${config(1).admission?.name}: no counterexample in 500 runs`);
  const [[n, trace]] = r.counterexample!;
  const c = config(n);
  return {
    config: c,
    trace,
    violations: checkWorkConservation(runBatch(c, trace).jobRows, withIds(trace), c, {
      guarantee,
      ...(order !== undefined ? { order } : {}),
    }),
  };
}

Deno.test("lazy schedulers pass every older check but not work conservation", () => {
  const cases = [
    { config: (n: number) => ({ totalNodes: n, admission: idleOnly }), guarantee: "none" },
    { config: (n: number) => ({ totalNodes: n, admission: neverBackfills }), guarantee: "easy" },
    {
      config: (n: number) => ({ totalNodes: n, admission: stopsAtFirstMisfit }),
      guarantee: "easy",
    },
    {
      config: (n: number) => ({ totalNodes: n, picker: headOnly, backfillPolicy: "easy" }),
      guarantee: "easy",
      order: "any",
    },
  ] as const;
  for (const c of cases) {
    const found = lazyCounterexample(c.config, c.guarantee, "order" in c ? c.order : undefined);
    const { config, trace, violations } = found;
    assert(violations.length > 0 && /^at [\d.]+: /.test(violations[0]), violations[0]);
    // The older checks see nothing wrong with the same run.
    const out = runBatch(config, trace);
    const traced = withIds(trace);
    assertEquals([
      ...checkCapacity(out.resourceRows, config.totalNodes),
      ...checkScheduleRows(out.jobRows, traced, config),
      ...checkClockMonotone(out.resourceRows),
      ...checkEasyHeadReservation(out.jobRows, traced, config, {
        order: (a, b) => a.submitTime - b.submitTime || a.jobId - b.jobId,
      }),
    ], []);
  }
});
