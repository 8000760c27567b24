// Checks for runs with a capacity schedule, computed from the output rows and
// the schedule alone (never from the engine's own `capacity` field), so that
// they can catch an engine that tracks the usable node count wrongly.

import type { CapacityChange, JobRow, ResourceRow, SimulationConfig } from "../core/types.ts";

/**
 * The usable node count in force at `t`: the last change with `time <= t`
 * (changes at `t` apply before the scheduling pass at `t`), or the whole
 * machine before the first change.
 *
 * @example
 * ```ts
 * import { capacityAt } from "./capacity_checks.ts";
 * const s = [{ time: 10, capacity: 4 }, { time: 20, capacity: 8 }];
 * console.assert(capacityAt(s, 16, 9) === 16 && capacityAt(s, 16, 10) === 4);
 * ```
 */
export function capacityAt(
  schedule: readonly CapacityChange[],
  totalNodes: number,
  t: number,
): number {
  let c = totalNodes;
  for (const change of schedule) {
    if (change.time > t) break;
    c = change.capacity;
  }
  return c;
}

/** The usable node count just before `t` (changes strictly before `t`). */
export function capacityBefore(
  schedule: readonly CapacityChange[],
  totalNodes: number,
  t: number,
): number {
  let c = totalNodes;
  for (const change of schedule) {
    if (change.time >= t) break;
    c = change.capacity;
  }
  return c;
}

/**
 * No start ever takes the allocation above the capacity in force at that
 * instant. From the job rows: for every time `b` at which some job begins,
 * the jobs running across `b` (begin <= b < end) all hold their nodes at the
 * last start at `b`, so their nodes sum to at most the capacity at `b`.
 * Cuts do not preempt, so jobs begun before a cut may exceed it; only starts
 * are checked. Returns readable violations (empty = holds).
 *
 * @example
 * ```ts
 * import { checkStartsWithinCapacity } from "./capacity_checks.ts";
 * const config = { totalNodes: 8, capacitySchedule: [{ time: 5, capacity: 2 }] };
 * const row = (id: number, b: number, e: number, n: number) =>
 *   ({ jobId: id, submitTime: 0, beginTime: b, endTime: e, numNodes: n, timeLimit: e - b, queue: undefined });
 * console.assert(checkStartsWithinCapacity([row(0, 0, 9, 6), row(1, 6, 7, 1)], config).length === 1);
 * ```
 */
export function checkStartsWithinCapacity(
  jobRows: readonly JobRow[],
  config: SimulationConfig,
): string[] {
  const schedule = config.capacitySchedule ?? [];
  const out: string[] = [];
  const starts = [...new Set(jobRows.map((r) => r.beginTime))].sort((a, b) => a - b);
  for (const b of starts) {
    const across = jobRows.filter((r) => r.beginTime <= b && r.endTime > b);
    const held = across.reduce((s, r) => s + r.numNodes, 0);
    const cap = capacityAt(schedule, config.totalNodes, b);
    if (held > cap) {
      out.push(
        `a job began at ${b} with ${held} nodes in use (jobs ${
          across.map((r) => r.jobId).join(", ")
        }) but the capacity at ${b} is ${cap}`,
      );
    }
  }
  return out.slice(0, 20);
}

/**
 * Resource rows under a capacity schedule: allocation is never negative; a
 * row that follows a start (allocation went up) is within the capacity at
 * its time; and `free + allocated` is the capacity in force at the row's
 * time, or (for an end processed at the instant of a change, which the
 * engine applies before the change) the capacity just before it.
 */
export function checkCapacityRows(
  resourceRows: readonly ResourceRow[],
  config: SimulationConfig,
): string[] {
  const schedule = config.capacitySchedule ?? [];
  const out: string[] = [];
  resourceRows.forEach((r, i) => {
    const where = `resource row ${i} (time ${r.time})`;
    const cap = capacityAt(schedule, config.totalNodes, r.time);
    const before = capacityBefore(schedule, config.totalNodes, r.time);
    const started = i > 0 && r.allocatedNodes > resourceRows[i - 1].allocatedNodes;
    if (r.allocatedNodes < 0) out.push(`${where}: allocated ${r.allocatedNodes} < 0`);
    if (started && r.allocatedNodes > cap) {
      out.push(`${where}: a start took allocation to ${r.allocatedNodes} > capacity ${cap}`);
    }
    const sum = r.freeNodes + r.allocatedNodes;
    if (started ? sum !== cap : sum !== cap && sum !== before) {
      out.push(`${where}: free + allocated = ${sum}, capacity is ${cap} (before: ${before})`);
    }
  });
  return out.slice(0, 20);
}
