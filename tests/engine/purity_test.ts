// `step` is pure: the same input applied twice to the same state gives equal
// results, and the input state is unchanged afterwards, including when the
// input is refused. States are compared as deep plain-data snapshots
// (testing/snapshot.ts), persistent trees node by node.

import fc from "fast-check";
import { initialState } from "../../api/initial_state.ts";
import type { SimState } from "../../core/state.ts";
import { type Input, step, type StepResult } from "../../core/step.ts";
import {
  arbAnyScenario,
  arbScenario,
  arbStreamingSchedule,
  snapshotState,
  stepTwice as stepPurely,
  streamingInputs,
} from "../../testing/mod.ts";
import { assert, assertEquals } from "../_assert.ts";

const PARAMS = { seed: 42, numRuns: 200 };
const TEXTBOOK_ADMISSIONS = [
  "easy_extra",
  "conservative_profile",
  "conservative_profile_no_compression",
] as const;

/** The shared purity check, plus: every state handed out is frozen. */
function stepTwice(state: SimState, input: Input): StepResult | Error {
  assert(Object.isFrozen(state), "states are frozen");
  return stepPurely(state, input);
}

/** Inputs that break a contract at this state; each must be refused without a trace. */
function badInputs(state: SimState): Input[] {
  const bad: Input[] = [
    { kind: "advanceTo", time: state.time - 1 },
    { kind: "runUntilExclusive", time: Number.NaN },
    { kind: "appendJobs", jobs: [{ submitTime: state.time - 1, numNodes: 1, timeLimit: 1 }] },
    {
      kind: "appendJobs",
      jobs: [
        { submitTime: state.time + 2, numNodes: 1, timeLimit: 1 },
        { submitTime: state.time + 1, numNodes: 1, timeLimit: 1 },
      ],
    },
    { kind: "appendJobs", jobs: [{ submitTime: state.time, numNodes: -1, timeLimit: 1 }] },
    { kind: "submitJob", id: state.nextJobId + 5, submitTime: state.time },
  ];
  return bad;
}

Deno.test("step is pure: same state and input give equal results, and the state is unchanged", () => {
  const scenario = arbScenario({ allowOversized: true, maxJobs: 15 }).chain((s) =>
    fc.tuple(fc.constant(s), arbStreamingSchedule(s.trace), fc.integer({ min: 0, max: 1000 }))
  );
  fc.assert(
    fc.property(scenario, ([{ config, trace }, plan, pick]) => {
      let state = initialState(config);
      const inputs = streamingInputs(trace, plan);
      inputs.forEach((input, i) => {
        // Now and then, also try an input the state must refuse.
        if ((pick + i) % 3 === 0) {
          const bad = badInputs(state)[(pick + i) % 6];
          assert(stepTwice(state, bad) instanceof Error, `${JSON.stringify(bad)} must be refused`);
        }
        const result = stepTwice(state, input);
        assert(!(result instanceof Error), `${input.kind}: ${(result as Error).message}`);
        state = result.state;
      });
      // A finished simulation refuses everything, still without changing.
      assert(
        stepTwice(state, { kind: "advanceTo", time: state.time + 1 }) instanceof Error,
        "finished",
      );
      assert(stepTwice(state, { kind: "appendJobs", jobs: [] }) instanceof Error, "finished");
    }),
    PARAMS,
  );
});

Deno.test("an old state stays usable: stepping it again after later steps gives the same result", () => {
  const scenario = arbScenario({ maxJobs: 15 }).chain((s) =>
    fc.tuple(fc.constant(s), arbStreamingSchedule(s.trace))
  );
  fc.assert(
    fc.property(scenario, ([{ config, trace }, plan]) => {
      const inputs = streamingInputs(trace, plan);
      const states: SimState[] = [initialState(config)];
      const results: StepResult[] = [];
      for (const input of inputs) {
        const r = step(states[states.length - 1], input);
        results.push(r);
        states.push(r.state);
      }
      // Replaying every input from its kept state, after the whole run, repeats the run.
      inputs.forEach((input, i) => {
        const again = step(states[i], input);
        assertEquals(again.rows, results[i].rows);
        assertEquals(snapshotState(again.state), snapshotState(results[i].state));
      });
    }),
    PARAMS,
  );
});

Deno.test("snapshots see a change deep inside a persistent tree", () => {
  let s = initialState({ totalNodes: 4 });
  s = step(s, {
    kind: "appendJobs",
    jobs: [0, 1, 2].map((t) => ({ submitTime: t + 5, numNodes: 1, timeLimit: 1 })),
  })
    .state;
  const before = snapshotState(s);
  // Tree nodes are plain objects: poke a subtree minimum, compare, restore.
  const root = s.arrivals.root as unknown as { m2: number };
  const saved = root.m2;
  root.m2 = -1;
  try {
    assert(JSON.stringify(snapshotState(s)) !== JSON.stringify(before), "mutation not seen");
  } finally {
    root.m2 = saved;
  }
  assertEquals(snapshotState(s), before);
});

Deno.test("a state taken before a step is deep-equal before and after any sequence of later steps (every policy, queues, decisions)", () => {
  const scenario = arbAnyScenario().chain((s) =>
    fc.tuple(
      fc.constant(s),
      arbStreamingSchedule(s.trace),
      fc.boolean(),
      fc.constantFrom("builtin_fcfs", "sjf", "ljf", undefined),
      fc.boolean(),
      // The textbook policies too (their own state, if any, must be persistent).
      fc.constantFrom(undefined, ...TEXTBOOK_ADMISSIONS),
    )
  );
  let sequences = 0;
  fc.assert(
    fc.property(scenario, ([{ config: c, trace }, plan, decisions, picker, queued, admission]) => {
      const config = {
        ...c,
        ...(admission === undefined ? {} : { backfillPolicy: admission }),
        decisions,
        ...(picker === undefined ? {} : { picker }),
        ...(queued ? { queues: [{ name: "a", priority: 2, maxRunning: 3 }, { name: "b" }] } : {}),
      };
      const jobs = queued ? trace.map((j, i) => ({ ...j, queue: i % 3 === 0 ? "a" : "b" })) : trace;
      const inputs = streamingInputs(jobs, plan);
      const kept: [SimState, string][] = [];
      let state = initialState(config);
      for (const input of inputs) {
        kept.push([state, JSON.stringify(snapshotState(state))]);
        state = step(state, input).state;
      }
      for (const [old, before] of kept) {
        assertEquals(JSON.stringify(snapshotState(old)), before);
      }
      sequences++;
    }),
    PARAMS,
  );
  assert(sequences >= 200, `only ${sequences} sequences`);
});
