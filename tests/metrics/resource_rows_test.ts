// `resourceRows: false` (what a stats-only sweep cell or compare run sets,
// cli/simulate.ts): the engine makes no resource rows, and nothing else of
// the run changes — the same job rows, decisions, notices, statistics and
// state, over random traces, policies, capacity schedules and step inputs.

import fc from "fast-check";
import { assert, assertEquals } from "../_assert.ts";
import { arbGapJobs } from "../_arbitraries.ts";
import { initialState } from "../../api/initial_state.ts";
import { statistics } from "../../core/queries.ts";
import { step } from "../../core/step.ts";
import type { Input } from "../../core/step.ts";
import type { SimulationConfig, StepRows } from "../../core/types.ts";

const PARAMS = { seed: 3471, numRuns: 200 };

const arbJobs = arbGapJobs({
  maxGap: 30,
  maxNodes: 10,
  maxLimit: 100,
  minRun: 0,
  maxRun: 120,
  maxLength: 30,
});

const arbCase = fc.record({
  jobs: arbJobs,
  policy: fc.constantFrom("none", "easy", "conservative", "conservative_profile"),
  cut: fc.option(fc.record({ time: fc.integer({ min: 1, max: 200 }), capacity: fc.nat(10) })),
  pause: fc.integer({ min: 0, max: 300 }),
  flushes: fc.integer({ min: 0, max: 3 }),
  resourceHistoryCapacity: fc.constantFrom(0, 1, 3),
});

interface Run {
  readonly rows: Omit<StepRows, "resources">[];
  readonly resources: number;
  readonly statistics: unknown;
}

function run(config: SimulationConfig, inputs: readonly Input[]): Run {
  let s = initialState(config);
  const rows: Omit<StepRows, "resources">[] = [];
  let resources = 0;
  for (const input of inputs) {
    const r = step(s, input);
    s = r.state;
    const { resources: res, ...rest } = r.rows;
    resources += res.length;
    rows.push(rest);
  }
  return { rows, resources, statistics: statistics(s) };
}

Deno.test("resourceRows: false makes no resource rows and changes nothing else", () => {
  fc.assert(
    fc.property(arbCase, (c) => {
      const config: SimulationConfig = {
        totalNodes: 10,
        backfillPolicy: c.policy,
        decisions: true,
        resourceHistoryCapacity: c.resourceHistoryCapacity,
        ...(c.cut === null ? {} : { capacitySchedule: [c.cut] }),
      };
      const inputs: Input[] = [
        { kind: "appendJobs", jobs: c.jobs },
        { kind: "advanceTo", time: c.pause },
        ...Array.from({ length: c.flushes }, (): Input => ({ kind: "flush" })),
        { kind: "runToCompletion" },
        { kind: "finish" },
      ];
      const all = run(config, inputs);
      const none = run({ ...config, resourceRows: false }, inputs);
      assertEquals(none.rows, all.rows);
      assertEquals(none.statistics, all.statistics);
      // The baseline row (buffered by the initial state) at most.
      assert(none.resources <= 1, `${none.resources} resource rows`);
      assert(all.resources >= none.resources);
    }),
    PARAMS,
  );
});

Deno.test("resourceRows: true or absent is the default configuration", () => {
  const plain = initialState({ totalNodes: 4 }).config;
  assertEquals(initialState({ totalNodes: 4, resourceRows: true }).config, plain);
  assert(!("resourceRows" in plain));
  assertEquals(initialState({ totalNodes: 4, resourceRows: false }).config.resourceRows, false);
});
