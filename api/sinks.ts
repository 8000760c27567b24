// The caller's sinks of a Simulation, in a file of their own: the
// Simulation and its row delivery (api/_delivery.ts) both use the type, and
// neither imports the other for it.

import type { DecisionRow } from "../core/decisions.ts";
import type { JobRow, Notice, ResourceRow } from "../core/types.ts";

/**
 * Where rows go as they become final. A missing sink keeps that kind of row for `finish()`.
 *
 * The rows of a call are handed over before the call takes effect. If a sink
 * throws, the call is undone: the simulation is left exactly as it was before
 * the call (same state, same rows kept for `finish()`), the sink's error is
 * rethrown unchanged, and the call can be made again. A retried call delivers
 * its rows again from the first one, so a sink that accepted some rows of the
 * failed attempt sees them twice (keep count, or truncate what it wrote). A
 * sink must not call the simulation that is calling it: any method or getter
 * used from inside a sink throws an `EvtsimError` of kind `"state"`.
 *
 * @example
 * ```ts
 * import { type JobRow, type Notice, Simulation, type SimulationSinks } from "@evtsim/evtsim";
 * const written: JobRow[] = [];
 * const notices: Notice[] = [];
 * const sinks: SimulationSinks = { onJobRow: (r) => written.push(r), onNotice: (n) => notices.push(n) };
 * const sim = new Simulation({ totalNodes: 8 }, sinks);
 * sim.appendJobs([{ submitTime: 0, numNodes: 4, timeLimit: 10 }, { submitTime: 0, numNodes: 9, timeLimit: 10 }]);
 * const out = sim.finish();
 * // Rows given to a sink are not kept; resource rows had no sink, so `finish` returns them.
 * if (written.length !== 1 || notices[0]?.kind !== "rejected") throw new Error("sinks");
 * if (out.jobs.length !== 0 || out.notices.length !== 0 || out.resources.length !== 3) throw new Error("out");
 * ```
 */
export interface SimulationSinks {
  /** Called once per written job, in job-id order. */
  readonly onJobRow?: (row: JobRow) => void;
  /** Called once per resource row, in time order, when the row buffer is flushed. */
  readonly onResourceRow?: (row: ResourceRow) => void;
  /** Called for each rejection or over-allocation notice. */
  readonly onNotice?: (notice: Notice) => void;
  /**
   * Called for each scheduling decision (DISPATCH, PEND with a reason); giving
   * it turns decisions on (`decisions: true`).
   */
  readonly onDecision?: (decision: DecisionRow) => void;
}
