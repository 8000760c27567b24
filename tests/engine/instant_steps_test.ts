// An advance cut into instants (core/_instant_steps.ts, the REPL's `step`)
// gives what the whole input gives: the same rows in the same order and the
// same state (compared as snapshots) after every input, on random live
// sessions (appends, cancels, ends, job and queue updates, capacity changes
// and advances under every picker and admission policy) and on random batch
// runs with capacity schedules.

import fc from "fast-check";
import { nextPiece } from "../../core/_instant_steps.ts";
import {
  initialState,
  type Input,
  saveSnapshot,
  type SimState,
  step,
  type StepRows,
} from "../../mod.ts";
import { arbAnyScenario, batchInputs } from "../../testing/mod.ts";
import { arbLivePlan, configOf, drivePlan, REGISTRY } from "../_recording_helpers.ts";
import { assert, assertEquals } from "../_assert.ts";

const RUNS = Number(Deno.env.get("EVTSIM_PROPERTY_RUNS") ?? 150);

type Rows = { [K in keyof StepRows]-?: unknown[] };

const noRows = (): Rows => ({
  jobs: [],
  resources: [],
  notices: [],
  submissions: [],
  decisions: [],
});

function collect(into: Rows, rows: StepRows): void {
  for (const k of Object.keys(into) as (keyof Rows)[]) into[k].push(...(rows[k] ?? []));
}

/** Applies `input` in pieces; returns the state, the rows and the number of pieces. */
function inPieces(state: SimState, input: Input): { state: SimState; rows: Rows; pieces: number } {
  const rows = noRows();
  let s = state;
  for (let n = 1;; n++) {
    const p = nextPiece(s, input, n === 1);
    const r = step(s, p.input);
    // One piece, one instant: every decision it makes is at one time.
    const times = new Set(r.rows.decisions.map((d) => d.time));
    assert(times.size <= 1, `a piece decided at ${[...times].join(", ")}`);
    collect(rows, r.rows);
    s = r.state;
    if (p.last) return { state: s, rows, pieces: n };
    assert(n < 100_000, "an input that never ends");
  }
}

/** Runs inputs whole and in pieces side by side; returns the pieces per input. */
function compare(start: SimState, inputs: readonly Input[]): number {
  let whole = start;
  let cut = start;
  let pieces = 0;
  for (const input of inputs) {
    const a = step(whole, input);
    const rowsA = noRows();
    collect(rowsA, a.rows);
    const b = inPieces(cut, input);
    assertEquals(b.rows, rowsA, `rows of ${JSON.stringify(input).slice(0, 80)}`);
    assertEquals(saveSnapshot(b.state), saveSnapshot(a.state), `state after ${input.kind}`);
    whole = a.state;
    cut = b.state;
    pieces += b.pieces - 1;
  }
  return pieces;
}

Deno.test("an advance cut into instants ≡ the whole advance: live sessions under every policy", () => {
  let pieces = 0;
  fc.assert(
    fc.property(arbLivePlan, (p) => {
      const start = initialState(configOf(p), { registry: REGISTRY });
      const inputs: Input[] = [];
      let s = start;
      drivePlan(p, (input) => {
        inputs.push(input);
        s = step(s, input).state;
      }, () => s);
      pieces += compare(start, inputs);
    }),
    { seed: 1212, numRuns: RUNS },
  );
  assert(pieces > 10 * RUNS, `only ${pieces} extra pieces: the cut was hardly exercised`);
});

Deno.test("an advance cut into instants ≡ the whole advance: batch runs, capacity schedules, oversized jobs", () => {
  fc.assert(
    fc.property(arbAnyScenario(), fc.nat({ max: 500 }), ({ config, trace }, stop) => {
      const start = initialState(config);
      const [append, , fin] = batchInputs(trace);
      compare(start, [
        append,
        { kind: "runUntilExclusive", time: stop },
        { kind: "advanceTo", time: stop + 7 },
        { kind: "runToCompletion" },
        fin,
      ]);
    }),
    { seed: 1213, numRuns: RUNS },
  );
});

Deno.test("an advance to infinity stops before a capacity change with nothing left to run, in pieces too", () => {
  const config = {
    totalNodes: 4,
    decisions: true,
    capacitySchedule: [{ time: 3, capacity: 2 }, { time: 1000, capacity: 1 }],
  };
  const jobs = [{ submitTime: 0, numNodes: 4, timeLimit: 10 }, {
    submitTime: 1,
    numNodes: 2,
    timeLimit: 10,
  }];
  const pieces = compare(initialState(config), [
    { kind: "appendJobs", jobs },
    { kind: "runToCompletion" },
  ]);
  assert(pieces >= 3, `${pieces} pieces`);
});

Deno.test("a piece that cannot apply is the input itself: backwards, nothing to do, finished", () => {
  const s = step(
    step(initialState({ totalNodes: 4 }), {
      kind: "appendJobs",
      jobs: [{ submitTime: 5, numNodes: 2, timeLimit: 10 }],
    }).state,
    { kind: "advanceTo", time: 20 },
  ).state;
  for (
    const input of [
      { kind: "advanceTo", time: 3 },
      { kind: "runUntilExclusive", time: 20 },
      { kind: "advanceTo", time: 20 },
      { kind: "flush" },
    ] as Input[]
  ) {
    assertEquals(nextPiece(s, input, true), { input, last: true });
  }
  // Nothing left: an advance is one piece.
  assertEquals(nextPiece(s, { kind: "advanceTo", time: 30 }, true).last, true);
  // A job due at the clock: the first piece is the clock's own (arrival and round).
  const due = step(s, {
    kind: "appendJobs",
    jobs: [{ submitTime: 20, numNodes: 2, timeLimit: 10 }, {
      submitTime: 25,
      numNodes: 2,
      timeLimit: 10,
    }],
  }).state;
  assertEquals(nextPiece(due, { kind: "advanceTo", time: 40 }, true), {
    input: { kind: "advanceTo", time: 20 },
    last: false,
  });
  // Nothing due at the clock: the first piece is the next instant.
  const at20 = step(due, { kind: "advanceTo", time: 20 }).state;
  assertEquals(nextPiece(at20, { kind: "advanceTo", time: 40 }, true), {
    input: { kind: "advanceTo", time: 25 },
    last: false,
  });
});
