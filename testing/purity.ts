// The purity contract of `step`, as one reusable check: the same input
// applied twice to the same state gives equal outcomes (equal rows, ids and
// next states, or the same refusal), and the given state is left unchanged.

import { deepStrictEqual } from "node:assert";
import type { SimState } from "../core/state.ts";
import { type Input, step, type StepResult } from "../core/step.ts";
import { snapshotState } from "./snapshot.ts";

function attempt(state: SimState, input: Input): StepResult | Error {
  try {
    return step(state, input);
  } catch (e) {
    if (e instanceof Error) return e;
    throw e;
  }
}

function equal<T>(actual: T, expected: T, what: string): void {
  try {
    deepStrictEqual(actual, expected);
  } catch (e) {
    throw new Error(`${what}: ${(e as Error).message}`);
  }
}

/**
 * Applies `input` to `state` twice and throws unless both outcomes are equal
 * and `state` is unchanged. Returns the outcome: the step result, or the
 * error the input was refused with.
 *
 * @example
 * ```ts
 * import { initialState } from "@evtsim/evtsim";
 * import { stepTwice } from "@evtsim/evtsim/testing";
 * const s = initialState({ totalNodes: 4 });
 * const r = stepTwice(s, { kind: "appendJobs", jobs: [{ submitTime: 0, numNodes: 1, timeLimit: 5 }] });
 * if (r instanceof Error) throw r;
 * const refused = stepTwice(r.state, { kind: "advanceTo", time: -1 });
 * if (!(refused instanceof Error)) throw new Error("advancing backwards must be refused");
 * ```
 */
export function stepTwice(state: SimState, input: Input): StepResult | Error {
  const before = snapshotState(state);
  const first = attempt(state, input);
  const second = attempt(state, input);
  equal(snapshotState(state), before, `${input.kind} changed the state it was given`);
  if (first instanceof Error || second instanceof Error) {
    if (!(first instanceof Error && second instanceof Error)) {
      throw new Error(`${input.kind}: threw only once`);
    }
    equal(first.message, second.message, `${input.kind}: different errors`);
    return first;
  }
  equal(first.rows, second.rows, `${input.kind}: rows differ between two applications`);
  equal(first.ids, second.ids, `${input.kind}: ids differ`);
  equal(snapshotState(first.state), snapshotState(second.state), `${input.kind}: states differ`);
  return first;
}
