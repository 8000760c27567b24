// The metric set of a finished run, computed from its job rows alone, so that
// every output (stats JSON, compare, sweep, report, serve) reports the same
// names and values: they all call `computeMetrics` (or `MetricsCollector`,
// which keeps the rows' few numbers as they stream by and then measures them
// as it does: both read the same columns, core/_metrics_columns.ts).
// DR_EVT's statistics block (core/statistics.ts) is left as it is.

import { EvtsimError } from "./errors.ts";
import {
  type Breakdowns,
  breakdownsOfColumns,
  checkTrimOption,
  type Fairness,
  fairnessOfColumns,
} from "./_metrics_breakdowns.ts";
import { JobColumns, measuredIndices } from "./_metrics_columns.ts";
import { nearestRank } from "./_nearest_rank.ts";

// Re-exported here, the metric set's public home.
export { nearestRank };

import { sortFloat64 } from "./_float_sort.ts";

export {
  type Breakdowns,
  type Fairness,
  FAIRNESS_NAMES,
  type GroupMetrics,
} from "./_metrics_breakdowns.ts";

// Utilization per resource and partition on a resource model (the same span
// as `utilization`): its own file, so that the job-row metrics stay as they are.
export {
  type ResourceFigures,
  type ResourceMetrics,
  ResourceUseCollector,
} from "./_metrics_resources.ts";
import type { ResourceMetrics } from "./_metrics_resources.ts";

/** Default bounded-slowdown threshold τ (seconds). */
export const DEFAULT_BSLD_TAU = 10;

/** The percentiles every distribution reports. */
export const METRIC_PERCENTILES = [50, 90, 95, 99] as const;

/** The fields of a job row the metrics read (a {@link JobRow} has them all). */
export interface MetricsJob {
  /** Submit time (seconds). */
  readonly submitTime: number;
  /** Start time (seconds). */
  readonly beginTime: number;
  /** End time (seconds). */
  readonly endTime: number;
  /** Nodes held. */
  readonly numNodes: number;
  /** Set for a job that did not run to its end (cancelled, failed, killed). */
  readonly outcome?: string;
  /** The submitting user, for the per-user breakdown and fairness. */
  readonly user?: string;
  /** The account (SWF group), for the per-account breakdown. */
  readonly account?: string;
  /** The queue, for the per-queue breakdown. */
  readonly queue?: string;
  /**
   * A suspended job's seconds suspended between its begin and its end
   * (`JobRow.suspendedSeconds`): it held no nodes then.
   */
  readonly suspendedSeconds?: number;
}

/** How the metrics are measured. */
export interface MetricsOptions {
  /** Bounded-slowdown threshold τ in seconds, > 0 (default 10). */
  readonly bsldTau?: number;
  /**
   * `[start, end)` in seconds: only jobs submitted in it are measured; the
   * others are counted in `jobs_excluded`. Default: every job.
   */
  readonly measureWindow?: readonly [number, number];
  /**
   * `[warmup, cooldown]` instead of a window: the first and last jobs in
   * submit order are not measured (counted in `jobs_excluded`); each a
   * fraction in [0, 1) of the jobs that ran to their end, or a whole number of jobs.
   */
  readonly trim?: readonly [number, number];
}

/** The usable nodes from `time` on (a step of a capacity function). */
export interface CapacityStep {
  /** From this time on (seconds). */
  readonly time: number;
  /** Usable nodes. */
  readonly nodes: number;
}

/**
 * The metric set; names carry their units (`_s` seconds). A statistic of
 * no jobs is null.
 */
export interface Metrics {
  /** Jobs measured: ran to their end, submitted in the measure window. */
  readonly jobs: number;
  /** Jobs that ran to their end but were submitted outside the measure window. */
  readonly jobs_excluded: number;
  /** The τ the bounded slowdowns use (seconds). */
  readonly bsld_tau_s: number;
  /** Mean wait (begin − submit, seconds) of the measured jobs. */
  readonly wait_mean_s: number | null;
  /** Median (nearest rank) wait (begin − submit, seconds) of the measured jobs. */
  readonly wait_p50_s: number | null;
  /** 90th percentile (nearest rank) wait (begin − submit, seconds) of the measured jobs. */
  readonly wait_p90_s: number | null;
  /** 95th percentile (nearest rank) wait (begin − submit, seconds) of the measured jobs. */
  readonly wait_p95_s: number | null;
  /** 99th percentile (nearest rank) wait (begin − submit, seconds) of the measured jobs. */
  readonly wait_p99_s: number | null;
  /** Largest wait (begin − submit, seconds) of the measured jobs. */
  readonly wait_max_s: number | null;
  /** Mean response time (end − submit, seconds) of the measured jobs. */
  readonly response_mean_s: number | null;
  /** Median (nearest rank) response time (end − submit, seconds) of the measured jobs. */
  readonly response_p50_s: number | null;
  /** 90th percentile (nearest rank) response time (end − submit, seconds) of the measured jobs. */
  readonly response_p90_s: number | null;
  /** 95th percentile (nearest rank) response time (end − submit, seconds) of the measured jobs. */
  readonly response_p95_s: number | null;
  /** 99th percentile (nearest rank) response time (end − submit, seconds) of the measured jobs. */
  readonly response_p99_s: number | null;
  /** Largest response time (end − submit, seconds) of the measured jobs. */
  readonly response_max_s: number | null;
  /** Mean slowdown (response / max(run, 1 s)) of the measured jobs. */
  readonly slowdown_mean: number | null;
  /** Median (nearest rank) slowdown (response / max(run, 1 s)) of the measured jobs. */
  readonly slowdown_p50: number | null;
  /** 90th percentile (nearest rank) slowdown (response / max(run, 1 s)) of the measured jobs. */
  readonly slowdown_p90: number | null;
  /** 95th percentile (nearest rank) slowdown (response / max(run, 1 s)) of the measured jobs. */
  readonly slowdown_p95: number | null;
  /** 99th percentile (nearest rank) slowdown (response / max(run, 1 s)) of the measured jobs. */
  readonly slowdown_p99: number | null;
  /** Largest slowdown (response / max(run, 1 s)) of the measured jobs. */
  readonly slowdown_max: number | null;
  /** Mean bounded slowdown (max(1, response / max(run, τ))) of the measured jobs. */
  readonly bsld_mean: number | null;
  /** Median (nearest rank) bounded slowdown (max(1, response / max(run, τ))) of the measured jobs. */
  readonly bsld_p50: number | null;
  /** 90th percentile (nearest rank) bounded slowdown (max(1, response / max(run, τ))) of the measured jobs. */
  readonly bsld_p90: number | null;
  /** 95th percentile (nearest rank) bounded slowdown (max(1, response / max(run, τ))) of the measured jobs. */
  readonly bsld_p95: number | null;
  /** 99th percentile (nearest rank) bounded slowdown (max(1, response / max(run, τ))) of the measured jobs. */
  readonly bsld_p99: number | null;
  /** Largest bounded slowdown (max(1, response / max(run, τ))) of the measured jobs. */
  readonly bsld_max: number | null;
  /**
   * Node-seconds used within the measured span over the capacity's
   * node-seconds in it (on a machine: node equivalents, see {@link machineMetrics}).
   */
  readonly utilization: number | null;
  /** Last end − first submit of the measured jobs. */
  readonly makespan_s: number | null;
  /** Measured jobs per second of makespan. */
  readonly throughput_jobs_per_s: number | null;
}

/** The names of {@link Metrics}, in the order every output lists them. */
export const METRIC_NAMES: readonly (keyof Metrics)[] = [
  "jobs",
  "jobs_excluded",
  "bsld_tau_s",
  ...(["wait", "response"] as const).flatMap((m) =>
    (["mean", "p50", "p90", "p95", "p99", "max"] as const).map((s) =>
      `${m}_${s}_s` as keyof Metrics
    )
  ),
  ...(["slowdown", "bsld"] as const).flatMap((m) =>
    (["mean", "p50", "p90", "p95", "p99", "max"] as const).map((s) => `${m}_${s}` as keyof Metrics)
  ),
  "utilization",
  "makespan_s",
  "throughput_jobs_per_s",
];

/** Checks the options; throws a usage {@link EvtsimError} naming the bad one. */
export function checkMetricsOptions(options: MetricsOptions): void {
  const tau = options.bsldTau;
  if (tau !== undefined && !(tau > 0 && Number.isFinite(tau))) {
    throw new EvtsimError("usage", `bsld_tau must be a number of seconds > 0, got ${tau}`);
  }
  const w = options.measureWindow;
  if (w !== undefined && !(Number.isFinite(w[0]) && Number.isFinite(w[1]) && w[0] < w[1])) {
    throw new EvtsimError(
      "usage",
      `measure_window must be START:END with START < END, got ${w.join(":")}`,
    );
  }
  checkTrimOption(options);
}

/**
 * The capacity a run's utilization is measured against: `totalNodes`, or,
 * with capacity changes, the usable nodes over time (`totalNodes` until the
 * first change). Every output that states utilization takes it from here.
 *
 * @example
 * ```ts
 * import { capacityOverTime } from "@evtsim/evtsim";
 * const c = capacityOverTime(100, [{ time: 50, capacity: 80 }]);
 * if (typeof c === "number" || c[1].nodes !== 80 || c[0].nodes !== 100) throw new Error("steps");
 * if (capacityOverTime(100, []) !== 100) throw new Error("constant");
 * ```
 */
export function capacityOverTime(
  totalNodes: number,
  changes: readonly { readonly time: number; readonly capacity: number }[],
): number | CapacityStep[] {
  if (changes.length === 0) return totalNodes;
  return [
    { time: -Infinity, nodes: totalNodes },
    ...changes.map((c) => ({ time: c.time, nodes: c.capacity })),
  ];
}

// Integral of the capacity over [from, to]: a constant, or a step function
// (steps in time order; before the first step, the first step's nodes).
function capacitySeconds(capacity: number | readonly CapacityStep[], from: number, to: number) {
  if (typeof capacity === "number") return capacity * (to - from);
  let sum = 0;
  for (let i = 0; i < capacity.length; i++) {
    const lo = i === 0 ? -Infinity : capacity[i].time;
    const hi = i + 1 < capacity.length ? capacity[i + 1].time : Infinity;
    const a = Math.max(lo, from), b = Math.min(hi, to);
    if (b > a) sum += capacity[i].nodes * (b - a);
  }
  return sum;
}

function distribution(values: Float64Array): [number | null, ...(number | null)[]] {
  const n = values.length;
  if (n === 0) return [null, null, null, null, null, null];
  let sum = 0;
  for (let i = 0; i < n; i++) sum += values[i];
  sortFloat64(values);
  return [sum / n, ...METRIC_PERCENTILES.map((p) => nearestRank(values, p)), values[n - 1]];
}

/**
 * The metric set of a finished run from its job rows and the machine's
 * capacity (a node count, or usable nodes over time). Per measured job
 * (ran to its end, submitted in the window): wait = begin − submit,
 * response = end − submit, run = end − begin, slowdown = response /
 * max(run, 1 s), bounded slowdown = max(1, response / max(run, τ)). Each
 * is reported as mean, p50, p90, p95, p99 (nearest rank: see
 * {@link nearestRank}) and max. The measured span is [first submit, last
 * end] of the measured jobs: makespan = its length, throughput = jobs /
 * makespan, utilization = Σ over every job that ran (cancelled before
 * starting: none; failed and killed: until they ended) of nodes × its run
 * time within the span, over the capacity's node-seconds in the span.
 *
 * @example
 * ```ts
 * import { computeMetrics } from "@evtsim/evtsim";
 * const m = computeMetrics([
 *   { submitTime: 0, beginTime: 0, endTime: 100, numNodes: 4 },
 *   { submitTime: 0, beginTime: 100, endTime: 200, numNodes: 8 },
 * ], 8, { bsldTau: 10 });
 * // Job 1 waited 100 s; 1200 of 8 × 200 node-seconds were used.
 * console.assert(m.wait_mean_s === 50 && m.wait_max_s === 100 && m.bsld_max === 2);
 * console.assert(m.utilization === 0.75 && m.makespan_s === 200 && m.throughput_jobs_per_s === 0.01);
 * ```
 */
export function computeMetrics(
  jobs: Iterable<MetricsJob>,
  capacity: number | readonly CapacityStep[],
  options: MetricsOptions = {},
): Metrics {
  return metricsOfColumns(JobColumns.of(jobs, false), capacity, options);
}

// computeMetrics of jobs kept as columns (MetricsCollector's, or a list's).
function metricsOfColumns(
  c: JobColumns,
  capacity: number | readonly CapacityStep[],
  options: MetricsOptions,
): Metrics {
  checkMetricsOptions(options);
  const tau = options.bsldTau ?? DEFAULT_BSLD_TAU;
  const measured = measuredIndices(c, options);
  let completed = 0;
  for (let i = 0; i < c.length; i++) completed += c.ok[i];
  const excluded = completed - measured.length;
  const n = measured.length;
  const wait = new Float64Array(n), response = new Float64Array(n);
  const slowdown = new Float64Array(n), bsld = new Float64Array(n);
  const submit = c.submit, begin = c.begin, end = c.end, nodes = c.nodes;
  const held = c.suspended;
  let first = Infinity, last = -Infinity;
  for (let i = 0; i < n; i++) {
    const j = measured[i];
    const run = end[j] - begin[j];
    wait[i] = begin[j] - submit[j];
    response[i] = end[j] - submit[j];
    slowdown[i] = response[i] / Math.max(run, 1);
    bsld[i] = Math.max(1, response[i] / Math.max(run, tau));
    if (submit[j] < first) first = submit[j];
    if (end[j] > last) last = end[j];
  }
  const makespan = n > 0 ? last - first : null;
  let used = 0;
  if (n > 0) {
    // Every job that ran (its end after its begin), in job order.
    for (let j = 0; j < c.length; j++) {
      if (!(end[j] > begin[j])) continue;
      const a = Math.max(begin[j], first), b = Math.min(end[j], last);
      // A suspended job held no nodes while suspended (clipped to the span).
      if (b > a) used += nodes[j] * (b - a - (held === undefined ? 0 : Math.min(held[j], b - a)));
    }
  }
  const available = n > 0 ? capacitySeconds(capacity, first, last) : 0;
  const [wm, w50, w90, w95, w99, wmax] = distribution(wait);
  const [rm, r50, r90, r95, r99, rmax] = distribution(response);
  const [sm, s50, s90, s95, s99, smax] = distribution(slowdown);
  const [bm, b50, b90, b95, b99, bmax] = distribution(bsld);
  return {
    jobs: n,
    jobs_excluded: excluded,
    bsld_tau_s: tau,
    wait_mean_s: wm,
    wait_p50_s: w50,
    wait_p90_s: w90,
    wait_p95_s: w95,
    wait_p99_s: w99,
    wait_max_s: wmax,
    response_mean_s: rm,
    response_p50_s: r50,
    response_p90_s: r90,
    response_p95_s: r95,
    response_p99_s: r99,
    response_max_s: rmax,
    slowdown_mean: sm,
    slowdown_p50: s50,
    slowdown_p90: s90,
    slowdown_p95: s95,
    slowdown_p99: s99,
    slowdown_max: smax,
    bsld_mean: bm,
    bsld_p50: b50,
    bsld_p90: b90,
    bsld_p95: b95,
    bsld_p99: b99,
    bsld_max: bmax,
    utilization: available > 0 ? used / available : null,
    makespan_s: makespan,
    throughput_jobs_per_s: makespan !== null && makespan > 0 ? n / makespan : null,
  };
}

/**
 * The metric set of a run on a resource model (a `--machine` run), whose
 * jobs hold no share of the node-count pool: its `utilization` is the
 * machine's node-equivalent utilization (`resources.node_equivalents`: on
 * each node a job held, the largest fraction of any resource of it, over the
 * machine's nodes, in the same span). Without resource figures (whole
 * nodes) the metric set is returned as it is.
 *
 * @example
 * ```ts
 * import { computeMetrics, machineMetrics } from "@evtsim/evtsim";
 * const m = computeMetrics([{ submitTime: 0, beginTime: 0, endTime: 100, numNodes: 0 }], 2);
 * const fig = (u: number) => ({ capacity: 2, used_unit_s: u * 200, utilization: u });
 * const on = machineMetrics(m, { node_equivalents: fig(0.25), by_resource: { gpus: fig(0.5) } });
 * console.assert(m.utilization === 0 && on.utilization === 0.25);
 * console.assert(machineMetrics(m, undefined) === m);
 * ```
 */
export function machineMetrics(metrics: Metrics, resources: ResourceMetrics | undefined): Metrics {
  if (resources === undefined) return metrics;
  return { ...metrics, utilization: resources.node_equivalents.utilization };
}

/**
 * A machine run's per-resource columns for compare and sweep rows:
 * `utilization_<resource>` for each resource of `resources.by_resource` (as
 * a stats JSON has it: sorted by name), its utilization.
 *
 * @example
 * ```ts
 * import { utilizationColumns } from "@evtsim/evtsim";
 * const fig = (u: number) => ({ capacity: 4, used_unit_s: 0, utilization: u });
 * const c = utilizationColumns({ by_resource: { cores: fig(0.5), gpus: fig(0.75) } });
 * console.assert(JSON.stringify(c) === '{"utilization_cores":0.5,"utilization_gpus":0.75}');
 * ```
 */
export function utilizationColumns(
  resources: {
    readonly by_resource: Readonly<Record<string, { readonly utilization: number | null }>>;
  },
): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  for (const [r, f] of Object.entries(resources.by_resource)) {
    out[`utilization_${r}`] = f.utilization;
  }
  return out;
}

/**
 * Keeps the numbers the metrics need of each job row as the rows stream by
 * (45 bytes a job, each distinct user, account and queue name once), for
 * {@link computeMetrics} and the breakdowns at the end.
 *
 * @example
 * ```ts
 * import { MetricsCollector } from "@evtsim/evtsim";
 * const c = new MetricsCollector();
 * c.add({ submitTime: 0, beginTime: 0, endTime: 50, numNodes: 1 });
 * c.add({ submitTime: 0, beginTime: 0, endTime: 5, numNodes: 1, outcome: "failed" });
 * // 55 of 2 × 50 node-seconds used; the failed job is not measured but used nodes.
 * console.assert(c.metrics(2).jobs === 1 && c.metrics(2).utilization === 0.55);
 * ```
 */
export class MetricsCollector {
  readonly #jobs = new JobColumns();

  /** Jobs added. */
  get count(): number {
    return this.#jobs.length;
  }

  /** Adds one job row; `labels` (default: the row's own) give its user and account. */
  add(j: MetricsJob, labels: { readonly user?: string; readonly account?: string } = j): void {
    this.#jobs.add(j, labels);
  }

  /** The number of user or account label `name` in this collector (0 for none), for {@link MetricsCollector.addNumbered}. */
  labelNumber(name: string | undefined): number {
    return this.#jobs.labels.id(name);
  }

  /**
   * Adds one job row whose user and account are given by their
   * {@link MetricsCollector.labelNumber} (no object or lookup per row).
   */
  addNumbered(j: MetricsJob, user: number, account: number): void {
    this.#jobs.addNumbered(j, user, account);
  }

  /** The metrics of the jobs added so far (see {@link computeMetrics}). */
  metrics(capacity: number | readonly CapacityStep[], options: MetricsOptions = {}): Metrics {
    return metricsOfColumns(this.#jobs, capacity, options);
  }

  /**
   * The breakdowns (per user, account, queue, size class) and fairness of the
   * jobs added so far, measured as {@link MetricsCollector.metrics} measures them.
   *
   * @example
   * ```ts
   * import { MetricsCollector } from "@evtsim/evtsim";
   * const c = new MetricsCollector();
   * c.add({ submitTime: 0, beginTime: 0, endTime: 50, numNodes: 1, user: "ann" });
   * c.add({ submitTime: 0, beginTime: 50, endTime: 100, numNodes: 3, user: "bob" });
   * const { breakdowns, fairness } = c.breakdowns();
   * // bob's bounded slowdown is 2, ann's 1: Jain's index (3² / (2 × 5)) = 0.9.
   * console.assert(breakdowns.size.map((g) => g.key).join() === "1,2-3");
   * console.assert(fairness.worst_user === "bob" && fairness.jain_bsld === 0.9);
   * ```
   */
  breakdowns(options: MetricsOptions = {}): { breakdowns: Breakdowns; fairness: Fairness } {
    checkMetricsOptions(options);
    return breakdownsOfColumns(this.#jobs, options, options.bsldTau ?? DEFAULT_BSLD_TAU);
  }

  /**
   * The fairness figures of {@link MetricsCollector.breakdowns} alone (the
   * same values, without the breakdowns: what a sweep row keeps).
   *
   * @example
   * ```ts
   * import { MetricsCollector } from "@evtsim/evtsim";
   * const c = new MetricsCollector();
   * c.add({ submitTime: 0, beginTime: 0, endTime: 50, numNodes: 1, user: "ann" });
   * c.add({ submitTime: 0, beginTime: 50, endTime: 100, numNodes: 3, user: "bob" });
   * console.assert(JSON.stringify(c.fairness()) === JSON.stringify(c.breakdowns().fairness));
   * ```
   */
  fairness(options: MetricsOptions = {}): Fairness {
    checkMetricsOptions(options);
    return fairnessOfColumns(this.#jobs, options, options.bsldTau ?? DEFAULT_BSLD_TAU);
  }
}
