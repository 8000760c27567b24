// The job rows' few numbers and labels as the metric set reads them: one
// typed array per field. `computeMetrics` and `computeBreakdowns` work on
// these columns (their object rows are copied in first), and
// `MetricsCollector` fills them as the rows stream by, so the end of a run
// makes no object per job: an HPC2N-sized run spent a sixth of a warm sweep
// cell making 28k row objects and grouping them.

import { LabelColumns } from "./_metrics_labels.ts";
import type { MetricsJob, MetricsOptions } from "./metrics.ts";

const INITIAL = 1024;

/**
 * Jobs as columns: submit, begin and end times, nodes, whether the job ran
 * to its end (`ok`), and its user, account and queue labels.
 *
 * @example
 * ```ts
 * import { JobColumns } from "./_metrics_columns.ts";
 * const c = JobColumns.of([
 *   { submitTime: 0, beginTime: 5, endTime: 9, numNodes: 2, user: "ann" },
 *   { submitTime: 1, beginTime: 1, endTime: 2, numNodes: 1, outcome: "failed" },
 * ]);
 * console.assert(c.length === 2 && c.begin[0] === 5 && c.ok[1] === 0);
 * console.assert(c.labels.label(0, 0) === "ann");
 * ```
 */
export class JobColumns {
  submit: Float64Array = new Float64Array(INITIAL);
  begin: Float64Array = new Float64Array(INITIAL);
  end: Float64Array = new Float64Array(INITIAL);
  nodes: Float64Array = new Float64Array(INITIAL);
  /** 1: ran to its end (no outcome); 0: cancelled, failed or killed. */
  ok: Uint8Array = new Uint8Array(INITIAL);
  /**
   * Seconds suspended, by job: made at the first suspended job (a run
   * without suspensions keeps none).
   */
  suspended: Float64Array | undefined = undefined;
  /** Users (column 0), accounts (1) and queues (2). */
  readonly labels: LabelColumns = new LabelColumns();
  /** Jobs added. */
  length = 0;

  /** The columns of `jobs`, with their labels when `withLabels`. */
  static of(jobs: Iterable<MetricsJob>, withLabels = true): JobColumns {
    const c = new JobColumns();
    for (const j of jobs) c.add(j, withLabels ? j : undefined);
    return c;
  }

  /**
   * Adds one job; `labels` give its user and account (its queue is the
   * job's own); none when undefined.
   */
  add(
    j: MetricsJob,
    labels: { readonly user?: string; readonly account?: string } | undefined,
  ): void {
    if (this.length === this.ok.length) this.#grow();
    const i = this.length++;
    this.submit[i] = j.submitTime;
    this.begin[i] = j.beginTime;
    this.end[i] = j.endTime;
    this.nodes[i] = j.numNodes;
    this.ok[i] = j.outcome === undefined ? 1 : 0;
    if (labels !== undefined) this.labels.set(i, labels.user, labels.account, j.queue);
    if (j.suspendedSeconds !== undefined) this.#suspend(i, j.suspendedSeconds);
  }

  /**
   * Adds one job whose user and account are given by their numbers in
   * {@link JobColumns.labels} (its queue is the job's own).
   */
  addNumbered(j: MetricsJob, user: number, account: number): void {
    if (this.length === this.ok.length) this.#grow();
    const i = this.length++;
    this.submit[i] = j.submitTime;
    this.begin[i] = j.beginTime;
    this.end[i] = j.endTime;
    this.nodes[i] = j.numNodes;
    this.ok[i] = j.outcome === undefined ? 1 : 0;
    this.labels.setIds(i, user, account, this.labels.id(j.queue));
    if (j.suspendedSeconds !== undefined) this.#suspend(i, j.suspendedSeconds);
  }

  #suspend(i: number, seconds: number): void {
    this.suspended ??= new Float64Array(this.ok.length);
    this.suspended[i] = seconds;
  }

  #grow(): void {
    const bigger = (c: Float64Array) => {
      const b = new Float64Array(c.length * 2);
      b.set(c);
      return b;
    };
    this.submit = bigger(this.submit);
    this.begin = bigger(this.begin);
    this.end = bigger(this.end);
    this.nodes = bigger(this.nodes);
    if (this.suspended !== undefined) this.suspended = bigger(this.suspended);
    const ok = new Uint8Array(this.ok.length * 2);
    ok.set(this.ok);
    this.ok = ok;
  }
}

/**
 * The indices of the measured jobs, ascending: those that ran to their end
 * and were submitted in the measure window, or, with `trim [W, C]`, all of
 * those but the first W and the last C in submit order (ties in job order).
 * The same jobs as `selectMeasured` of the jobs that ran to their end.
 */
export function measuredIndices(c: JobColumns, options: MetricsOptions): Int32Array {
  const n = c.length, ok = c.ok, submit = c.submit;
  let completed = 0;
  for (let i = 0; i < n; i++) completed += ok[i];
  const all = new Int32Array(completed);
  for (let i = 0, k = 0; i < n; i++) if (ok[i] === 1) all[k++] = i;
  const t = options.trim;
  if (t !== undefined) {
    const order = Array.from(all);
    order.sort((a, b) => submit[a] - submit[b] || a - b);
    const trimCount = (amount: number) => amount < 1 ? Math.floor(amount * completed) : amount;
    const keep = new Uint8Array(n);
    const from = trimCount(t[0]), to = completed - trimCount(t[1]);
    for (let r = from; r < to; r++) keep[order[r]] = 1;
    return all.filter((i) => keep[i] === 1);
  }
  const w = options.measureWindow;
  if (w === undefined) return all;
  const [lo, hi] = w;
  return all.filter((i) => submit[i] >= lo && submit[i] < hi);
}
