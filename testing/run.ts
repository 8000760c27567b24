// Drives the reducer over a list of inputs and gathers everything it emits,
// so that properties can look at a whole run at once.

import { statistics } from "../core/queries.ts";
import { initialState } from "../api/initial_state.ts";
import type { SimState } from "../core/state.ts";
import { type Input, step } from "../core/step.ts";
import type { Statistics } from "../core/statistics.ts";
import type { DecisionRow } from "../core/decisions.ts";
import type { JobRow, JobSpec, Notice, ResourceRow, SimulationConfig } from "../core/types.ts";
import { batchInputs } from "./streaming.ts";

/** Everything a run emitted, in order, and where it ended. */
export interface RunOutput {
  /** Job rows of every step, concatenated. */
  readonly jobRows: JobRow[];
  /** Resource rows of every step, concatenated (the baseline row first). */
  readonly resourceRows: ResourceRow[];
  /** Notices of every step, concatenated. */
  readonly notices: Notice[];
  /** Decisions of every step, concatenated (with `decisions: true`). */
  readonly decisions: DecisionRow[];
  /** Ids returned by the `appendJobs` inputs, concatenated. */
  readonly ids: number[];
  /** The clock after each step, in order (starting with the initial clock). */
  readonly clocks: number[];
  /** The state after the last input. */
  readonly finalState: SimState;
  /** Statistics of the final state. */
  readonly statistics: Statistics;
}

/**
 * Runs `inputs` from the initial state of `config` with {@link step}. Throws
 * whatever the reducer throws.
 *
 * @example
 * ```ts
 * import { runInputs } from "@evtsim/evtsim/testing";
 * const out = runInputs({ totalNodes: 4 }, [
 *   { kind: "appendJobs", jobs: [{ submitTime: 0, numNodes: 2, timeLimit: 5 }] },
 *   { kind: "advanceTo", time: 10 },
 *   { kind: "finish" },
 * ]);
 * console.assert(out.jobRows[0].endTime === 5 && out.clocks.at(-1) === 10);
 * ```
 */
export function runInputs(
  config: SimulationConfig,
  inputs: readonly Input[],
  options: { readonly replay?: boolean } = {},
): RunOutput {
  let state = initialState(config, options);
  const jobRows: JobRow[] = [];
  const resourceRows: ResourceRow[] = [];
  const notices: Notice[] = [];
  const decisions: DecisionRow[] = [];
  const ids: number[] = [];
  const clocks: number[] = [state.time];
  for (const input of inputs) {
    const r = step(state, input);
    state = r.state;
    jobRows.push(...r.rows.jobs);
    resourceRows.push(...r.rows.resources);
    notices.push(...r.rows.notices);
    decisions.push(...r.rows.decisions);
    ids.push(...r.ids);
    clocks.push(state.time);
  }
  return {
    jobRows,
    resourceRows,
    notices,
    decisions,
    ids,
    clocks,
    finalState: state,
    statistics: statistics(state),
  };
}

/**
 * A batch run: initialState → appendJobs(all) → runToCompletion → finish.
 *
 * @example
 * ```ts
 * import { runBatch } from "@evtsim/evtsim/testing";
 * const out = runBatch({ totalNodes: 100 }, [
 *   { submitTime: 0, numNodes: 70, timeLimit: 200 },
 *   { submitTime: 10, numNodes: 45, timeLimit: 300 },
 *   { submitTime: 20, numNodes: 20, timeLimit: 50 },
 * ]);
 * console.assert(out.jobRows[2].beginTime === 20 && out.statistics.jobsCompleted === 3);
 * ```
 */
export function runBatch(config: SimulationConfig, jobs: readonly JobSpec[]): RunOutput {
  return runInputs(config, batchInputs(jobs));
}
