// Utilization per resource (and per partition) of a run on a resource
// model: Σ units held × seconds, over the units the machine has × the
// measured span — the span of the metric set's `utilization` (first submit
// to last end of the measured jobs, core/metrics.ts). What each job held
// comes from its DISPATCH row (replicas per node × units per replica); when
// it held them from its job row. A node's partition is its `partition`
// label; nodes without one are left out of the per-partition figures.

import type { DecisionRow } from "./decisions.ts";
import type { MetricsOptions } from "./metrics.ts";
import type { ModelNode } from "./resource_model.ts";

/** One resource's (or one partition's resource's) utilization. */
export interface ResourceFigures {
  /** Units the machine (or partition) has. */
  readonly capacity: number;
  /** Units × seconds held by jobs within the measured span. */
  readonly used_unit_s: number;
  /** used_unit_s / (capacity × span length); null without a span or capacity. */
  readonly utilization: number | null;
}

/** Per-resource utilization, and per partition when nodes carry a `partition` label. */
export interface ResourceMetrics {
  /** By resource name. */
  readonly by_resource: Readonly<Record<string, ResourceFigures>>;
  /** By partition label, then resource name (absent when no node has a partition). */
  readonly by_partition?: Readonly<Record<string, Readonly<Record<string, ResourceFigures>>>>;
}

/** The row fields the collector reads (a `JobRow` has them all). */
interface EndedJob {
  readonly jobId: number;
  readonly submitTime: number;
  readonly beginTime: number;
  readonly endTime: number;
  readonly outcome?: string;
}

/**
 * Collects what each job held (from DISPATCH rows) and when (from job rows),
 * then gives the per-resource utilization over the measured span.
 *
 * @example
 * ```ts
 * import { ResourceUseCollector } from "./_metrics_resources.ts";
 * const c = new ResourceUseCollector([
 *   { name: "a", capacity: { cpu: 8, gpu: 2 }, labels: { partition: "gpu" } },
 *   { name: "b", capacity: { cpu: 8 }, labels: { partition: "cpu" } },
 * ]);
 * c.decisions([{
 *   type: "DISPATCH", time: 0, round: 1, jobId: 0, numNodes: 1, backfill: false,
 *   allocation: [{ nodeName: "a", replicas: 2 }], perReplica: { cpu: 2, gpu: 1 },
 * }]);
 * c.add({ jobId: 0, submitTime: 0, beginTime: 0, endTime: 100 });
 * const m = c.metrics();
 * // 4 of 16 cpus and both gpus for the whole span.
 * console.assert(m.by_resource.cpu.utilization === 0.25 && m.by_resource.gpu.utilization === 1);
 * console.assert(m.by_partition?.cpu.cpu.utilization === 0);
 * ```
 */
export class ResourceUseCollector {
  readonly #resources: readonly string[];
  readonly #partitions: readonly string[];
  /** Node name → its partition's index (-1: none). */
  readonly #partitionOf = new Map<string, number>();
  /** Capacity, group-major: group 0 the machine, group 1 + p partition p. */
  readonly #capacity: Float64Array;
  /** Units a started job holds, by group and resource (as #capacity). */
  readonly #held = new Map<number, Float64Array>();
  /** Ended jobs: begin, end, units. */
  readonly #ended: { begin: number; end: number; units: Float64Array }[] = [];
  /** Measured jobs' first submit, last end (the metric set's span), per window. */
  readonly #measured: { submit: number; end: number }[] = [];

  constructor(nodes: readonly ModelNode[]) {
    const resources = new Set<string>();
    const partitions = new Set<string>();
    for (const n of nodes) {
      for (const r of Object.keys(n.capacity)) resources.add(r);
      const p = n.labels?.partition;
      if (p !== undefined) partitions.add(p);
    }
    this.#resources = [...resources].sort();
    this.#partitions = [...partitions].sort();
    const R = this.#resources.length;
    this.#capacity = new Float64Array((1 + this.#partitions.length) * R);
    for (const n of nodes) {
      const p = n.labels?.partition;
      const pi = p === undefined ? -1 : this.#partitions.indexOf(p);
      this.#partitionOf.set(n.name, pi);
      this.#resources.forEach((r, k) => {
        const v = n.capacity[r] ?? 0;
        this.#capacity[k] += v;
        if (pi >= 0) this.#capacity[(1 + pi) * R + k] += v;
      });
    }
  }

  /** Takes the units of every DISPATCH row that carries an allocation. */
  decisions(rows: readonly DecisionRow[]): void {
    const R = this.#resources.length;
    for (const d of rows) {
      if (d.type !== "DISPATCH" || d.allocation === undefined) continue;
      const units = new Float64Array(this.#capacity.length);
      for (const share of d.allocation) {
        const pi = this.#partitionOf.get(share.nodeName) ?? -1;
        this.#resources.forEach((r, k) => {
          const v = (d.perReplica?.[r] ?? 0) * share.replicas;
          units[k] += v;
          if (pi >= 0) units[(1 + pi) * R + k] += v;
        });
      }
      this.#held.set(d.jobId, units);
    }
  }

  /** Adds one job row (a job no DISPATCH row placed holds nothing here). */
  add(j: EndedJob): void {
    const units = this.#held.get(j.jobId);
    if (units !== undefined) {
      this.#held.delete(j.jobId);
      if (j.endTime > j.beginTime) this.#ended.push({ begin: j.beginTime, end: j.endTime, units });
    }
    if (j.outcome === undefined) this.#measured.push({ submit: j.submitTime, end: j.endTime });
  }

  /** The utilization over the measured span (the metric set's, with the same window). */
  metrics(options: MetricsOptions = {}): ResourceMetrics {
    const [lo, hi] = options.measureWindow ?? [-Infinity, Infinity];
    let first = Infinity, last = -Infinity;
    for (const m of this.#measured) {
      if (m.submit < lo || m.submit >= hi) continue;
      if (m.submit < first) first = m.submit;
      if (m.end > last) last = m.end;
    }
    const used = new Float64Array(this.#capacity.length);
    for (const e of this.#ended) {
      const seconds = Math.min(e.end, last) - Math.max(e.begin, first);
      if (seconds > 0) { for (let i = 0; i < used.length; i++) used[i] += e.units[i] * seconds; }
    }
    const span = last > first ? last - first : 0;
    const R = this.#resources.length;
    const group = (g: number): Record<string, ResourceFigures> =>
      Object.fromEntries(this.#resources.map((r, k) => {
        const capacity = this.#capacity[g * R + k];
        const u = used[g * R + k];
        return [r, {
          capacity,
          used_unit_s: u,
          utilization: capacity > 0 && span > 0 ? u / (capacity * span) : null,
        }];
      }));
    const out: ResourceMetrics = { by_resource: group(0) };
    if (this.#partitions.length === 0) return out;
    return {
      ...out,
      by_partition: Object.fromEntries(this.#partitions.map((p, i) => [p, group(1 + i)])),
    };
  }
}
