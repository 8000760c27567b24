// Handing a call's rows to the caller's sinks before the call is committed:
// the Simulation computes the next state, delivers every row the call made
// final, and only then keeps the new state. A sink that throws undoes the
// call (rows kept for `finish` are truncated back, the state is not kept),
// and a sink that calls back into the simulation is refused.

import { checkObject, describeValue } from "../core/_input_check.ts";
import { EvtsimError } from "../core/errors.ts";
import type { DecisionRow } from "../core/decisions.ts";
import type { JobRow, Notice, ResourceRow, StepRows } from "../core/types.ts";
import type { SimulationSinks } from "./sinks.ts";

/** Checks the sinks argument of the Simulation constructor. */
export function checkSinks(sinks: unknown): void {
  checkObject(sinks, "Simulation: sinks");
  for (const name of ["onJobRow", "onResourceRow", "onNotice", "onDecision"]) {
    const f = (sinks as Record<string, unknown>)[name];
    if (f !== undefined && typeof f !== "function") {
      throw new EvtsimError(
        "usage",
        `Simulation: sinks.${name}: expected a function, got ${describeValue(f)}`,
      );
    }
  }
}

/** The sinks, and the rows of the kinds that have none (returned by `finish`). */
export class RowDelivery {
  readonly jobs: JobRow[] = [];
  readonly resources: ResourceRow[] = [];
  readonly notices: Notice[] = [];
  readonly decisions: DecisionRow[] = [];
  /** The Simulation member whose rows are being delivered, if any. */
  #delivering: string | undefined;

  constructor(private readonly sinks: SimulationSinks) {}

  /** Throws if a sink is running: `what` was called from inside a sink. */
  refuseReentry(what: string): void {
    if (this.#delivering !== undefined) {
      throw new EvtsimError(
        "state",
        `Simulation.${what} was called from a sink while ${this.#delivering} was delivering rows; a sink must not use the simulation that calls it`,
      );
    }
  }

  /**
   * Hands `batches` (one per step of the call `what`) to the sinks, in order:
   * decisions (unless `decisions` is false: they were switched on only for a
   * recording), notices, job rows, resource rows of each step. If a sink throws, the
   * rows kept by this call are dropped again and the error is rethrown.
   */
  deliver(what: string, batches: readonly StepRows[], decisions = true): void {
    const { onJobRow, onResourceRow, onNotice, onDecision } = this.sinks;
    const kept = [
      this.jobs.length,
      this.resources.length,
      this.notices.length,
      this.decisions.length,
    ];
    this.#delivering = what;
    try {
      for (const rows of batches) {
        if (decisions) {
          for (const d of rows.decisions) onDecision ? onDecision(d) : this.decisions.push(d);
        }
        for (const n of rows.notices) onNotice ? onNotice(n) : this.notices.push(n);
        for (const j of rows.jobs) onJobRow ? onJobRow(j) : this.jobs.push(j);
        for (const x of rows.resources) onResourceRow ? onResourceRow(x) : this.resources.push(x);
      }
    } catch (e) {
      this.jobs.length = kept[0];
      this.resources.length = kept[1];
      this.notices.length = kept[2];
      this.decisions.length = kept[3];
      throw e;
    } finally {
      this.#delivering = undefined;
    }
  }
}
