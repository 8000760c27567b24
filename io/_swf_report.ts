// The SWF load report as lines for stderr: every fallback, skip and overrun
// decision the reader made, so that none is silent.

import type { OverrunPolicy, SwfLoadReport } from "./swf.ts";

const OVERRUN_WORDS: Record<OverrunPolicy, string> = {
  kill: "ended at their requested time",
  run: "run their full recorded time past their limit",
  inflate: "limit raised to their run time",
};

/**
 * The load report as human-readable lines (for stderr), each prefixed with
 * `file`. The read/accepted line and the overrun line are always present;
 * the others only when they have something to say. `totalNodes` is the
 * machine size the run was given (`-n`), if any.
 *
 * @example
 * ```ts
 * import { formatSwfReport, parseSwfText } from "@evtsim/evtsim/io";
 * const { report } = parseSwfText("; MaxProcs: 8\n1 0 5 100 4 -1 -1 4 60 -1 1 1 1 -1 1 -1 -1 -1\n", "x");
 * const lines = formatSwfReport(report, "log.swf");
 * console.assert(lines[0] === "log.swf: read 1 jobs, accepted 1, skipped 0");
 * console.assert(lines.includes("log.swf: machine size from the header: 8 procs"));
 * // With the machine size given (-n), the report says so rather than the header's.
 * const given = formatSwfReport(report, "log.swf", 4);
 * console.assert(given.includes("log.swf: machine size: 4 (--total_nodes; the header's 8 procs is not used)"));
 * ```
 */
export function formatSwfReport(
  report: SwfLoadReport,
  file: string,
  totalNodes?: number,
): string[] {
  const s = report.skipped;
  const skipped = s.missingSubmitTime + s.nonPositiveSize + s.nonPositiveRunTime + s.missingWait;
  const lines = [`read ${report.read} jobs, accepted ${report.accepted}, skipped ${skipped}`];
  const reasons: string[] = [];
  if (s.missingSubmitTime) reasons.push(`${s.missingSubmitTime} without a submit time`);
  if (s.nonPositiveSize) reasons.push(`${s.nonPositiveSize} with no positive size`);
  if (s.nonPositiveRunTime) reasons.push(`${s.nonPositiveRunTime} with no positive run time`);
  if (s.missingWait) reasons.push(`${s.missingWait} without a recorded wait time`);
  if (reasons.length) lines.push(`skipped: ${reasons.join(", ")}`);
  if (report.limitFallbacks) {
    lines.push(
      `${report.limitFallbacks} jobs without a requested time: their run time is the limit`,
    );
  }
  if (report.sizeFallbacks) {
    lines.push(
      `${report.sizeFallbacks} jobs without requested processors: allocated processors used`,
    );
  }
  lines.push(
    `${report.overruns} jobs ran longer than requested: ${
      OVERRUN_WORDS[report.overrunPolicy]
    } (overrun policy ${report.overrunPolicy})`,
  );
  if (report.unit === "nodes") {
    const from = { option: "as given", header: "MaxProcs / MaxNodes", default: "default" };
    lines.push(
      `sizes in nodes of ${report.procsPerNode} processors (${from[report.procsPerNodeFrom]})`,
    );
  }
  // Given -n, the header's size and the jobs larger than it are not what the
  // run uses: the simulator's one rejected-jobs line counts against -n.
  if (totalNodes !== undefined) {
    if (report.machineSize !== undefined) {
      lines.push(
        `machine size: ${totalNodes} (--total_nodes; the header's ${report.machineSize} ${report.unit} is not used)`,
      );
    }
  } else {
    if (report.machineSize !== undefined) {
      lines.push(`machine size from the header: ${report.machineSize} ${report.unit}`);
    }
    if (report.oversized) lines.push(`${report.oversized} jobs are larger than the machine`);
  }
  if (report.outOfOrder) lines.push(`${report.outOfOrder} jobs were out of submit order (sorted)`);
  if (report.stoppedAtMaxJobs) lines.push(`stopped after ${report.read} jobs (max jobs)`);
  return lines.map((l) => `${file}: ${l}`);
}
