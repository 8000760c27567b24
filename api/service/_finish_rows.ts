// The finish reply's optional columns, as simulate writes them: job rows with
// `--extended_output`'s figures (wait, bounded slowdown, nodes) and resource
// rows with `--resource_columns per_resource`'s pairs. Both are read back
// from a session's kept rows a page at a time and written to a new store
// that replaces the rows (api/service/sessions.ts `finish`, once).

import { NodesColumn } from "../_nodes_column.ts";
import { PerResourceColumns } from "../../core/_resource_columns.ts";
import type { DecisionRow } from "../../core/decisions.ts";
import type { ModelNode } from "../../core/resource_model.ts";
import type { JobRow, ResourceRow } from "../../core/types.ts";
import { boundedSlowdown } from "../../io/stats_json.ts";
import type { RowStore } from "./_row_store.ts";

const PAGE_ROWS = 5000;

/** The rows a session keeps that these read. */
interface KeptRows {
  readonly decisions: RowStore;
  readonly jobs: RowStore;
  readonly resources: RowStore;
}

/** Each row of `store`, a page at a time. */
function* rowsOf<T>(store: RowStore): Generator<T> {
  for (let from = 0; from < store.count; from += PAGE_ROWS) {
    yield* JSON.parse(`[${store.page(from, PAGE_ROWS)}]`) as T[];
  }
}

/**
 * Every kept job row into `next` with `waitTime`, `boundedSlowdown` and
 * `nodes` (Slurm hostlist form): a machine's nodes from the DISPATCH rows'
 * allocations, whole nodes by the whole-node tracker over every row.
 */
export function extendedJobRows(kept: KeptRows, next: RowStore, totalNodes: number): void {
  const nodes = new NodesColumn(totalNodes);
  for (const d of rowsOf<DecisionRow>(kept.decisions)) {
    nodes.decisions([d]);
  }
  for (const r of rowsOf<JobRow>(kept.jobs)) {
    const extra = { wait: r.beginTime - r.submitTime, boundedSlowdown: boundedSlowdown(r) };
    nodes.add(r, { ...extra, traceJobId: "", user: "" });
  }
  nodes.finish((r, e) =>
    next.append({ ...r, waitTime: e.wait, boundedSlowdown: e.boundedSlowdown, nodes: e.nodes })
  );
}

/**
 * Every kept resource row into `next` with its `NAME_free`, `NAME_used`
 * pairs: a machine's resource types (what each job held from its DISPATCH
 * row, when from its job row), or `nodes` on whole nodes (`nodes` undefined).
 */
export function resourcePairRows(
  kept: KeptRows,
  next: RowStore,
  nodes: readonly ModelNode[] | undefined,
): void {
  if (nodes === undefined) {
    for (const r of rowsOf<ResourceRow>(kept.resources)) {
      next.append({ ...r, nodes_free: r.freeNodes, nodes_used: r.allocatedNodes });
    }
    return;
  }
  const pairs = new PerResourceColumns(nodes);
  for (const d of rowsOf<DecisionRow>(kept.decisions)) {
    pairs.decisions([d]);
  }
  for (const r of rowsOf<JobRow>(kept.jobs)) pairs.job(r);
  const names = pairs.header().split(",");
  pairs.finish([...rowsOf<ResourceRow>(kept.resources)], (r, text) => {
    const values = text.split(",").map(Number);
    next.append({ ...r, ...Object.fromEntries(names.map((n, i) => [n, values[i]])) });
  });
}
