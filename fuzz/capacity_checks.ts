// Checks for runs with a capacity schedule, computed from the output rows and
// the schedule alone (never from the engine's own `capacity` field), so that
// they can catch an engine that tracks the usable node count wrongly.

import type {
  CapacityChange,
  JobRow,
  JobSpec,
  Notice,
  ResourceRow,
  SimulationConfig,
} from "../core/types.ts";

/**
 * The usable node count in force at `t`: the last change with `time <= t`
 * (changes at `t` apply before the ends and the scheduling pass at `t`), or
 * the whole machine before the first change.
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
 * time (changes at an instant apply before its ends and starts). Where
 * several changes share an instant, each one that changes the count writes
 * its own row, so a row at that instant may also show an intermediate value.
 * Free nodes may be negative: nodes owed after a cut below the allocation.
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
    const started = i > 0 && r.allocatedNodes > resourceRows[i - 1].allocatedNodes;
    if (r.allocatedNodes < 0) out.push(`${where}: allocated ${r.allocatedNodes} < 0`);
    if (started && r.allocatedNodes > cap) {
      out.push(`${where}: a start took allocation to ${r.allocatedNodes} > capacity ${cap}`);
    }
    const sum = r.freeNodes + r.allocatedNodes;
    const atInstant = schedule.some((c) => c.time === r.time && c.capacity === sum);
    if (sum !== cap && (started || !atInstant)) {
      out.push(`${where}: free + allocated = ${sum}, capacity in force is ${cap}`);
    }
  });
  return out.slice(0, 20);
}

/**
 * The rows capacity changes write: one per change after the start that
 * changes the usable count while a job runs, at its time, with
 * `free = capacity - allocated` (negative after a cut below the allocation:
 * cuts never preempt). At an instant, changes apply before the ends and
 * before the scheduling pass, so the jobs running at a change at `t` are
 * those with `begin < t <= end`: a job ending at `t` still runs, one
 * beginning at `t` (zero-length ones included) has not started yet. A change
 * with no such job (an idle machine, or after the last job) writes no row:
 * the new capacity shows in the next start's row. Changes at or before the
 * start only set the baseline row.
 *
 * @example
 * ```ts
 * import { expectedCapacityRows } from "./capacity_checks.ts";
 * const config = {
 *   totalNodes: 8,
 *   capacitySchedule: [{ time: 5, capacity: 2 }, { time: 9, capacity: 3 }, { time: 12, capacity: 8 }],
 * };
 * const rows = expectedCapacityRows(
 *   [{ jobId: 0, submitTime: 0, beginTime: 0, endTime: 9, numNodes: 6, timeLimit: 9, queue: undefined }],
 *   config,
 * );
 * // The cut at 5 and the raise at 9 (job 0 still runs when it applies); nothing runs at 12.
 * console.assert(rows.length === 2 && rows[0].freeNodes === -4 && rows[1].freeNodes === -3);
 * ```
 */
export function expectedCapacityRows(
  jobRows: readonly JobRow[],
  config: SimulationConfig,
): ResourceRow[] {
  const start = config.startTime ?? 0;
  let cap = config.totalNodes;
  const rows: ResourceRow[] = [];
  for (const { time, capacity } of config.capacitySchedule ?? []) {
    const running = jobRows.filter((r) => r.beginTime < time && r.endTime >= time);
    if (time > start && capacity !== cap && running.length > 0) {
      const allocated = running.reduce((s, r) => s + r.numNodes, 0);
      rows.push({ time, freeNodes: capacity - allocated, allocatedNodes: allocated });
    }
    cap = capacity;
  }
  return rows;
}

/**
 * Each expected capacity row ({@link expectedCapacityRows}) is among the
 * first rows written at its instant, in schedule order, and no other row is
 * written: a complete run has the baseline row, one row per start and one
 * per end, and the capacity rows.
 */
export function checkCapacityChangeRows(
  resourceRows: readonly ResourceRow[],
  jobRows: readonly JobRow[],
  config: SimulationConfig,
): string[] {
  const expected = expectedCapacityRows(jobRows, config);
  const out: string[] = [];
  const show = (r: ResourceRow | undefined) =>
    r === undefined ? "nothing" : `${r.time}:${r.freeNodes}/${r.allocatedNodes}`;
  for (const t of new Set(expected.map((r) => r.time))) {
    const want = expected.filter((r) => r.time === t);
    const got = resourceRows.filter((r) => r.time === t).slice(0, want.length);
    want.forEach((w, k) => {
      const g = got[k];
      if (g?.freeNodes !== w.freeNodes || g.allocatedNodes !== w.allocatedNodes) {
        out.push(`capacity row ${k} at ${t}: expected ${show(w)} first, got ${show(g)}`);
      }
    });
  }
  const count = 1 + 2 * jobRows.length + expected.length;
  if (resourceRows.length !== count) {
    out.push(
      `${resourceRows.length} resource rows, expected ${count} (baseline, ${jobRows.length} ` +
        `starts and ends, ${expected.length} capacity changes)`,
    );
  }
  return out.slice(0, 20);
}

/**
 * How a batch run (append everything, run to completion, finish) must end.
 * Jobs that fit the machine but were never written are stranded: the
 * capacity stayed below their size, and exactly one `stranded` notice, the
 * last one (`finish` emits it), says how many, at the final capacity and the
 * clock at finish. The clock ends at the last arrival, end or (only when jobs
 * are stranded, since then every change is applied) capacity change: running
 * to completion does not move it for a change with nothing left to run.
 * Returns readable violations (empty = holds).
 */
export function checkBatchEnd(
  trace: readonly JobSpec[],
  jobRows: readonly JobRow[],
  notices: readonly Notice[],
  currentTime: number,
  config: SimulationConfig,
): string[] {
  const schedule = config.capacitySchedule ?? [];
  const accepted = trace.filter((j) => j.numNodes <= config.totalNodes);
  const waiting = accepted.length - jobRows.length;
  const stranded = notices.filter((n) => n.kind === "stranded");
  let clock = config.startTime ?? 0;
  for (const j of accepted) clock = Math.max(clock, j.submitTime);
  for (const r of jobRows) clock = Math.max(clock, r.endTime);
  if (waiting > 0 && schedule.length > 0) {
    clock = Math.max(clock, schedule[schedule.length - 1].time);
  }
  const out: string[] = [];
  if (currentTime !== clock) out.push(`the clock ends at ${currentTime}, expected ${clock}`);
  if (waiting === 0 && stranded.length > 0) {
    out.push(`every accepted job ran, but: ${JSON.stringify(stranded)}`);
  }
  if (waiting > 0) {
    const capacity = capacityAt(schedule, config.totalNodes, Infinity);
    const last = notices[notices.length - 1];
    const ok = stranded.length === 1 && last?.kind === "stranded" && last.time === clock &&
      last.waitingJobs === waiting && last.capacity === capacity;
    if (!ok) {
      out.push(
        `${waiting} job(s) never ran: expected one stranded notice, last, at ${clock} with ` +
          `capacity ${capacity}; got ${JSON.stringify(stranded)}`,
      );
    }
  }
  return out;
}
