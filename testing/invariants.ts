// Invariant checkers over a run's outputs. Each returns a list of violations
// (one readable line each); an empty list means the invariant holds. Lists
// rather than booleans, so that a failing property says what went wrong.

import type { JobRow, JobSpec, ResourceRow, SimulationConfig } from "../core/types.ts";

/** A job specification together with the id the simulator gave it. */
export type TracedJob = JobSpec & { readonly id: number };

/**
 * Attaches ids to a trace appended in one piece (ids `firstId`, `firstId + 1`, …).
 *
 * @example
 * ```ts
 * import { withIds } from "@evtsim/evtsim/testing";
 * console.assert(withIds([{ submitTime: 0, numNodes: 1, timeLimit: 1 }])[0].id === 0);
 * ```
 */
export function withIds(trace: readonly JobSpec[], firstId = 0): TracedJob[] {
  return trace.map((j, i) => ({ ...j, id: firstId + i }));
}

/** At most this many violations are listed per check; the rest are counted. */
const MAX_REPORTED = 20;

function capped(out: string[]): string[] {
  if (out.length <= MAX_REPORTED) return out;
  return [...out.slice(0, MAX_REPORTED), `… and ${out.length - MAX_REPORTED} more`];
}

/**
 * Resource rows stay within the machine: allocated nodes are never negative
 * nor above `totalNodes`, and free + allocated = `totalNodes` on every row
 * (for runs without a capacity schedule).
 *
 * @example
 * ```ts
 * import { checkCapacity } from "@evtsim/evtsim/testing";
 * console.assert(checkCapacity([{ time: 0, freeNodes: 4, allocatedNodes: 0 }], 4).length === 0);
 * console.assert(checkCapacity([{ time: 0, freeNodes: -1, allocatedNodes: 5 }], 4).length === 1);
 * ```
 */
export function checkCapacity(resourceRows: readonly ResourceRow[], totalNodes: number): string[] {
  const out: string[] = [];
  resourceRows.forEach((r, i) => {
    const where = `resource row ${i} (time ${r.time})`;
    if (r.allocatedNodes < 0) out.push(`${where}: allocated ${r.allocatedNodes} < 0`);
    else if (r.allocatedNodes > totalNodes) {
      out.push(`${where}: allocated ${r.allocatedNodes} > total ${totalNodes}`);
    } else if (r.freeNodes + r.allocatedNodes !== totalNodes) {
      out.push(
        `${where}: free ${r.freeNodes} + allocated ${r.allocatedNodes} != total ${totalNodes}`,
      );
    }
  });
  return capped(out);
}

/**
 * Time never decreases: along resource rows (by `time`) or along a list of
 * clock readings (such as `RunOutput.clocks`).
 *
 * @example
 * ```ts
 * import { checkClockMonotone } from "@evtsim/evtsim/testing";
 * console.assert(checkClockMonotone([0, 5, 5, 9]).length === 0);
 * console.assert(checkClockMonotone([{ time: 3, freeNodes: 1, allocatedNodes: 0 }, { time: 2, freeNodes: 1, allocatedNodes: 0 }]).length === 1);
 * ```
 */
export function checkClockMonotone(times: readonly ResourceRow[] | readonly number[]): string[] {
  const out: string[] = [];
  const ts = times.map((x: ResourceRow | number) => (typeof x === "number" ? x : x.time));
  for (let i = 1; i < ts.length; i++) {
    if (!(ts[i] >= ts[i - 1])) out.push(`time goes back at ${i}: ${ts[i - 1]} -> ${ts[i]}`);
  }
  return capped(out);
}

/** The run time the simulator must have used, or undefined when it is drawn at random. */
function expectedRunTime(job: JobSpec, config: SimulationConfig): number | undefined {
  switch (config.runTimeMode ?? "actual") {
    case "actual":
      return job.actualRunTime ?? job.timeLimit;
    case "limit":
      return job.timeLimit;
    case "distribution":
      return undefined;
  }
}

/**
 * The schedule output of a run to completion is right: rows are in job-id
 * order; every accepted job (nodes <= `config.totalNodes`) appears exactly
 * once with its own submit time, nodes, limit and queue; `begin >= submit`;
 * `end = begin + run time` (recorded or limit per `runTimeMode`; for
 * `distribution` only `end >= begin`); jobs larger than the machine never appear.
 *
 * @example
 * ```ts
 * import { checkScheduleRows, runBatch, withIds } from "@evtsim/evtsim/testing";
 * const config = { totalNodes: 4 };
 * const trace = [{ submitTime: 0, numNodes: 2, timeLimit: 5 }, { submitTime: 1, numNodes: 9, timeLimit: 5 }];
 * console.assert(checkScheduleRows(runBatch(config, trace).jobRows, withIds(trace), config).length === 0);
 * ```
 */
export function checkScheduleRows(
  jobRows: readonly JobRow[],
  trace: readonly TracedJob[],
  config: SimulationConfig,
): string[] {
  const out: string[] = [];
  const byId = new Map(trace.map((j) => [j.id, j]));
  const seen = new Set<number>();
  let previous = -Infinity;
  for (const r of jobRows) {
    const where = `job ${r.jobId}`;
    if (r.jobId <= previous) {
      out.push(`${where}: row after job ${previous} (rows must be in id order)`);
    }
    previous = Math.max(previous, r.jobId);
    const spec = byId.get(r.jobId);
    if (spec === undefined) {
      out.push(`${where}: not in the trace`);
      continue;
    }
    if (seen.has(r.jobId)) out.push(`${where}: written more than once`);
    seen.add(r.jobId);
    if (spec.numNodes > config.totalNodes) {
      out.push(
        `${where}: asks for ${spec.numNodes} > ${config.totalNodes} nodes but was scheduled`,
      );
    }
    if (
      r.submitTime !== spec.submitTime || r.numNodes !== spec.numNodes ||
      r.timeLimit !== spec.timeLimit
    ) {
      out.push(
        `${where}: row ${JSON.stringify(r)} does not match its spec ${JSON.stringify(spec)}`,
      );
    }
    if (r.queue !== spec.queue) out.push(`${where}: queue ${r.queue} != ${spec.queue}`);
    if (!(r.beginTime >= r.submitTime)) {
      out.push(`${where}: begins at ${r.beginTime} before submit ${r.submitTime}`);
    }
    const run = expectedRunTime(spec, config);
    if (run === undefined ? !(r.endTime >= r.beginTime) : r.endTime !== r.beginTime + run) {
      out.push(
        `${where}: ends at ${r.endTime}, expected begin ${r.beginTime} + run time ${run ?? ">= 0"}`,
      );
    }
  }
  for (const j of trace) {
    if (j.numNodes <= config.totalNodes && !seen.has(j.id)) {
      out.push(`job ${j.id}: accepted but never written`);
    }
  }
  return capped(out);
}

/**
 * Without backfilling, jobs start in submit order: a job submitted strictly
 * earlier never begins after a later one. With `ties: "id"` (default; FCFS)
 * jobs with equal submit times also begin in id order; use `ties: "any"`
 * for SJF/LJF, whose oldest-job tie-break follows the time limit.
 *
 * @example
 * ```ts
 * import { checkFcfsOrder, runBatch } from "@evtsim/evtsim/testing";
 * const out = runBatch({ totalNodes: 4, backfillPolicy: "none" }, [
 *   { submitTime: 0, numNodes: 4, timeLimit: 5 },
 *   { submitTime: 1, numNodes: 3, timeLimit: 5 },
 *   { submitTime: 2, numNodes: 1, timeLimit: 1 },
 * ]);
 * console.assert(checkFcfsOrder(out.jobRows).length === 0);
 * ```
 */
export function checkFcfsOrder(
  jobRows: readonly JobRow[],
  options: { readonly ties?: "id" | "any" } = {},
): string[] {
  const out: string[] = [];
  const byTies = (options.ties ?? "id") === "id";
  const rows = [...jobRows].sort((a, b) => a.submitTime - b.submitTime || a.jobId - b.jobId);
  // Latest begin among rows that must not start after the current one.
  let latest: JobRow | undefined;
  let groupLatest: JobRow | undefined; // same submit time as the current row, when ties are free
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i];
    if (i > 0 && rows[i - 1].submitTime !== r.submitTime && groupLatest !== undefined) {
      if (latest === undefined || groupLatest.beginTime > latest.beginTime) latest = groupLatest;
      groupLatest = undefined;
    }
    if (latest !== undefined && r.beginTime < latest.beginTime) {
      out.push(
        `job ${r.jobId} (submit ${r.submitTime}) begins at ${r.beginTime}, before job ${latest.jobId} (submit ${latest.submitTime}) at ${latest.beginTime}`,
      );
    }
    if (byTies) {
      if (latest === undefined || r.beginTime > latest.beginTime) latest = r;
    } else if (groupLatest === undefined || r.beginTime > groupLatest.beginTime) groupLatest = r;
  }
  return capped(out);
}
