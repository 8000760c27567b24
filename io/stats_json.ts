// Per-job figures computed from the schedule rows as they stream by (wait
// and bounded slowdown), their percentiles, and the `--stats_json` document
// that puts them beside the run's statistics and the options that produced
// them. Nothing here touches the engine: it only reads rows.

import { BOUNDED_SLOWDOWN_THRESHOLD, type Statistics } from "../core/statistics.ts";
import type { JobRow } from "../core/types.ts";
import type { Breakdowns, Fairness, Metrics, ResourceMetrics } from "../core/metrics.ts";
import { EvtsimError } from "../core/errors.ts";
import { sortFloat64 } from "../core/_float_sort.ts";

/**
 * A job's bounded slowdown: max(1, turnaround / max(run time, τ)), τ = 10 s,
 * the same definition as the statistics' average.
 *
 * @example
 * ```ts
 * import { boundedSlowdown } from "./stats_json.ts";
 * const row = { jobId: 0, submitTime: 0, beginTime: 90, endTime: 100, numNodes: 1, timeLimit: 10, queue: undefined };
 * console.assert(boundedSlowdown(row) === 10); // turnaround 100 s over max(10 s, τ)
 * ```
 */
export function boundedSlowdown(r: JobRow): number {
  const run = r.endTime - r.beginTime;
  return Math.max(1, (r.endTime - r.submitTime) / Math.max(run, BOUNDED_SLOWDOWN_THRESHOLD));
}

/** p50, p90, p99 (nearest rank), maximum and mean of a set of values. */
export interface Distribution {
  readonly count: number;
  readonly mean: number | null;
  readonly p50: number | null;
  readonly p90: number | null;
  readonly p99: number | null;
  readonly max: number | null;
}

/**
 * The nearest-rank percentile of ascending `sorted` values: the smallest
 * value with at least `p` percent of the values at or below it.
 *
 * @example
 * ```ts
 * import { percentile } from "./stats_json.ts";
 * const xs = Float64Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
 * console.assert(percentile(xs, 50) === 5 && percentile(xs, 90) === 9 && percentile(xs, 99) === 10);
 * ```
 */
export function percentile(sorted: Float64Array, p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

class Values {
  private data = new Float64Array(1024);
  private n = 0;
  private sum = 0;

  push(v: number): void {
    if (this.n === this.data.length) {
      const bigger = new Float64Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.n++] = v;
    this.sum += v;
  }

  distribution(): Distribution {
    const sorted = sortFloat64(this.data.slice(0, this.n));
    return {
      count: this.n,
      mean: this.n > 0 ? this.sum / this.n : null,
      p50: percentile(sorted, 50),
      p90: percentile(sorted, 90),
      p99: percentile(sorted, 99),
      max: this.n > 0 ? sorted[this.n - 1] : null,
    };
  }
}

/**
 * Collects each written job's wait and bounded slowdown (8 bytes each per
 * job) for the percentiles.
 *
 * @example
 * ```ts
 * import { JobMetrics } from "./stats_json.ts";
 * const m = new JobMetrics();
 * m.add({ jobId: 0, submitTime: 0, beginTime: 0, endTime: 50, numNodes: 1, timeLimit: 60, queue: undefined });
 * m.add({ jobId: 1, submitTime: 0, beginTime: 50, endTime: 100, numNodes: 1, timeLimit: 60, queue: undefined });
 * console.assert(m.waits().max === 50 && m.waits().p50 === 0 && m.slowdowns().max === 2);
 * ```
 */
export class JobMetrics {
  private readonly wait: Values | undefined;
  private readonly slowdown: Values | undefined;

  /**
   * `keep` false: only `add`'s per-job figures, no distributions (a run
   * without a statistics JSON; keeping them was 4 to 8 MiB of HPC2N's peak).
   */
  constructor(keep = true) {
    this.wait = keep ? new Values() : undefined;
    this.slowdown = keep ? new Values() : undefined;
  }

  /** What `add` returns: one object, rewritten by every call. */
  private readonly figures = { wait: 0, boundedSlowdown: 0 };

  /**
   * Adds one finished job; returns its wait and bounded slowdown, in an
   * object the next call rewrites (one per job was most of what writing a
   * schedule row allocated).
   */
  add(r: JobRow): { readonly wait: number; readonly boundedSlowdown: number } {
    const wait = r.beginTime - r.submitTime;
    const bsld = boundedSlowdown(r);
    // Cancelled, failed and killed jobs stay out of the distributions, as
    // they stay out of the averages.
    if (r.outcome === undefined && this.wait !== undefined) {
      this.wait.push(wait);
      this.slowdown!.push(bsld);
    }
    const f = this.figures;
    f.wait = wait;
    f.boundedSlowdown = bsld;
    return f;
  }

  /** Distribution of the waits (seconds). */
  waits(): Distribution {
    return this.kept(this.wait).distribution();
  }

  /** Distribution of the bounded slowdowns. */
  slowdowns(): Distribution {
    return this.kept(this.slowdown).distribution();
  }

  private kept(v: Values | undefined): Values {
    if (v === undefined) {
      throw new EvtsimError("state", "the per-job waits and slowdowns were not kept");
    }
    return v;
  }
}

/** Everything the `--stats_json` file holds. */
export interface StatsDocument {
  /** The evtsim version that ran. */
  readonly evtsimVersion: string;
  /** Input files, in reading order. */
  readonly inputs: readonly string[];
  /** The options as given (command line and config files), by DR_EVT name. */
  readonly options: Readonly<Record<string, string | number | boolean>>;
  /** The effective simulation configuration, defaults filled in. */
  readonly config: Readonly<Record<string, unknown>>;
  /** The run's statistics, as the library reports them. */
  readonly statistics: Statistics;
  /** Waits of the written jobs (seconds). */
  readonly waitTime: Distribution;
  /** Bounded slowdowns of the written jobs. */
  readonly boundedSlowdown: Distribution & { readonly tau: number };
  /** The metric set (core/metrics.ts), as compare, sweep, report and serve give it. */
  readonly metrics?: Metrics;
  /** The measured jobs per user, account, queue and size class (docs/metrics.md). */
  readonly breakdowns?: Breakdowns;
  /** Jain's index over the users' mean bounded slowdowns and the worst user. */
  readonly fairness?: Fairness;
  /** Utilization per resource and partition (a run on a resource model that names its nodes). */
  readonly resources?: ResourceMetrics;
  /** Energy of a `--trace_type pcon` run. */
  readonly energy?: EnergyMetrics;
}

/**
 * Energy of a `--trace_type pcon` run, in the trace's avgpcon unit times
 * seconds (joules when avgpcon is in watts).
 *
 * @example
 * ```ts
 * import type { EnergyMetrics } from "./stats_json.ts";
 * import { parseTrace } from "@evtsim/evtsim/io";
 * import type { PconJob } from "./trace_csv.ts";
 * // A pcon trace: a job of 100 W for 10 s, then one of 50 W for 20 s.
 * const csv = "job_submit_time,num_nodes,time_limit,actual_run_time,avgpcon,minpcon,maxpcon\n" +
 *   "0,1,20,10,100,90,110\n10,1,30,20,50,40,60\n";
 * const jobs = parseTrace(csv, { file: "power.csv", pcon: true }).jobs as (PconJob & { actualRunTime?: number })[];
 * const each = jobs.map((j) => j.pcon![0] * j.actualRunTime!);
 * const e: EnergyMetrics = {
 *   total: each[0] + each[1],
 *   jobs: each.length,
 *   per_job_mean: (each[0] + each[1]) / 2,
 *   per_job_max: Math.max(...each),
 * };
 * console.assert(e.total === 2000 && e.per_job_max === 1000, JSON.stringify(e));
 * ```
 */
export interface EnergyMetrics {
  /** The integral of the avgpcon timeline (the resource CSV's column) from its first row to its last. */
  readonly total: number;
  /** The jobs written (completed) whose energies the per-job figures cover. */
  readonly jobs: number;
  /** Mean of the written jobs' energies (avgpcon × run time); null without jobs. */
  readonly per_job_mean: number | null;
  /** Largest of them; null without jobs. */
  readonly per_job_max: number | null;
}

/**
 * The JSON text (two-space indented, one trailing newline). Infinite or NaN
 * numbers become null.
 *
 * @example
 * ```ts
 * import { JobMetrics, statsJsonText } from "./stats_json.ts";
 * const m = new JobMetrics();
 * const text = statsJsonText({
 *   evtsimVersion: "0.1.0", inputs: ["jobs.csv"], options: { total_nodes: 8 }, config: { totalNodes: 8 },
 *   statistics: {} as never, waitTime: m.waits(), boundedSlowdown: { ...m.slowdowns(), tau: 10 },
 * });
 * console.assert(JSON.parse(text).waitTime.p99 === null && text.endsWith("}\n"));
 * ```
 */
export function statsJsonText(doc: StatsDocument): string {
  return JSON.stringify(
    doc,
    (_k, v) => typeof v === "number" && !Number.isFinite(v) ? null : v,
    2,
  ) +
    "\n";
}

/** The bounded-slowdown threshold τ (seconds) the figures use. */
export const SLOWDOWN_TAU = BOUNDED_SLOWDOWN_THRESHOLD;

/**
 * `--measure_window START:END` (seconds, START < END) as a pair; one usage
 * line for anything else.
 *
 * @example
 * ```ts
 * import { parseMeasureWindow } from "./stats_json.ts";
 * const [start, end] = parseMeasureWindow("3600:86400");
 * console.assert(start === 3600 && end === 86400);
 * ```
 */
export function parseMeasureWindow(text: string): [number, number] {
  const m = /^\s*(-?\d+(?:\.\d+)?)\s*:\s*(-?\d+(?:\.\d+)?)\s*$/.exec(text);
  if (m === null || !(Number(m[1]) < Number(m[2]))) {
    throw new EvtsimError(
      "usage",
      `--measure_window: expected START:END in seconds with START < END, got '${text}'`,
    );
  }
  return [Number(m[1]), Number(m[2])];
}
