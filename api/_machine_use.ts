// A Simulation on a machine (a resource model that names its nodes): a job
// asking for cores, memory or GPUs per replica holds no share of the node
// count (numNodes 0), so the engine's own utilization (node-seconds over
// the node count) is 0 there. `simulate --machine --stats_json` counts node
// equivalents and per-resource units instead (core/_metrics_resources.ts,
// read from the DISPATCH rows' allocations and the job rows). This keeps the
// same collector fed with every committed call's rows (when a figure is
// asked for: a run that never asks pays a push per row), so the library's
// statistics, in the middle of a run or at its end, and the servers' (which
// call the library) give the stats JSON's figures for the same prefix of
// the run: the jobs that have ended, whether or not their rows are written.
// It needs the DISPATCH rows: a Simulation keeps one only with decisions on.

import { type EndedJob, ResourceUseCollector } from "../core/_metrics_resources.ts";
import type { MetricsOptions, ResourceMetrics } from "../core/metrics.ts";
import type { ModelNode } from "../core/resource_model.ts";
import type { SimState } from "../core/state.ts";
import type { Statistics } from "../core/statistics.ts";
import type { JobRow, StepRows } from "../core/types.ts";
import type { DecisionRow } from "../core/decisions.ts";

/** Job rows kept before the collector takes them. */
const KEPT_ROWS = 4096;

/** The utilization of a run on a machine, kept up to date call by call. */
export class MachineUse {
  readonly #use: ResourceUseCollector;
  /** Rows of committed calls not yet given to the collector (it takes them when asked). */
  #decisions: DecisionRow[] = [];
  #jobs: JobRow[] = [];

  constructor(nodes: readonly ModelNode[]) {
    this.#use = new ResourceUseCollector(nodes);
  }

  /** Takes the rows of a call that has been committed (kept until a figure is asked for). */
  take(batches: readonly StepRows[]): void {
    for (const rows of batches) {
      for (const d of rows.decisions) if (d.type === "DISPATCH") this.#decisions.push(d);
      for (const r of rows.jobs) this.#jobs.push(r);
    }
    // Not more than a few thousand rows held (a server's session spills its rows to files).
    if (this.#jobs.length > KEPT_ROWS) this.#catchUp();
  }

  // The collector takes the rows kept so far: the DISPATCH rows first (a
  // job's comes before its row).
  #catchUp(): void {
    if (this.#decisions.length > 0) this.#use.decisions(this.#decisions);
    for (const r of this.#jobs) this.#use.add(r);
    this.#decisions = [];
    this.#jobs = [];
  }

  /**
   * Per-resource utilization so far, as the stats JSON's `resources` gives it
   * for a run stopped now: the rows written, then the jobs of the state that
   * have ended but are not written yet, in id order (as `finish` writes them).
   */
  metrics(state: SimState, options: MetricsOptions = {}): ResourceMetrics {
    this.#catchUp();
    const pending: EndedJob[] = [];
    for (const rec of state.store.records) {
      if (rec.rejected || rec.hidden || rec.endTime < 0) continue;
      pending.push({
        jobId: rec.id,
        submitTime: rec.submitTime,
        beginTime: rec.beginTime,
        endTime: rec.endTime,
        ...(rec.outcome === undefined ? {} : { outcome: rec.outcome }),
      });
    }
    return this.#use.metrics(options, pending);
  }

  /**
   * The statistics with the machine's utilization: node equivalents over the
   * run (as simulate --machine's statistics); as given while there is no
   * span to measure.
   */
  statistics(state: SimState, s: Statistics): Statistics {
    const u = this.metrics(state).node_equivalents.utilization;
    return u === null ? s : { ...s, utilization: u };
  }
}
