// Backfilling guarantees, checked from the schedule rows alone.
//
// EASY (and every backfilling policy evtsim has) promises the oldest waiting
// job, the head, that no job started ahead of it delays it past the
// reservation it had at that moment. CONSERVATIVE promises that to every
// waiting job: with exact estimates, no job is delayed by jobs submitted
// after it.

import type { JobRow, SimulationConfig } from "../core/types.ts";
import type { TracedJob } from "./invariants.ts";
import { runBatch } from "./run.ts";
import { reservationFromRows } from "./_rows.ts";

type HeadOrder = (a: JobRow, b: JobRow) => number;

/**
 * The head order of a picker of your own, for {@link checkEasyHeadReservation}.
 *
 * @example
 * ```ts
 * import { orderedPicker } from "@evtsim/evtsim";
 * import { checkEasyHeadReservation, type HeadOrderOptions, runBatch, withIds } from "@evtsim/evtsim/testing";
 * const picker = orderedPicker({ name: "largest_first", compare: (a, b) => b.numNodes - a.numNodes || a.id - b.id });
 * const largestFirst: HeadOrderOptions = { order: (a, b) => b.numNodes - a.numNodes || a.jobId - b.jobId };
 * const config = { totalNodes: 10, picker, backfillPolicy: "easy" as const };
 * const trace = [
 *   { submitTime: 0, numNodes: 6, timeLimit: 100 },
 *   { submitTime: 0, numNodes: 8, timeLimit: 10 },
 *   { submitTime: 0, numNodes: 4, timeLimit: 10 },
 * ];
 * const { jobRows } = runBatch(config, trace);
 * // Job 1 (8 nodes) is the head in this order; nothing started ahead of it delayed it.
 * console.assert(jobRows[1].beginTime === 0 && jobRows[0].beginTime === 10);
 * console.assert(checkEasyHeadReservation(jobRows, withIds(trace), config, largestFirst).length === 0);
 * ```
 */
export interface HeadOrderOptions {
  /** The picker's order on job rows: negative when `a` goes first. */
  readonly order: (a: JobRow, b: JobRow) => number;
  /** Backfills must end strictly before the reservation (default true). */
  readonly strict?: boolean;
}

function headOrderOf(config: SimulationConfig): { order: HeadOrder; strict: boolean } {
  const p = config.priorityPolicy ?? "fcfs";
  if (p === "sjf") {
    return {
      order: (a, b) =>
        a.submitTime - b.submitTime || a.timeLimit - b.timeLimit || a.jobId - b.jobId,
      strict: false,
    };
  }
  if (p === "ljf") {
    return {
      order: (a, b) =>
        a.submitTime - b.submitTime || b.timeLimit - a.timeLimit || a.jobId - b.jobId,
      strict: false,
    };
  }
  return { order: (a, b) => a.submitTime - b.submitTime || a.jobId - b.jobId, strict: true };
}

/**
 * The head is never delayed by a backfill, checked from the rows of a run to
 * completion. For each job B that began at time t while an older job waited
 * (H, the first waiting job in the policy's head order: submit time, then id
 * for FCFS, then limit for SJF/LJF), the head's reservation S is recomputed
 * from the rows as DR_EVT computes it, against every job running at t except
 * B. That running set contains at least the jobs the scheduler saw when it
 * started B, so S is no earlier than the shadow time it used. The check then
 * asserts that H did not fit at t, that B's limit-based end is before S
 * (`<` for FCFS policies, `<=` for SJF/LJF, as DR_EVT compares), and that H
 * began no later than S, unless a job that arrived after t went before H in
 * the order (then H was no longer the head). Under `backfillPolicy: "none"`
 * such a B is itself a violation. Pass `headOrder` to check a picker of your
 * own (its order on job rows).
 *
 * Preconditions (reported as violations when broken): no job runs longer
 * than its limit and every limit is positive (otherwise no reservation is a
 * promise: DR_EVT counts a release only when a job's projected end is after
 * now, so a zero-limit job started at this instant holds nodes that no
 * reservation expects back, and the next scheduling call at the same instant
 * sees a later shadow and may backfill past the earlier one); `runTimeMode`
 * is not `distribution`; no capacity schedule.
 *
 * @example
 * ```ts
 * import { checkEasyHeadReservation, runBatch, withIds } from "@evtsim/evtsim/testing";
 * const config = { totalNodes: 100, backfillPolicy: "easy" as const };
 * const trace = [
 *   { submitTime: 0, numNodes: 70, timeLimit: 200 },
 *   { submitTime: 10, numNodes: 45, timeLimit: 300 },
 *   { submitTime: 20, numNodes: 20, timeLimit: 50 },
 * ];
 * console.assert(checkEasyHeadReservation(runBatch(config, trace).jobRows, withIds(trace), config).length === 0);
 * ```
 */
export function checkEasyHeadReservation(
  jobRows: readonly JobRow[],
  trace: readonly TracedJob[],
  config: SimulationConfig,
  headOrder?: HeadOrderOptions,
): string[] {
  const out: string[] = [];
  if (config.runTimeMode === "distribution" || (config.capacitySchedule?.length ?? 0) > 0) {
    return ["precondition: needs runTimeMode actual or limit and no capacity schedule"];
  }
  for (const j of trace) {
    if (j.numNodes > config.totalNodes) continue;
    if (config.runTimeMode !== "limit" && (j.actualRunTime ?? j.timeLimit) > j.timeLimit) {
      out.push(`precondition: job ${j.id} runs ${j.actualRunTime} > its limit ${j.timeLimit}`);
    }
    if (!(j.timeLimit > 0)) out.push(`precondition: job ${j.id} has a zero time limit`);
  }
  if (out.length > 0) return out.slice(0, 5);
  const { order, strict } = headOrder === undefined
    ? headOrderOf(config)
    : { order: headOrder.order, strict: headOrder.strict ?? true };
  const none = (config.backfillPolicy ?? "easy") === "none";
  // A zero-run-time job (limit > 0, actual 0) frees its nodes at the instant
  // it starts; a waiting job may start after B at that instant, and the rows
  // do not say in which order, so such instants are skipped.
  const zeroAt = new Set(jobRows.filter((r) => r.endTime === r.beginTime).map((r) => r.beginTime));
  const total = config.totalNodes;
  for (const b of jobRows) {
    const t = b.beginTime;
    if (zeroAt.has(t)) continue;
    let head: JobRow | undefined;
    for (const j of jobRows) {
      if (j.submitTime <= t && j.beginTime > t && (head === undefined || order(j, head) < 0)) {
        head = j;
      }
    }
    if (head === undefined || order(head, b) > 0) continue;
    const where = `job ${b.jobId} began at ${t} while head ${head.jobId} waited`;
    if (none) {
      out.push(`${where} (backfill policy none)`);
      continue;
    }
    const running = jobRows.filter((j) => j !== b && j.beginTime <= t && j.endTime > t);
    const free = total - running.reduce((s, j) => s + j.numNodes, 0);
    const shadow = reservationFromRows(head.numNodes, free, running, t);
    if (head.numNodes <= free) {
      out.push(`${where}: the head fits the ${free} free nodes but did not start`);
      continue;
    }
    const fitsBefore = strict ? t + b.timeLimit < shadow : b.timeLimit <= shadow - t;
    if (!fitsBefore) {
      out.push(
        `${where}: its limit ends at ${
          t + b.timeLimit
        }, not before the head's reservation ${shadow}`,
      );
    }
    // The promise holds while H stays the head: a job that arrives later and
    // goes before H in the picker's order takes the reservation over.
    const overtaken = jobRows.some((j) =>
      j.submitTime > t && j.submitTime <= head!.beginTime && order(j, head!) < 0
    );
    if (head.beginTime > shadow && !overtaken) {
      out.push(`${where}: the head began at ${head.beginTime}, after its reservation ${shadow}`);
    }
  }
  return out.length > 20 ? [...out.slice(0, 20), `… and ${out.length - 20} more`] : out;
}

/**
 * No job starts later than its earliest reservation, for CONSERVATIVE
 * backfilling with exact estimates (every job runs exactly its limit).
 *
 * DR_EVT's conservative scheduler keeps no reservation table: a job may be
 * started ahead of others only if it fits now and ends before the
 * reservation of every job still ahead of it. The promise this makes is that
 * later jobs never push an earlier one back. With exact estimates the
 * reservation a conservative scheduler gives a job when it is submitted is
 * the time it would start if no later job existed; so this check re-runs the
 * trace cut after each job k (a batch run of jobs 0..k) and asserts that job
 * k begins in the full run (`jobRows`) no later than in the cut run.
 * `trace` must be the whole trace as appended in one batch (ids consecutive).
 *
 * Preconditions (reported as violations when broken): every accepted job
 * runs exactly its limit, and every limit is positive. Zero limits are out
 * because DR_EVT counts a release only when a job's projected end is after
 * now: a zero-limit job started at this instant hides the nodes it is about
 * to free, so a later job can be backfilled into a slot an earlier job would
 * have taken a moment later (the reference simulator agrees; see
 * tests/engine/properties_test.ts).
 *
 * @example
 * ```ts
 * import { checkConservativeReservations, runBatch, withIds } from "@evtsim/evtsim/testing";
 * const config = { totalNodes: 100, priorityPolicy: "fcfs_conservative" as const, backfillPolicy: "conservative" as const };
 * const trace = [
 *   { submitTime: 0, numNodes: 80, timeLimit: 100 },
 *   { submitTime: 1, numNodes: 50, timeLimit: 10 },
 *   { submitTime: 2, numNodes: 30, timeLimit: 10 },
 *   { submitTime: 3, numNodes: 15, timeLimit: 10 },
 *   { submitTime: 4, numNodes: 10, timeLimit: 40 },
 * ];
 * console.assert(checkConservativeReservations(runBatch(config, trace).jobRows, withIds(trace), config).length === 0);
 * ```
 */
export function checkConservativeReservations(
  jobRows: readonly JobRow[],
  trace: readonly TracedJob[],
  config: SimulationConfig,
): string[] {
  const out: string[] = [];
  const specs = trace.map(({ id: _id, ...spec }) => spec);
  for (const j of trace) {
    if (j.numNodes > config.totalNodes) continue;
    if ((j.actualRunTime ?? j.timeLimit) !== j.timeLimit && config.runTimeMode !== "limit") {
      out.push(
        `precondition: job ${j.id} runs ${j.actualRunTime}, not exactly its limit ${j.timeLimit}`,
      );
    }
    if (!(j.timeLimit > 0)) out.push(`precondition: job ${j.id} has a zero time limit`);
  }
  if (out.length > 0) return out.slice(0, 5);
  const begins = new Map(jobRows.map((r) => [r.jobId, r.beginTime]));
  trace.forEach((j, k) => {
    if (j.numNodes > config.totalNodes) return;
    const alone = runBatch(config, specs.slice(0, k + 1)).jobRows.find((r) => r.jobId === k);
    const full = begins.get(j.id);
    if (alone === undefined || full === undefined) {
      out.push(`job ${j.id}: missing from ${alone === undefined ? "the cut" : "the full"} run`);
    } else if (full > alone.beginTime) {
      out.push(
        `job ${j.id} began at ${full}, later than its reservation ${alone.beginTime} (its begin when jobs after it are left out)`,
      );
    }
  });
  return out.length > 20 ? [...out.slice(0, 20), `… and ${out.length - 20} more`] : out;
}
