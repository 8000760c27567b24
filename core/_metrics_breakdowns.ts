// The metric set's breakdowns (per user, account, queue and job-size class),
// its fairness figures (Jain's index over the users' mean bounded slowdowns,
// and the worst user), and which jobs are measured (--measure_window or
// --trim). Kept apart from core/metrics.ts so that file stays the one list of
// the flat metric set; computeMetrics and computeBreakdowns measure the same
// jobs because both select them here.

import { EvtsimError } from "./errors.ts";
import { nearestRank } from "./_nearest_rank.ts";
import { sortFloat64 } from "./_float_sort.ts";
import type { MetricsJob, MetricsOptions } from "./metrics.ts";
import { JobColumns, measuredIndices } from "./_metrics_columns.ts";

/** The figures of one group of measured jobs (one user, account, queue or size class). */
export interface GroupMetrics {
  /** The user, account or queue; the size class (`1`, `2-3`, `4-7` ...); null for jobs without one. */
  readonly key: string | null;
  /** Measured jobs in the group. */
  readonly jobs: number;
  /** Mean wait (begin − submit, seconds). */
  readonly wait_mean_s: number;
  /** 95th percentile (nearest rank) wait (seconds). */
  readonly wait_p95_s: number;
  /** Mean bounded slowdown (max(1, response / max(run, τ))). */
  readonly bsld_mean: number;
}

/**
 * The measured jobs grouped four ways. A label no measured job carries (a
 * trace without users, accounts or queues) gives an empty list.
 */
export interface Breakdowns {
  /** Per user (trace column `user`, SWF field 12). */
  readonly user: readonly GroupMetrics[];
  /** Per account (trace column `account`, SWF field 13: the group). */
  readonly account: readonly GroupMetrics[];
  /** Per queue (trace column `queue`, SWF field 15). */
  readonly queue: readonly GroupMetrics[];
  /** Per job-size class: nodes in [2^k, 2^(k+1) − 1], keys `1`, `2-3`, `4-7` ... */
  readonly size: readonly GroupMetrics[];
}

/** Fairness across users (jobs without a user are left out). */
export interface Fairness {
  /** Users with at least one measured job. */
  readonly users: number;
  /** Jain's index (Σx)² / (n Σx²) over the users' mean bounded slowdowns x; null without users. */
  readonly jain_bsld: number | null;
  /** The user with the largest mean bounded slowdown (the first in key order on a tie). */
  readonly worst_user: string | null;
  /** That user's mean bounded slowdown. */
  readonly worst_user_bsld_mean: number | null;
}

/** The fairness figures' names, in the order compare and sweep rows list them. */
export const FAIRNESS_NAMES: readonly (keyof Fairness)[] = [
  "users",
  "jain_bsld",
  "worst_user",
  "worst_user_bsld_mean",
];

// --- which jobs are measured ---------------------------------------------

// A trim amount: a number in (0, 1) is a fraction of the jobs, a whole
// number a count of jobs.
function trimCount(amount: number, n: number): number {
  return amount < 1 ? Math.floor(amount * n) : amount;
}

function checkTrimAmount(v: number, what: string): void {
  if (!(Number.isFinite(v) && v >= 0 && (v < 1 || Number.isInteger(v)))) {
    throw new EvtsimError(
      "usage",
      `trim ${what} must be a fraction in [0, 1) or a whole number of jobs, got ${v}`,
    );
  }
}

/** Checks `trim` (and that it is not given with a measure window). */
export function checkTrimOption(options: MetricsOptions): void {
  const t = options.trim;
  if (t === undefined) return;
  if (options.measureWindow !== undefined) {
    throw new EvtsimError("usage", "give measure_window or trim, not both");
  }
  checkTrimAmount(t[0], "warmup");
  checkTrimAmount(t[1], "cooldown");
}

/**
 * The measured jobs among `completed` (jobs that ran to their end), in their
 * order: those submitted in the measure window, or, with `trim [W, C]`, all
 * but the first W and the last C in submit order (ties in input order).
 */
export function selectMeasured<J extends Pick<MetricsJob, "submitTime">>(
  completed: readonly J[],
  options: MetricsOptions,
): J[] {
  const t = options.trim;
  if (t !== undefined) {
    const n = completed.length;
    const order = Array.from({ length: n }, (_, i) => i);
    order.sort((a, b) => completed[a].submitTime - completed[b].submitTime || a - b);
    const keep = new Uint8Array(n);
    const from = trimCount(t[0], n), to = n - trimCount(t[1], n);
    for (let r = from; r < to; r++) keep[order[r]] = 1;
    return completed.filter((_, i) => keep[i] === 1);
  }
  const [lo, hi] = options.measureWindow ?? [-Infinity, Infinity];
  return completed.filter((j) => j.submitTime >= lo && j.submitTime < hi);
}

/**
 * `--trim WARMUP,COOLDOWN`: each a fraction of the jobs in [0, 1) (`0.1`)
 * or a whole number of jobs (`500`); one usage line for anything else.
 *
 * @example
 * ```ts
 * import { parseTrim } from "./_metrics_breakdowns.ts";
 * const [w, c] = parseTrim("0.1,500");
 * console.assert(w === 0.1 && c === 500);
 * ```
 */
export function parseTrim(text: string): [number, number] {
  const m = /^\s*(\d+(?:\.\d+)?)\s*,\s*(\d+(?:\.\d+)?)\s*$/.exec(text);
  const pair: [number, number] = m === null ? [NaN, NaN] : [Number(m[1]), Number(m[2])];
  if (!pair.every((v) => v < 1 || Number.isInteger(v))) {
    throw new EvtsimError(
      "usage",
      `--trim: expected WARMUP,COOLDOWN, each a fraction in [0, 1) or a whole number of jobs, got '${text}'`,
    );
  }
  return pair;
}

// --- breakdowns and fairness -------------------------------------------------

/**
 * The size class of a job of `nodes` nodes: `1`, `2-3`, `4-7`, `8-15` ...
 * (nodes in [2^k, 2^(k+1) − 1]); `0` for none.
 */
export function sizeClass(nodes: number): string {
  if (!(nodes >= 1)) return "0";
  let lo = 1;
  while (lo * 2 <= nodes) lo *= 2;
  return lo === 1 ? "1" : `${lo}-${lo * 2 - 1}`;
}

const NUMBER = /^-?\d+(?:\.\d+)?$/;

// Keys in order: numbers (SWF user ids, size classes) by value, before other
// text, which goes by code unit; null last.
function compareKeys(a: string | null, b: string | null): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1;
  const xn = NUMBER.test(a), yn = NUMBER.test(b);
  const x = Number(a), y = Number(b);
  if (xn && yn && x !== y) return x - y;
  if (xn !== yn) return xn ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

// The groups of the measured jobs: measured job k is in group `ids[k]`
// (`keyOf` names each group: null for the jobs without a label); groups in
// `order` of their keys, each job counted in its group in job order (so each
// sum is the same sequence of additions as a list of the group's jobs gives).
// A breakdown whose jobs all lack the label is empty unless `always`.
function groupsOf(
  ids: Uint32Array,
  keyOf: (id: number) => string | null,
  wait: Float64Array,
  bsld: Float64Array,
  always: boolean,
  order: (a: string | null, b: string | null) => number = compareKeys,
): GroupMetrics[] {
  const m = ids.length;
  let top = 0;
  for (let k = 0; k < m; k++) if (ids[k] > top) top = ids[k];
  const count = new Int32Array(top + 1);
  for (let k = 0; k < m; k++) count[ids[k]]++;
  const present: number[] = [];
  let labelled = false;
  for (let id = 0; id <= top; id++) {
    if (count[id] === 0) continue;
    present.push(id);
    if (keyOf(id) !== null) labelled = true;
  }
  if (!labelled && !always) return [];
  // Each group's jobs, in job order: a counting sort of the measured jobs by group.
  const start = new Int32Array(top + 2);
  for (let id = 0; id <= top; id++) start[id + 1] = start[id] + count[id];
  const members = new Int32Array(m);
  const fill = start.slice(0, top + 1);
  for (let k = 0; k < m; k++) members[fill[ids[k]]++] = k;
  const keys = new Map(present.map((id) => [id, keyOf(id)]));
  present.sort((a, b) => order(keys.get(a)!, keys.get(b)!));
  return present.map((id) => {
    const from = start[id], size = count[id];
    let w = 0, b = 0;
    const waits = new Float64Array(size);
    for (let i = 0; i < size; i++) {
      const k = members[from + i];
      w += wait[k];
      b += bsld[k];
      waits[i] = wait[k];
    }
    sortFloat64(waits);
    return {
      key: keys.get(id)!,
      jobs: size,
      wait_mean_s: w / size,
      wait_p95_s: nearestRank(waits, 95)!,
      bsld_mean: b / size,
    };
  });
}

/**
 * Jain's index (Σx)² / (n Σx²) of `xs`: 1 when all are equal, 1/n when one
 * holds everything; null for none (and 1 when all are 0).
 *
 * @example
 * ```ts
 * import { jainIndex } from "./_metrics_breakdowns.ts";
 * console.assert(jainIndex([2, 2, 2]) === 1 && jainIndex([4, 0, 0, 0]) === 0.25);
 * ```
 */
export function jainIndex(xs: readonly number[]): number | null {
  if (xs.length === 0) return null;
  let sum = 0, squares = 0;
  for (const x of xs) {
    sum += x;
    squares += x * x;
  }
  return squares === 0 ? 1 : (sum * sum) / (xs.length * squares);
}

/**
 * The breakdowns and fairness of a finished run's job rows, measured as
 * {@link computeMetrics} measures them (the same jobs, the same τ).
 */
export function computeBreakdowns(
  jobs: Iterable<MetricsJob>,
  options: MetricsOptions,
  tau: number,
): { breakdowns: Breakdowns; fairness: Fairness } {
  return breakdownsOfColumns(JobColumns.of(jobs), options, tau);
}

/** {@link computeBreakdowns} of jobs kept as columns. */
export function breakdownsOfColumns(
  c: JobColumns,
  options: MetricsOptions,
  tau: number,
): { breakdowns: Breakdowns; fairness: Fairness } {
  const byLabel = labelGroups(c, options, tau);
  const { measured, wait, bsld } = byLabel;
  const m = measured.length;
  // Size classes numbered in order of first appearance.
  const classes: string[] = [];
  const classOf = new Map<string, number>();
  const ofNodes = new Map<number, number>();
  const sizes = new Uint32Array(m);
  for (let k = 0; k < m; k++) {
    const nodes = c.nodes[measured[k]];
    let id = ofNodes.get(nodes);
    if (id === undefined) {
      const key = sizeClass(nodes);
      id = classOf.get(key);
      if (id === undefined) {
        id = classes.push(key) - 1;
        classOf.set(key, id);
      }
      ofNodes.set(nodes, id);
    }
    sizes[k] = id;
  }
  const breakdowns: Breakdowns = {
    user: byLabel(0),
    account: byLabel(1),
    queue: byLabel(2),
    // Size classes by their smallest size (`2-3` before `16-31`).
    size: groupsOf(
      sizes,
      (id) => classes[id],
      wait,
      bsld,
      true,
      (a, b) => parseInt(a!) - parseInt(b!),
    ),
  };
  return { breakdowns, fairness: fairnessOf(breakdowns.user) };
}

/**
 * The fairness figures of {@link breakdownsOfColumns} alone (the same
 * values), for a run that keeps no breakdown (a sweep cell's row).
 */
export function fairnessOfColumns(c: JobColumns, options: MetricsOptions, tau: number): Fairness {
  return fairnessOf(labelGroups(c, options, tau)(0));
}

// The groups of the measured jobs by user (0), account (1) or queue (2),
// with the measured jobs' waits and bounded slowdowns they are made of.
function labelGroups(c: JobColumns, options: MetricsOptions, tau: number) {
  const measured = measuredIndices(c, options);
  const m = measured.length;
  const wait = new Float64Array(m), bsld = new Float64Array(m);
  const submit = c.submit, begin = c.begin, end = c.end;
  for (let k = 0; k < m; k++) {
    const j = measured[k];
    const response = end[j] - submit[j];
    wait[k] = begin[j] - submit[j];
    bsld[k] = Math.max(1, response / Math.max(end[j] - begin[j], tau));
  }
  const labels = c.labels;
  const byLabel = (col: 0 | 1 | 2) => {
    const all = labels.column(col);
    const ids = new Uint32Array(m);
    for (let k = 0; k < m; k++) ids[k] = all[measured[k]];
    return groupsOf(ids, (id) => id === 0 ? null : labels.name(id), wait, bsld, false);
  };
  return Object.assign(byLabel, { measured, wait, bsld });
}

// Fairness from the per-user groups (jobs without a user left out).
function fairnessOf(byUser: readonly GroupMetrics[]): Fairness {
  const users = byUser.filter((g) => g.key !== null);
  let worst: GroupMetrics | undefined;
  for (const g of users) if (worst === undefined || g.bsld_mean > worst.bsld_mean) worst = g;
  return {
    users: users.length,
    jain_bsld: jainIndex(users.map((g) => g.bsld_mean)),
    worst_user: worst?.key ?? null,
    worst_user_bsld_mean: worst?.bsld_mean ?? null,
  };
}
