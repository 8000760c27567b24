// The REPL's utilization so far on a machine (a resource model that names
// its nodes): per resource, per partition and in node equivalents, as
// `simulate --machine --max_time T --stats_json` gives it (`resources`) for
// the run stopped at the current position. The figures are computed by
// api/_machine_use.ts, the one computation behind the library's
// `resourceMetrics()`, HTTP `/statistics` and gRPC `resource_metrics_json`:
// fed with the rows of the pieces applied up to the position (each job's
// allocation comes from its DISPATCH row), then asked with the position's
// state (the jobs that have ended but are not written yet). Kept by piece,
// so that stepping back and forward again counts each job once.

import { MachineUse } from "../api/_machine_use.ts";
import type { ResourceFigures, ResourceMetrics } from "../core/metrics.ts";
import type { ModelNode } from "../core/resource_model.ts";
import type { SimState } from "../core/state.ts";
import type { StepRows } from "../core/types.ts";

const NO_ROWS: StepRows = { jobs: [], resources: [], notices: [], decisions: [] };

/** The rows each applied piece wrote, for the utilization so far. */
export class PieceRows {
  readonly #nodes: readonly ModelNode[];
  /** Piece i's rows (the piece that leads to position i + 1): job rows and DISPATCH rows. */
  readonly #rows: StepRows[] = [];
  /** Jobs had started before the snapshot the re-simulation starts from (their use is not known). */
  readonly #startedBefore: boolean;
  /** The snapshot's time. */
  readonly #startTime: number;

  private constructor(nodes: readonly ModelNode[], start: SimState) {
    this.#nodes = nodes;
    this.#startTime = start.time;
    let started = start.store.firstId > 0;
    for (const r of start.store.records) if (r.beginTime >= 0) started = true;
    this.#startedBefore = started;
  }

  /**
   * For a re-simulation from `start` on a machine with decisions on (the
   * allocations are in the DISPATCH rows); undefined otherwise (whole nodes,
   * or a log recorded without decisions), as the library's `resourceMetrics()`.
   */
  static of(start: SimState): PieceRows | undefined {
    const nodes = start.resources?.model.nodes;
    const d = start.config.decisions;
    return nodes !== undefined && d !== undefined && d !== false
      ? new PieceRows(nodes, start)
      : undefined;
  }

  /** Notes the rows of the piece applied at position `index` (forgetting any noted after it). */
  note(index: number, rows: StepRows): void {
    this.#rows.length = index;
    const dispatches = rows.decisions.filter((d) => d.type === "DISPATCH");
    this.#rows.push(
      rows.jobs.length === 0 && dispatches.length === 0
        ? NO_ROWS
        : { ...NO_ROWS, jobs: rows.jobs, decisions: dispatches },
    );
  }

  /** The figures at position `index` (its state `state`), as the stats JSON's `resources`. */
  metrics(index: number, state: SimState): ResourceMetrics {
    const use = new MachineUse(this.#nodes);
    use.take(this.#rows.slice(0, index));
    return use.metrics(state);
  }

  /** `info summary`'s lines of the figures at position `index`. */
  lines(index: number, state: SimState): string[] {
    const m = this.metrics(index, state);
    const since = this.#startedBefore
      ? `, since the snapshot at t=${this.#startTime} (jobs started before it not counted)`
      : "";
    const byResource = (g: Readonly<Record<string, ResourceFigures>>) =>
      Object.entries(g).map(([r, f]) => `${r} ${fraction(f)} of ${f.capacity}`).join(", ");
    const lines = [
      `utilization so far (jobs ended by t=${state.time}${since}): ${
        fraction(m.node_equivalents)
      } in node equivalents of ${m.node_equivalents.capacity} nodes`,
      `  by resource: ${byResource(m.by_resource)}`,
    ];
    for (const [p, g] of Object.entries(m.by_partition ?? {})) {
      lines.push(`  partition ${p}: ${byResource(g)}`);
    }
    return lines;
  }
}

/** A utilization to 4 decimals; `none` while there is no span to measure (no job has ended). */
function fraction(f: ResourceFigures): string {
  return f.utilization === null ? "none" : String(Math.round(f.utilization * 1e4) / 1e4);
}
