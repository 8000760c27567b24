// The extended schedule's `nodes` column: the nodes each job ran on, in
// Slurm hostlist form. A run with a resource model names them in its
// DISPATCH rows (the allocation's node names; the run emits decisions); a
// whole-node run holds only a count, so the whole-node tracker
// (core/node_assignment.ts) names them from the job rows once they are all
// known. Nothing of this runs without `--extended_output`.

import type { DecisionRow } from "../core/decisions.ts";
import { assignWholeNodes, wholeNodeWidth } from "../core/node_assignment.ts";
import type { JobRow } from "../core/types.ts";
import { compressHostlist, numberedHostlist } from "../io/hostlist.ts";

/** The extended figures of a row (wait, slowdown, trace job id, user). */
export interface ExtendedRowFields {
  readonly wait: number;
  readonly boundedSlowdown: number;
  readonly traceJobId: string;
  readonly user: string;
}

/**
 * Holds the extended rows until the end of the run, then hands each back
 * with its `nodes` (in job-id order, as they came).
 *
 * @example
 * ```ts
 * import { NodesColumn } from "./_nodes_column.ts";
 * const c = new NodesColumn(8);
 * const row = (jobId: number, beginTime: number, numNodes: number) =>
 *   ({ jobId, submitTime: 0, beginTime, endTime: beginTime + 10, numNodes, timeLimit: 10, queue: undefined });
 * const extra = { wait: 0, boundedSlowdown: 1, traceJobId: "", user: "" };
 * c.add(row(0, 0, 4), extra);
 * c.add(row(1, 0, 2), extra);
 * const seen: string[] = [];
 * c.finish((r, e) => seen.push(`${r.jobId}:${e.nodes}`));
 * console.assert(seen.join(" ") === "0:n[001-004] 1:n[005-006]");
 * ```
 */
export class NodesColumn {
  private readonly rows: JobRow[] = [];
  private readonly extras: ExtendedRowFields[] = [];
  /** Hostlists from the DISPATCH rows' allocations (resource-model runs). */
  private readonly placed = new Map<number, string>();

  constructor(private readonly totalNodes: number) {}

  /** Takes the allocations of a step's DISPATCH rows (only a resource model's carry one). */
  decisions(rows: readonly DecisionRow[]): void {
    for (const d of rows) {
      if (d.type === "DISPATCH" && d.allocation !== undefined) {
        this.placed.set(d.jobId, compressHostlist(d.allocation.map((a) => a.nodeName)));
      }
    }
  }

  /** Keeps one finished job's row until `finish`. */
  add(r: JobRow, extra: ExtendedRowFields): void {
    this.rows.push(r);
    this.extras.push(extra);
  }

  /** Names every kept row's nodes and hands the rows to `write`, in the order added. */
  finish(write: (r: JobRow, extra: ExtendedRowFields & { readonly nodes: string }) => void): void {
    const whole = assignWholeNodes(
      this.placed.size === 0 ? this.rows : this.rows.filter((r) => !this.placed.has(r.jobId)),
      this.totalNodes,
    );
    const width = wholeNodeWidth(this.totalNodes);
    for (let i = 0; i < this.rows.length; i++) {
      const r = this.rows[i];
      const indexes = whole.get(r.jobId);
      // Node numbers count from 1 (n001 is index 0); the indexes are ascending.
      const nodes = this.placed.get(r.jobId) ??
        (indexes === undefined ? "" : numberedHostlist("n", width, indexes.map((n) => n + 1)));
      write(r, { ...this.extras[i], nodes });
    }
    this.rows.length = 0;
    this.extras.length = 0;
  }
}
