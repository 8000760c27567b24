// What `report`'s summary table shows for a run on a machine, computed from
// the run's stats JSON: the tests of report and compare --report hold the
// table to it.

import { formatG } from "../cli/report.ts";
import { SUMMARY_METRICS } from "../cli/report_command.ts";

/** The cells simulate's stats JSON gives: the metric set, utilization per resource, nodes. */
// deno-lint-ignore no-explicit-any
export function expectedCells(stats: Record<string, any>): string[] {
  const m = stats.metrics;
  const g = (x: number | null) => x === null ? "-" : formatG(x);
  return [
    ...SUMMARY_METRICS.map((k) => k === "jobs" ? String(m.jobs) : g(m[k])),
    ...Object.keys(stats.resources.by_resource).sort().map((r) =>
      g(stats.resources.by_resource[r].utilization)
    ),
    String(stats.statistics.totalNodes),
  ];
}
