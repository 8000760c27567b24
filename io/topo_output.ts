// TopoQueue's outputs (docs/machines.md, "Topology-aware admission"). Text is laid out as Go's
// tabwriter lays it out there (each column as wide as its widest cell plus
// two spaces, the last cell of a line not padded), `-` for an empty cell;
// JSON is indented by two spaces with TopoQueue's field names and order,
// and ends with a newline. Comparisons list the policies by name.

import type { NodeShare } from "../core/resource_model.ts";
import type {
  TopoPolicyResult,
  TopoReason,
  TopoSimulationResult,
} from "../schedulers/topology_types.ts";
import { compareNames } from "../schedulers/topology_cluster.ts";

/** Lines of a table as Go's tabwriter (minwidth 0, padding 2, spaces) prints them. */
export function tabulate(rows: readonly (readonly string[])[]): string[] {
  const widths: number[] = [];
  const len = (s: string) => [...s].length;
  for (const row of rows) {
    for (let c = 0; c < row.length - 1; c++) widths[c] = Math.max(widths[c] ?? 0, len(row[c]));
  }
  return rows.map((row) =>
    row.map((cell, c) => c < row.length - 1 ? cell + " ".repeat(widths[c] - len(cell) + 2) : cell)
      .join("")
  );
}

const dash = (s: string | undefined) => (s === undefined || s === "" ? "-" : s);
const usage = (used: number, total: number) => `${used}/${total}`;
const reasonText = (
  r: TopoReason | undefined,
) => (r === undefined ? "-" : `${r.code}: ${r.message}`);

/** `node=replicas,…` by node name, or `-`. */
export function allocationText(a: readonly NodeShare[] | undefined): string {
  if (a === undefined || a.length === 0) return "-";
  return [...a].sort((x, y) => compareNames(x.nodeName, y.nodeName))
    .map((s) => `${s.nodeName}=${s.replicas}`).join(",");
}

/**
 * `%.2f` as Go prints it: like `toFixed(2)`, except that a value exactly
 * halfway between two results rounds to the even one.
 */
export function fixed2(x: number): string {
  const eighths = x * 8;
  if (Number.isInteger(eighths) && Math.abs(eighths % 2) === 1 && x >= 0) {
    const below = Math.floor(x * 100);
    const n = below % 2 === 0 ? below : below + 1;
    return `${Math.floor(n / 100)}.${String(n % 100).padStart(2, "0")}`;
  }
  return x.toFixed(2);
}

function decisionLines(r: TopoPolicyResult): string[] {
  const rows = [["JOB", "STATUS", "DOMAIN", "ALLOCATION", "CPU", "GPU", "REASON"]];
  for (const j of r.jobs) {
    rows.push([
      j.jobName,
      j.status,
      dash(j.selectedTopologyDomain),
      allocationText(j.allocation),
      usage(j.allocatedResources.cpu, j.requestedResources.cpu),
      usage(j.allocatedResources.gpu, j.requestedResources.gpu),
      reasonText(j.reason),
    ]);
  }
  return [
    `POLICY ${r.policy} (CPU ${usage(r.usedResources.cpu, r.totalResources.cpu)}, GPU ${
      usage(r.usedResources.gpu, r.totalResources.gpu)
    })`,
    ...tabulate(rows),
  ];
}

const byPolicy = <T extends { policy: string }>(rs: readonly T[]) =>
  [...rs].sort((a, b) => (a.policy < b.policy ? -1 : a.policy > b.policy ? 1 : 0));

/** `schedule`'s text: the policy summary, then its job decisions. */
export function policyText(r: TopoPolicyResult): string[] {
  const summary = tabulate([
    ["POLICY", "ADMITTED", "PENDING", "CPU USED", "GPU USED", "HEAD-OF-LINE BLOCKED"],
    [
      r.policy,
      `${r.admittedJobCount}`,
      `${r.pendingJobCount}`,
      usage(r.usedResources.cpu, r.totalResources.cpu),
      usage(r.usedResources.gpu, r.totalResources.gpu),
      `${r.headOfLineBlockedJobCount}`,
    ],
  ]);
  return [...summary, "", ...decisionLines(r)];
}

/** `compare`'s text: one summary line per policy, then each policy's job decisions. */
export function comparisonText(results: readonly TopoPolicyResult[]): string[] {
  const sorted = byPolicy(results);
  const out = tabulate([
    ["POLICY", "ADMITTED", "PENDING", "GPU USED", "HEAD-OF-LINE BLOCKED"],
    ...sorted.map((r) => [
      r.policy,
      `${r.admittedJobCount}`,
      `${r.pendingJobCount}`,
      usage(r.usedResources.gpu, r.totalResources.gpu),
      `${r.headOfLineBlockedJobCount}`,
    ]),
  ]);
  for (const r of sorted) out.push("", ...decisionLines(r));
  return out;
}

const tick = (t: number | undefined) => (t === undefined ? "-" : `${t}`);

/** `simulate`'s text for one policy: summary, event timeline, job lifecycles. */
export function simulationText(r: TopoSimulationResult): string[] {
  const summary = tabulate([
    [
      "POLICY",
      "COMPLETED",
      "UNSCHEDULED",
      "START",
      "END",
      "MAKESPAN",
      "TOTAL WAIT",
      "AVERAGE WAIT",
      "MAX WAIT",
    ],
    [
      r.policy,
      `${r.completedJobCount}`,
      `${r.unscheduledJobCount}`,
      `${r.startTick}`,
      `${r.endTick}`,
      `${r.makespanTicks}`,
      `${r.totalQueueDelayTicks}`,
      fixed2(r.averageQueueDelayTicks),
      `${r.maximumQueueDelayTicks}`,
    ],
  ]);
  const events = tabulate([
    ["TICK", "TYPE", "JOB", "DOMAIN", "ALLOCATION"],
    ...r.events.map((e) => [
      `${e.tick}`,
      e.type,
      e.jobName,
      dash(e.selectedTopologyDomain),
      allocationText(e.allocation),
    ]),
  ]);
  const jobs = tabulate([
    [
      "JOB",
      "STATUS",
      "ARRIVAL",
      "DURATION",
      "START",
      "COMPLETION",
      "WAIT",
      "DOMAIN",
      "ALLOCATION",
      "REQUESTED CPU",
      "REQUESTED GPU",
      "REASON",
    ],
    ...r.jobs.map((j) => [
      j.jobName,
      j.status,
      `${j.arrivalTick}`,
      `${j.durationTicks}`,
      tick(j.startTick),
      tick(j.completionTick),
      tick(j.queueDelayTicks),
      dash(j.selectedTopologyDomain),
      allocationText(j.allocation),
      `${j.requestedResources.cpu}`,
      `${j.requestedResources.gpu}`,
      reasonText(j.reason),
    ]),
  ]);
  return [...summary, "", "EVENT TIMELINE", ...events, "", "JOB LIFECYCLE", ...jobs];
}

/** `simulate --policy all`'s text: one line per policy, then each policy's simulation. */
export function simulationComparisonText(results: readonly TopoSimulationResult[]): string[] {
  const sorted = byPolicy(results);
  const out = tabulate([
    ["POLICY", "COMPLETED", "UNSCHEDULED", "MAKESPAN", "AVERAGE WAIT", "MAX WAIT"],
    ...sorted.map((r) => [
      r.policy,
      `${r.completedJobCount}`,
      `${r.unscheduledJobCount}`,
      `${r.makespanTicks}`,
      fixed2(r.averageQueueDelayTicks),
      `${r.maximumQueueDelayTicks}`,
    ]),
  ]);
  for (const r of sorted) out.push("", ...simulationText(r));
  return out;
}

/**
 * A value as TopoQueue's JSON encoder writes it: two-space indent, no HTML
 * escaping, U+2028 and U+2029 escaped (Go always escapes them), a final
 * newline. A list of results is wrapped as `{"policies": [...]}`, by name.
 */
export function topoJson(
  value:
    | TopoPolicyResult
    | TopoSimulationResult
    | readonly (TopoPolicyResult | TopoSimulationResult)[],
): string {
  const v = Array.isArray(value) ? { policies: byPolicy(value as { policy: string }[]) } : value;
  return JSON.stringify(v, null, 2).replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029") +
    "\n";
}
