// Work conservation, checked from the schedule rows alone: a scheduler never
// leaves nodes idle that its own rule says must be used. After the last
// scheduling round at an instant the first waiting job in the policy's order
// (the head) does not fit the free nodes, and, for the backfilling policies,
// no other waiting job is left that the policy would have started.

import { promisedGuarantee } from "./_promise.ts";
import { resolveConfig } from "../core/config.ts";
import type { JobRow, SimulationConfig } from "../core/types.ts";
import type { TracedJob } from "./invariants.ts";
import { capacityAt, capacityRaises, capped, reservationFromRows } from "./_rows.ts";

/**
 * Which admission policy's promise {@link checkWorkConservation} checks:
 * `none` (the head does not fit), `easy` (nor does any job the EASY pass
 * would backfill) or `conservative` (nor the first job DR_EVT's
 * conservative rule would start).
 *
 * @example
 * ```ts
 * import { type Admission, noBackfill } from "@evtsim/evtsim";
 * import { checkWorkConservation, runBatch, withIds, type WorkConservationGuarantee } from "@evtsim/evtsim/testing";
 * const trace = [
 *   { submitTime: 0, numNodes: 6, timeLimit: 100 },
 *   { submitTime: 0, numNodes: 8, timeLimit: 10 },
 *   { submitTime: 0, numNodes: 4, timeLimit: 10 },
 * ];
 * // A policy that never backfills: job 2 waits beside job 0 although 4 nodes are free.
 * const lazy = { totalNodes: 10, admission: { ...noBackfill, name: "lazy" } as Admission };
 * const rows = runBatch(lazy, trace).jobRows;
 * const violations = (guarantee: WorkConservationGuarantee) =>
 *   checkWorkConservation(rows, withIds(trace), lazy, { guarantee }).length;
 * // It keeps `none`'s promise (the head, job 1, does not fit) but not `easy`'s.
 * console.assert(violations("none") === 0 && violations("easy") === 1);
 * ```
 */
export type WorkConservationGuarantee = "none" | "easy" | "conservative";

/**
 * Options of {@link checkWorkConservation}. A {@link HeadOrderOptions} value
 * (`order`, `strict`) is one too.
 *
 * @example
 * ```ts
 * import { orderedPicker } from "@evtsim/evtsim";
 * import { checkWorkConservation, runBatch, withIds, type WorkConservationOptions } from "@evtsim/evtsim/testing";
 * // A largest-first picker of your own, under evtsim's EASY.
 * const picker = orderedPicker({ name: "largest_first", compare: (a, b) => b.numNodes - a.numNodes || a.id - b.id });
 * const o: WorkConservationOptions = {
 *   order: (a, b) => b.numNodes - a.numNodes || a.jobId - b.jobId,
 *   guarantee: "easy",
 * };
 * const config = { totalNodes: 10, picker, backfillPolicy: "easy" as const };
 * const trace = [
 *   { submitTime: 0, numNodes: 6, timeLimit: 100 },
 *   { submitTime: 0, numNodes: 8, timeLimit: 10 },
 *   { submitTime: 0, numNodes: 2, timeLimit: 10 },
 * ];
 * const { jobRows } = runBatch(config, trace);
 * // Job 1 (the largest) starts first; job 0 waits for it, and job 2 may not pass job 0.
 * console.assert(jobRows[1].beginTime === 0 && jobRows[0].beginTime === 10);
 * console.assert(checkWorkConservation(jobRows, withIds(trace), config, o).length === 0);
 * ```
 */
export interface WorkConservationOptions {
  /**
   * The picker's order on job rows (negative when `a` is offered first), or
   * `"any"` when it is not known: then the check asks only what holds in
   * every order (some waiting job is a head the policy could have left
   * waiting). Default: the order of evtsim's picker for `config` (see
   * {@link checkWorkConservation}; a picker value is taken by its name), and
   * `"any"` for a picker of your own.
   */
  readonly order?: ((a: JobRow, b: JobRow) => number) | "any";
  /**
   * EASY: a backfill must end strictly before the head's shadow time
   * (`now + limit < shadow`). False is DR_EVT's SJF/LJF boundary
   * (`limit <= shadow - now`, and only while the shadow is after now).
   * Default: false for the `sjf` and `ljf` pickers and for a picker value
   * with `backfillEndsByShadow`, true otherwise.
   */
  readonly strict?: boolean;
  /**
   * The promise to check. Default: what the configured admission policy
   * promises (`Admission.promise`: evtsim's `none` and `easy_extra` promise
   * `head`, checked as `none`; `easy` and `conservative` their rules, DR_EVT's
   * SJF/LJF running `conservative` as `easy`; a registered policy that
   * promises nothing, such as `conservative_profile`, is not checked), and
   * `none` for a policy value of your own that states no promise.
   */
  readonly guarantee?: WorkConservationGuarantee;
}

type Order = (a: JobRow, b: JobRow) => number;

/** The guarantee, head order, candidate order and EASY boundary for `config`. */
function policyOf(
  config: SimulationConfig,
  trace: readonly TracedJob[],
  o: WorkConservationOptions,
):
  | { guarantee: WorkConservationGuarantee; head: Order | "any"; rest: Order; strict: boolean }
  | undefined {
  const resolved = resolveConfig(config);
  const guarantee = o.guarantee ?? promisedGuarantee(config).guarantee;
  if (guarantee === undefined) return undefined;
  const picker = config.picker;
  const byShadow = typeof picker === "object"
    ? picker.backfillEndsByShadow === true
    : resolved.picker === "sjf" || resolved.picker === "ljf";
  const strict = o.strict ?? !byShadow;
  if (o.order !== undefined) {
    const order = o.order;
    return { guarantee, head: order, rest: order === "any" ? () => 0 : order, strict };
  }
  if (resolved.picker === "sjf" || resolved.picker === "ljf") {
    // DR_EVT's SJF/LJF: the oldest job (equal submit times in limit order)
    // first, then every other job in limit order.
    const sign = resolved.picker === "sjf" ? 1 : -1;
    const byLimit: Order = (a, b) => sign * (a.timeLimit - b.timeLimit) || a.jobId - b.jobId;
    return {
      guarantee,
      head: (a, b) => a.submitTime - b.submitTime || byLimit(a, b),
      rest: byLimit,
      strict,
    };
  }
  if (resolved.picker !== "builtin_fcfs") return { guarantee, head: "any", rest: () => 0, strict };
  // builtin_fcfs without queues: priority (higher first), submit time, id.
  const priority = new Map(trace.map((j) => [j.id, j.priority ?? 0]));
  const p = (r: JobRow) => priority.get(r.jobId) ?? 0;
  const fcfs: Order = (a, b) => p(b) - p(a) || a.submitTime - b.submitTime || a.jobId - b.jobId;
  return { guarantee, head: fcfs, rest: fcfs, strict };
}

const freeNodes = (n: number) => `${n} free node${n === 1 ? "" : "s"}`;

const show = (r: JobRow) =>
  `job ${r.jobId} (${r.numNodes} node${r.numNodes === 1 ? "" : "s"}, limit ${r.timeLimit})`;

/**
 * Work conservation: after every scheduling round, the scheduler has started
 * everything its rule says it must. For every instant t at which the engine
 * schedules (a submit, an end, or a capacity raise), after the last round at
 * t, with `free` = the capacity in force at t (`totalNodes` without a
 * capacity schedule) minus the nodes of the jobs running over t
 * (begin <= t < end), and the waiting jobs those submitted by t that begin
 * after t (or never):
 *
 * - `none`: the first waiting job in the picker's order (the head) does not
 *   fit the free nodes.
 * - `easy`: besides, unless no node is free (DR_EVT runs no backfill pass
 *   then, except for SJF/LJF), no other waiting job fits the free nodes and
 *   ends by its limit before the head's shadow time (DR_EVT's reservation,
 *   computed from the rows as {@link checkEasyHeadReservation} does):
 *   `t + limit < shadow`, or with `strict: false` (SJF/LJF)
 *   `limit <= shadow - t` while `shadow > t`.
 * - `conservative`: besides, unless no node is free, the first job after the
 *   head (in the picker's order) that fits the free nodes does not end
 *   before the earliest reservation of the jobs ahead of it (DR_EVT's rule;
 *   a fitting job that cannot start blocks the rest).
 *
 * The picker's order is FCFS (priority, submit time, id) for `builtin_fcfs`
 * (the `fcfs*` priority policies); for `sjf`/`ljf` the oldest job first
 * (ties by limit, ascending or descending, then id), then the rest by limit
 * and id. Pass `options.order` for a picker of your own, or `"any"`.
 *
 * The check reads the state after the last round at each instant, which the
 * rows show exactly: a zero-length job started at t has ended by then (its
 * end at t makes the engine schedule again), so it is neither running nor
 * waiting at t, and a job that never started (a capacity cut left it
 * stranded) counts as waiting for ever. Preconditions (reported as
 * violations when broken): the rows of a run to completion of `trace` (ids as
 * the run gave them; jobs larger than the machine are left out); no
 * configured queues (queue priorities and limits are not modelled); no job
 * cancelled, failed or killed by a live event. Any run-time mode, limits of
 * zero, jobs overrunning their limits and capacity schedules are allowed.
 *
 * @example
 * ```ts
 * import { type Admission, noBackfill } from "@evtsim/evtsim";
 * import { checkWorkConservation, runBatch, withIds } from "@evtsim/evtsim/testing";
 * const trace = [
 *   { submitTime: 0, numNodes: 6, timeLimit: 100 },
 *   { submitTime: 0, numNodes: 8, timeLimit: 10 },
 *   { submitTime: 0, numNodes: 4, timeLimit: 10 },
 * ];
 * const easy = { totalNodes: 10, backfillPolicy: "easy" as const };
 * console.assert(checkWorkConservation(runBatch(easy, trace).jobRows, withIds(trace), easy).length === 0);
 * // An "EASY" that never backfills leaves job 2 waiting beside job 0.
 * const lazy = { totalNodes: 10, admission: { ...noBackfill, name: "lazy_easy" } as Admission };
 * const v = checkWorkConservation(runBatch(lazy, trace).jobRows, withIds(trace), lazy, { guarantee: "easy" });
 * console.assert(v.length === 1 && v[0].startsWith("at 0: job 2"), v[0]);
 * ```
 */
export function checkWorkConservation(
  jobRows: readonly JobRow[],
  trace: readonly TracedJob[],
  config: SimulationConfig,
  options: WorkConservationOptions = {},
): string[] {
  const pre: string[] = [];
  if ((config.queues?.length ?? 0) > 0) pre.push("precondition: no configured queues");
  for (const r of jobRows) {
    if (r.outcome !== undefined) {
      pre.push(`precondition: job ${r.jobId} was ${r.outcome} (no live events)`);
    }
  }
  if (pre.length > 0) return pre.slice(0, 5);
  const policy = policyOf(config, trace, options);
  // A policy that promises nothing about the jobs it leaves waiting.
  if (policy === undefined) return [];
  const { guarantee, head: order, rest, strict } = policy;
  const total = config.totalNodes;
  const schedule = config.capacitySchedule ?? [];
  // Every accepted job: its row, or (never started) a row that begins at Infinity.
  const byId = new Map(jobRows.map((r) => [r.jobId, r]));
  const jobs: JobRow[] = [...jobRows];
  for (const j of trace) {
    if (j.numNodes > total || byId.has(j.id)) continue;
    jobs.push({
      jobId: j.id,
      submitTime: j.submitTime,
      beginTime: Infinity,
      endTime: Infinity,
      numNodes: j.numNodes,
      timeLimit: j.timeLimit,
      queue: j.queue,
    });
  }
  const instants = new Set<number>(capacityRaises(schedule, total));
  for (const j of jobs) {
    instants.add(j.submitTime);
    if (j.endTime !== Infinity) instants.add(j.endTime);
  }
  const out: string[] = [];
  for (const t of [...instants].sort((a, b) => a - b)) {
    const waiting = jobs.filter((j) => j.submitTime <= t && j.beginTime > t);
    if (waiting.length === 0) continue;
    const running = jobs.filter((j) => j.beginTime <= t && t < j.endTime);
    const held = running.reduce((s, j) => s + j.numNodes, 0);
    const free = Math.max(0, capacityAt(schedule, total, t) - held);
    const where = `at ${t}`;
    const fits = (shadow: number) => (j: JobRow) =>
      j.numNodes <= free &&
      (strict ? t + j.timeLimit < shadow : shadow > t && j.timeLimit <= shadow - t);
    // No backfill pass with no node free (DR_EVT's FCFS EASY and CONSERVATIVE).
    const noPass = free <= 0 && (guarantee === "conservative" || strict);
    if (order === "any") {
      const heads = waiting.filter((h) => h.numNodes > free);
      if (heads.length === 0) {
        out.push(
          `${where}: all ${waiting.length} waiting jobs fit the ${freeNodes(free)}, so the ` +
            `picker's first fits, but none started (jobs ${
              waiting.map((j) => j.jobId).join(", ")
            })`,
        );
        continue;
      }
      if (guarantee !== "easy" || noPass) continue;
      const leftover = heads.map((h) => {
        const shadow = reservationFromRows(h.numNodes, free, running, t);
        return waiting.find((j) => j !== h && fits(shadow)(j));
      });
      if (leftover.every((j) => j !== undefined)) {
        out.push(
          `${where}: whichever waiting job is the head, another fits the ${freeNodes(free)} and ` +
            `ends before its shadow time, yet none started (head ${heads[0].jobId} leaves ` +
            `${show(leftover[0]!)})`,
        );
      }
      continue;
    }
    const sorted = [...waiting].sort(order);
    const head = sorted[0];
    const others = sorted.slice(1).sort(rest);
    if (head.numNodes <= free) {
      out.push(
        `${where}: head ${show(head)} fits the ${freeNodes(free)} but waits ` +
          (running.length === 0
            ? "(nothing running)"
            : `(running: job${running.length === 1 ? "" : "s"} ${
              running.map((j) => j.jobId).join(", ")
            }, ${held} node${held === 1 ? "" : "s"})`),
      );
      continue;
    }
    if (guarantee === "none" || noPass) continue;
    if (guarantee === "easy") {
      const shadow = reservationFromRows(head.numNodes, free, running, t);
      const left = others.find(fits(shadow));
      if (left !== undefined) {
        out.push(
          `${where}: ${show(left)} fits the ${freeNodes(free)} and would end at ${
            t + left.timeLimit
          }, ${strict ? "before" : "by"} head job ${head.jobId}'s shadow time ${shadow}, ` +
            `but was not backfilled (easy)`,
        );
      }
      continue;
    }
    // conservative: the first fitting job after the head decides.
    const k = others.findIndex((j) => j.numNodes <= free);
    if (k < 0) continue;
    const job = others[k];
    let window = Infinity;
    let holder = head;
    for (const a of [head, ...others.slice(0, k)]) {
      const r = reservationFromRows(a.numNodes, free, running, t);
      if (r < window) {
        window = r;
        holder = a;
      }
    }
    if (t + job.timeLimit < window) {
      out.push(
        `${where}: ${show(job)} fits the ${freeNodes(free)} and would end at ${
          t + job.timeLimit
        }, before ${window}, the earliest reservation of the jobs ahead of it (job ` +
          `${holder.jobId}), but waits (conservative)`,
      );
    }
  }
  return capped(out);
}
