// The testing module's own contracts: its arbitraries generate what their
// options promise, so properties built on them test what they claim to.

import fc from "fast-check";
import {
  arbConfig,
  arbJobSpec,
  arbTrace,
  batchInputs,
  checkFcfsOrder,
  runBatch,
  runInputs,
  streamingInputs,
} from "../../testing/mod.ts";
import { assert, assertEquals } from "../_assert.ts";

const PARAMS = { seed: 42, numRuns: 200 };

Deno.test("arbTrace: sorted by submit time, sizes and run times as the options say", () => {
  const options = fc.record({
    totalNodes: fc.integer({ min: 1, max: 32 }),
    allowOversized: fc.boolean(),
    integerTimes: fc.boolean(),
    actual: fc.constantFrom("atMostLimit", "equalsLimit", "unbounded" as const),
    zeroLimits: fc.boolean(),
    ties: fc.boolean(),
    maxJobs: fc.integer({ min: 0, max: 40 }),
  });
  fc.assert(
    fc.property(options.chain((o) => fc.tuple(fc.constant(o), arbTrace(o))), ([o, trace]) => {
      assert(trace.length <= o.maxJobs, "too many jobs");
      trace.forEach((j, i) => {
        if (i > 0) {
          assert(trace[i - 1].submitTime <= j.submitTime, "not sorted");
          if (!o.ties) assert(trace[i - 1].submitTime < j.submitTime, "tie without ties");
        }
        assert(j.numNodes >= 1 && (o.allowOversized || j.numNodes <= o.totalNodes), "node count");
        assert(o.zeroLimits || j.timeLimit > 0, "zero limit");
        const run = j.actualRunTime ?? j.timeLimit;
        if (o.actual === "atMostLimit") assert(run <= j.timeLimit, "overrun");
        if (o.actual === "equalsLimit") assertEquals(run, j.timeLimit);
        if (o.integerTimes) {
          assert([j.submitTime, j.timeLimit, run].every(Number.isInteger), "whole times");
        }
      });
    }),
    PARAMS,
  );
});

Deno.test("arbTrace and arbJobSpec reach the corners: ties, whole-machine jobs, zero limits, overruns", () => {
  const traces = fc.sample(arbTrace({ totalNodes: 8, allowOversized: true, actual: "unbounded" }), {
    seed: 42,
    numRuns: 200,
  });
  const jobs = traces.flat();
  assert(
    traces.some((t) => t.some((j, i) => i > 0 && t[i - 1].submitTime === j.submitTime)),
    "ties",
  );
  assert(jobs.some((j) => j.numNodes === 8), "whole machine");
  assert(jobs.some((j) => j.numNodes > 8), "oversized");
  assert(jobs.some((j) => j.timeLimit === 0), "zero limit");
  assert(jobs.some((j) => (j.actualRunTime ?? 0) > j.timeLimit), "overrun");
  assert(jobs.some((j) => j.actualRunTime === undefined), "recorded run time left out");
  const one = fc.sample(arbJobSpec({ minSubmitTime: 10, maxSubmitTime: 20, queues: ["a", "b"] }), {
    seed: 42,
    numRuns: 50,
  });
  assert(
    one.every((j) =>
      j.submitTime >= 10 && j.submitTime <= 20 && (j.queue === "a" || j.queue === "b")
    ),
  );
});

Deno.test("arbConfig draws only the policies asked for", () => {
  fc.assert(
    fc.property(
      arbConfig({ totalNodes: 5, priorities: ["sjf"], backfills: ["none", "easy"] }),
      (c) => {
        assertEquals(c.totalNodes, 5);
        assertEquals(c.priorityPolicy, "sjf");
        assert(c.backfillPolicy === "none" || c.backfillPolicy === "easy");
      },
    ),
    PARAMS,
  );
});

Deno.test("runInputs collects rows across steps; batch and one-append streaming agree", () => {
  const trace = [
    { submitTime: 0, numNodes: 4, timeLimit: 5 },
    { submitTime: 1, numNodes: 3, timeLimit: 5 },
    { submitTime: 2, numNodes: 1, timeLimit: 1 },
  ];
  const config = { totalNodes: 4, backfillPolicy: "none" as const, resourceHistoryCapacity: 1 };
  const batch = runBatch(config, trace);
  assertEquals(batch.jobRows.map((r) => [r.beginTime, r.endTime]), [[0, 5], [5, 10], [5, 6]]);
  assertEquals(batch.resourceRows.length, 7); // baseline + a start and an end per job
  assertEquals(batch.clocks.length, batchInputs(trace).length + 1);
  assertEquals(batch.ids, [0, 1, 2]);
  assertEquals(checkFcfsOrder(batch.jobRows), []);
  const streamed = runInputs(config, streamingInputs(trace, []));
  assertEquals(streamed.jobRows, batch.jobRows);
  assertEquals(streamed.resourceRows, batch.resourceRows);
});
